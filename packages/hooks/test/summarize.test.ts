import type { RecordedObservation, SessionRecord } from "@ralph-mem/projections"
import { describe, expect, it } from "vitest"
import { classifyPrompt, summarizeSession } from "../src/summarize.ts"

const ROOT = "/home/me/work/app"
const HOME = "/home/me"

const run = (type: string, command: string, content: string): RecordedObservation => ({
  type,
  toolName: "Bash",
  inputSummary: command,
  content,
  errorMessage: type === "error" ? content.split("\n")[0]! : null,
  files: []
})
const edit = (file: string): RecordedObservation => ({
  type: "tool_use",
  toolName: "Edit",
  inputSummary: file,
  content: "- a\n+ b",
  errorMessage: null,
  files: [file]
})
const read = (file: string): RecordedObservation => ({
  type: "tool_use",
  toolName: "Read",
  inputSummary: file,
  content: `read ${file}`,
  errorMessage: null,
  files: [file]
})

const session = (fields: Partial<SessionRecord>): SessionRecord => ({
  sessionId: "s",
  project: ROOT,
  prompts: [],
  observations: [],
  lastReply: null,
  ...fields
})

describe("summaries v2", () => {
  it("says what was asked, which errors were fixed, what passed, the files changed and the outcome", () => {
    const summary = summarizeSession(
      session({
        prompts: [
          "/ralph-mem:mem-status",
          "The login test fails with TokenExpiredError; fix it.",
          "also run the linter"
        ],
        observations: [
          run("error", "npm test -- auth", "Exit code 1\nFAIL src/auth.test.ts\nTokenExpiredError: jwt expired"),
          read(`${ROOT}/src/auth.ts`),
          edit(`${ROOT}/src/auth.ts`),
          run("error", "npm run lint", "Exit code 1\nsrc/auth.ts:3 error no-unused-vars"),
          run("success", "npm test -- auth", "PASS src/auth.test.ts")
        ],
        lastReply: `Fixed: the token in ${ROOT}/src/auth.ts now lives an hour.\n\nThe lint error is still there.`
      }),
      { home: HOME }
    )
    expect(summary).toEqual({
      memoryOnly: false,
      summary: "Asked: The login test fails with TokenExpiredError; fix it. " +
        "Outcome: Fixed: the token in src/auth.ts now lives an hour. The lint error is still there. " +
        "Errors (2 commands, 1 fixed): `npm run lint` failed (src/auth.ts:3 error no-unused-vars), still failing; " +
        "`npm test -- auth` failed (TokenExpiredError: jwt expired), fixed later. " +
        "Passed: `npm test -- auth`. Changed: src/auth.ts."
    })
  })

  it("never echoes a memory command as the goal, and marks sessions that ran nothing else", () => {
    const onlyMemory = session({
      prompts: [
        "/ralph-mem:mem-status",
        "<command-name>/ralph-mem:mem-forget</command-name><command-args>abc</command-args>"
      ],
      observations: [run("tool_use", `node "${ROOT}/dist/ralph-mem.mjs" status`, "12 events")],
      lastReply: "Memory holds 12 events."
    })
    expect(summarizeSession(onlyMemory)).toEqual({ memoryOnly: true, summary: "Only ran ralph-mem's memory commands." })
    // Work after a memory command: the work is what was asked.
    const worked = summarizeSession(
      session({
        prompts: ["/ralph-mem:mem-search auth", "add a retry to fetchUser"],
        observations: [edit(`${ROOT}/src/user.ts`)]
      })
    )
    expect(worked?.memoryOnly).toBe(false)
    expect(worked?.summary).toBe("Asked: add a retry to fetchUser. Changed: src/user.ts.")
  })

  it("takes a Ralph loop's goal as what was asked, without the loop's flags", () => {
    expect(classifyPrompt("/ralph-mem:ralph start make the parser tests pass --max-iterations 5 --criteria test_pass"))
      .toEqual({ kind: "goal", text: "make the parser tests pass" })
    expect(classifyPrompt("/ralph-mem:ralph status")).toEqual({ kind: "memory" })
    expect(classifyPrompt("<command-name>/clear</command-name>")).toEqual({ kind: "command", text: "/clear" })
    expect(classifyPrompt("<local-command-stdout>Compacted</local-command-stdout>")).toEqual({
      kind: "command",
      text: ""
    })
    expect(classifyPrompt("로그인 테스트가 실패해요. 고쳐 주세요")).toEqual({
      kind: "real",
      text: "로그인 테스트가 실패해요. 고쳐 주세요"
    })
    // Talking about ralph-mem is work; only a command file's expansion (it runs the bundle) is a memory command.
    expect(classifyPrompt("why does ralph-mem search miss Korean words?").kind).toBe("real")
    expect(
      classifyPrompt("!`node \"/plugins/ralph-mem/dist/ralph-mem.mjs\" status`\n\nSummarise the status above").kind
    ).toBe("memory")
  })

  it("writes paths outside the project with ~ for the home folder, and never the home folder itself", () => {
    const summary = summarizeSession(
      session({
        prompts: [`compare ${HOME}/notes/plan.md with the README`],
        observations: [edit(`${HOME}/.config/app.json`), edit(`${ROOT}/README.md`)]
      }),
      { home: HOME }
    )
    expect(summary?.summary).toBe(
      "Asked: compare ~/notes/plan.md with the README. Changed: ~/.config/app.json, README.md."
    )
    expect(summary?.summary).not.toContain(HOME)
  })

  it("has nothing to say about an empty session", () => {
    expect(summarizeSession(session({}))).toBeUndefined()
  })
})
