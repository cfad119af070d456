/**
 * Summaries v2 through the real hooks and commands: memory-only sessions are marked, and sessions an
 * older summariser summarised get a new summary event from `maintain` and `replay` (history is kept).
 */
import { newSqliteDatabase, type RalphMemEvent } from "@ralph-mem/events"
import { openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const dbOf = (root: string) => join(root, ".ralph-mem", "memory.db")

const query = (root: string, sql: string) => {
  const db = newSqliteDatabase(dbOf(root), { readonly: true })
  try {
    return db.prepare(sql).all()
  } finally {
    db.close()
  }
}

const hook = (root: string, event: string, session: string, fields: Record<string, unknown>) => {
  const run = runHookProcess(event, payload(event, session, root, fields), { cwd: root })
  expect(run.code).toBe(0)
  expect(run.stderr).toBe("")
  return run
}

/** A session as the first summariser left it: its summary echoes the first prompt. */
const summarisedByV1 = (root: string) => {
  const memory = Effect.runSync(openMemory({ path: dbOf(root) }))
  const sessionId = "old"
  const events: Array<RalphMemEvent> = [
    { _tag: "SessionStarted", sessionId, projectPath: root, source: "startup" },
    { _tag: "PromptSubmitted", sessionId, prompt: "/ralph-mem:mem-status" },
    { _tag: "PromptSubmitted", sessionId, prompt: "make the parser accept trailing commas" },
    {
      _tag: "ObservationRecorded",
      sessionId,
      kind: "error",
      toolName: "Bash",
      inputSummary: "cargo test",
      content: "Exit code 1\nthread 'trailing_comma' panicked",
      errorMessage: "Exit code 1",
      files: []
    },
    {
      _tag: "ObservationRecorded",
      sessionId,
      kind: "tool_use",
      toolName: "Edit",
      inputSummary: `${root}/src/parser.rs`,
      content: "- a\n+ b",
      files: [`${root}/src/parser.rs`]
    },
    {
      _tag: "ObservationRecorded",
      sessionId,
      kind: "success",
      toolName: "Bash",
      inputSummary: "cargo test",
      content: "test result: ok",
      files: []
    },
    { _tag: "AssistantReplied", sessionId, message: "Trailing commas parse now." },
    {
      _tag: "SessionSummarized",
      sessionId,
      summary: "Goal: /ralph-mem:mem-status. Errors (1): cargo test",
      summarizer: "local-v1"
    },
    { _tag: "SessionEnded", sessionId, reason: "exit" }
  ]
  Effect.runSync(memory.log.append(`session:${sessionId}`, events, { expectedVersion: "any", writer: "test" }))
  memory.db.close()
}

const V2 = "Asked: make the parser accept trailing commas. Outcome: Trailing commas parse now. " +
  "Errors (1 command, 1 fixed): `cargo test` failed (thread 'trailing_comma' panicked), fixed later."
  + " Passed: `cargo test`. Changed: src/parser.rs."

describe("summaries v2", () => {
  it("maintain summarises a session an older summariser did, as a new event, once", () => {
    const root = project()
    summarisedByV1(root)
    const first = runCli(["maintain", "--json"], { cwd: root })
    expect(first.code).toBe(0)
    expect(JSON.parse(first.stdout).summaries).toEqual({ summarized: 1, summarizer: "local-v2" })
    // The old summary stays in the log; the read model shows the new one.
    expect(query(
      root,
      "SELECT json_extract(payload, '$.summarizer') AS s FROM events"
        + " WHERE type = 'SessionSummarized' ORDER BY position"
    ))
      .toEqual([{ s: "local-v1" }, { s: "local-v2" }])
    expect(query(root, "SELECT summary, summarizer, memory_only FROM sessions")).toEqual([{
      summary: V2,
      summarizer: "local-v2",
      memory_only: 0
    }])
    expect(JSON.parse(runCli(["maintain", "--json"], { cwd: root }).stdout).summaries.summarized).toBe(0)
  })

  it("replay does the same, and its rebuilt read model keeps the new summary", () => {
    const root = project()
    summarisedByV1(root)
    const replayed = runCli(["replay", "--json"], { cwd: root })
    expect(replayed.code).toBe(0)
    expect(JSON.parse(replayed.stdout).summaries.summarized).toBe(1)
    expect(JSON.parse(runCli(["replay", "--json"], { cwd: root }).stdout).summaries.summarized).toBe(0)
    expect(query(root, "SELECT summary FROM sessions")).toEqual([{ summary: V2 }])
  })

  it("marks a session that only ran memory commands, and leaves its commands out of the goal", () => {
    const root = project()
    hook(root, "SessionStart", "m", { source: "startup" })
    hook(root, "UserPromptSubmit", "m", { prompt: "/ralph-mem:mem-status" })
    hook(root, "PostToolUse", "m", {
      tool_name: "Bash",
      tool_input: { command: `node "${root}/plugin/dist/ralph-mem.mjs" status` },
      tool_response: { stdout: "12 events", stderr: "", interrupted: false },
      tool_use_id: "t1"
    })
    hook(root, "Stop", "m", { stop_hook_active: false, last_assistant_message: "Memory holds 12 events." })
    hook(root, "SessionEnd", "m", { reason: "exit" })
    expect(query(root, "SELECT summary, memory_only FROM sessions")).toEqual([{
      summary: "Only ran ralph-mem's memory commands.",
      memory_only: 1
    }])
  })
})
