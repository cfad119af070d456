import { describe, expect, it } from "vitest"
import { runCli } from "../../../tests/support/cli.ts"
import { payload, runHookProcess } from "../../../tests/support/hook.ts"
import { project } from "../../../tests/support/memory-project.ts"
import { joinFreeTextValues, splitArguments } from "../src/slash.ts"

const env = (root: string) => ({ RALPH_MEM_DB: "", HOME: root, CLAUDE_CODE_SESSION_ID: "s1" })

/**
 * Types `/ralph-mem:<command> <text>` in session s1 as Claude Code runs it: the UserPromptSubmit hook records
 * the prompt, then the command's shell step runs `ralph-mem slash <command>`.
 */
const typeSlash = (root: string, command: string, text: string) => {
  const prompt = payload("UserPromptSubmit", "s1", root, { prompt: `/ralph-mem:${command} ${text}` })
  expect(runHookProcess("UserPromptSubmit", prompt, { cwd: root }).code).toBe(0)
  return runCli(["slash", command], { cwd: root, env: env(root) })
}

/** The payloads of the project's events of one type, oldest first. */
const recorded = (root: string, type: string): Array<Record<string, unknown>> =>
  JSON.parse(runCli(["audit", "--type", type, "--reverse", "--json"], { cwd: root, env: env(root) }).stdout)
    .map((event: { payload: Record<string, unknown> }) => event.payload)

describe("splitArguments (slash-command text)", () => {
  it("leaves a shell's special characters alone", () => {
    expect(splitArguments("Don't use yarn here (pnpm only)")).toEqual([
      "Don't",
      "use",
      "yarn",
      "here",
      "(pnpm",
      "only)"
    ])
    expect(splitArguments("$HOME `id` $(whoami) a\\b; x && y | z > f")).toEqual([
      "$HOME",
      "`id`",
      "$(whoami)",
      "a\\b;",
      "x",
      "&&",
      "y",
      "|",
      "z",
      ">",
      "f"
    ])
  })

  it("keeps newlines inside their argument, so joined with spaces the text comes back as typed", () => {
    const text = "first line\nsecond line\n\nthird ```js``` 5'10\""
    expect(splitArguments(text).join(" ")).toBe(text)
  })

  it("groups with a quote that opens an argument or follows = and closes one", () => {
    expect(splitArguments(`"Use FTS5" --why 'substring search' --criteria custom="npm test"`)).toEqual([
      "Use FTS5",
      "--why",
      "substring search",
      "--criteria",
      "custom=npm test"
    ])
    expect(splitArguments(`say "hi there" now`)).toEqual(["say", "hi there", "now"])
    expect(splitArguments(`""`)).toEqual([""])
  })

  it("takes any other quote as text: unclosed, inside a word, or closed inside a word", () => {
    expect(splitArguments(`"unclosed quote here`)).toEqual([`"unclosed`, "quote", "here"])
    expect(splitArguments(`it's Bob's`)).toEqual(["it's", "Bob's"])
    expect(splitArguments(`'a'b c`)).toEqual(["'a'b", "c"])
  })

  it("splits on runs of spaces and tabs only", () => {
    expect(splitArguments("  a \t b  ")).toEqual(["a", "b"])
    expect(splitArguments("")).toEqual([])
  })

  it("leaves the whitespace around the whole text out of every argument", () => {
    expect(splitArguments(" list\n")).toEqual(["list"])
    expect(splitArguments("set stack Node 24\r\n")).toEqual(["set", "stack", "Node", "24"])
    expect(splitArguments(`\n"a b"\r\n`)).toEqual(["a b"])
  })
})

describe("joinFreeTextValues (a free-text flag's value typed unquoted)", () => {
  it("joins the words after a free-text flag up to the next long flag", () => {
    expect(joinFreeTextValues(["Use", "Postgres", "--why", "we", "need", "it", "--impact", "high"])).toEqual([
      "Use",
      "Postgres",
      "--why",
      "we need it",
      "--impact",
      "high"
    ])
    expect(joinFreeTextValues(["--why=we", "need", "it", "--json"])).toEqual(["--why=we need it", "--json"])
    expect(joinFreeTextValues(["--agent", "claude", "-p", "--criteria", "custom=npm", "test", "--", "-x"])).toEqual([
      "--agent",
      "claude -p",
      "--criteria",
      "custom=npm test -- -x"
    ])
  })

  it("leaves one-word flags and a flag with no value alone", () => {
    const words = ["use", "pnpm", "--type", "convention", "now", "--why", "--impact", "low"]
    expect(joinFreeTextValues(words)).toEqual(words)
  })
})

describe("ralph-mem slash (real hook and CLI processes)", () => {
  it("takes every word up to the next flag as a free-text flag's value, and quoted text as before", () => {
    const root = project()
    const typed =
      "Use Postgres --why we need concurrent writers --alternative MySQL: one writer at a time --impact high"
    expect(typeSlash(root, "decide", typed).code).toBe(0)
    expect(typeSlash(root, "decide", `"Use FTS5" --why "one index" --impact low`).code).toBe(0)
    expect(recorded(root, "DecisionRecorded")).toMatchObject([
      {
        decision: "Use Postgres",
        rationale: "we need concurrent writers",
        alternatives: [{ option: "MySQL", rejectedBecause: "one writer at a time" }],
        impact: "high"
      },
      { decision: "Use FTS5", rationale: "one index", impact: "low" }
    ])
    expect(typeSlash(root, "ralph", "start fix the login --criteria custom=npm test --max-iterations 2").code).toBe(0)
    expect(recorded(root, "LoopStarted")).toMatchObject([
      {
        goal: "fix the login",
        config: { maxIterations: 2, successCriteria: [{ kind: "custom", command: ["npm", "test"] }] }
      }
    ])
  })

  it("runs a command whose prompt ends with a newline or CRLF, the last argument without it", () => {
    const root = project()
    expect(typeSlash(root, "belief", "set stack TypeScript\r\n").code).toBe(0)
    const listed = typeSlash(root, "belief", "list\n")
    expect(listed.stderr).toBe("")
    expect(listed.stdout).toContain("TypeScript")
    expect(recorded(root, "BeliefSet")).toMatchObject([{ key: "stack", value: "TypeScript" }])
  })
})

describe("ralph-mem from a shell", () => {
  it("refuses words after a free-text flag's value, naming the quoting, and records nothing", () => {
    const root = project()
    const split = runCli(["decide", "Use", "SQLite", "--why", "because", "it", "is", "simple"], {
      cwd: root,
      env: env(root)
    })
    expect(split.code).toBe(1)
    expect(split.stderr).toContain(`the words "it is simple" follow the value of --why`)
    expect(split.stderr).toContain(`--why "because it is simple"`)
    expect(recorded(root, "DecisionRecorded")).toEqual([])
    const quoted = runCli(["decide", "Use", "SQLite", "--why", "because it is simple", "--impact", "low"], {
      cwd: root,
      env: env(root)
    })
    expect(quoted.code).toBe(0)
    expect(recorded(root, "DecisionRecorded")).toMatchObject([{
      decision: "Use SQLite",
      rationale: "because it is simple"
    }])
  })
})
