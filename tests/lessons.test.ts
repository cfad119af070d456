/**
 * Errors that know they were fixed, told once: real hook processes on a real database. A failure resolved by a
 * later passing run is a lesson, not an error; nothing is told twice in a session; memory-only sessions are not
 * recent sessions; a failure seen and fixed before is recalled the moment it comes back.
 */
import { compactLog, newSqliteDatabase } from "@ralph-mem/events"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { maintenanceSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const query = <T>(root: string, sql: string, ...params: Array<string>): Array<T> => {
  const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
  try {
    return db.prepare(sql).all(...params) as Array<T>
  } finally {
    db.close()
  }
}

const hook = (root: string, event: string, session: string, fields: Record<string, unknown> = {}) => {
  const run = runHookProcess(event, payload(event, session, root, fields), { cwd: root })
  expect(run.code).toBe(0)
  expect(run.stderr).toBe("")
  return run
}

/** Every event packed into compressed blocks, as maintenance packs settled sessions. */
const packed = async (root: string) => {
  await maintenanceSettled(root)
  const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"))
  try {
    compactLog(db, { idleMs: 0 })
    expect(db.prepare("SELECT count(*) FROM event_rows WHERE block_id IS NULL").pluck().get()).toBe(0)
  } finally {
    db.close()
  }
}

/** The context a hook answered with, or undefined when it said nothing. */
const contextOf = (stdout: string): string | undefined =>
  stdout.trim() === "" ? undefined : (JSON.parse(stdout).hookSpecificOutput.additionalContext as string)

const injections = (root: string, session: string) =>
  query<{ hook: string; text: string; sources: string }>(
    root,
    `SELECT payload ->> '$.hookEvent' AS hook, payload ->> '$.text' AS text, payload ->> '$.sources' AS sources
     FROM events WHERE stream_id = ? AND type = 'ContextInjected' ORDER BY position`,
    `session:${session}`
  ).map((r) => ({ ...r, sources: JSON.parse(r.sources) as Array<string> }))

const FAILURE =
  "Exit code 1\n FAIL  src/auth.test.ts > login > refreshes the token\nTokenExpiredError: jwt expired at refreshSession"

const failingTest = (root: string, session: string, id: string) =>
  hook(root, "PostToolUseFailure", session, {
    tool_name: "Bash",
    tool_input: { command: "npm test -- auth" },
    tool_use_id: id,
    error: FAILURE,
    is_interrupt: false
  })

/** A session that fails a test, edits the file, records a note, and sees the test pass. */
const fixingSession = (root: string, session = "s1") => {
  hook(root, "SessionStart", session, { source: "startup" })
  hook(root, "UserPromptSubmit", session, { prompt: "The login test fails with TokenExpiredError; fix it" })
  failingTest(root, session, "toolu_1")
  hook(root, "PostToolUse", session, {
    tool_name: "Edit",
    tool_input: { file_path: `${root}/src/auth.ts`, old_string: "expiresIn: 0", new_string: "expiresIn: 3600" },
    tool_response: { filePath: `${root}/src/auth.ts` },
    tool_use_id: "toolu_2"
  })
  hook(root, "PostToolUse", session, {
    tool_name: "Bash",
    tool_input: { command: "npm test -- auth 2>&1 | tail -20" },
    tool_response: { stdout: " ✓ src/auth.test.ts (4 tests)\n Test Files  1 passed (1)", stderr: "" },
    tool_use_id: "toolu_3"
  })
  hook(root, "Stop", session, {
    stop_hook_active: false,
    last_assistant_message: "Fixed: the token lives an hour now."
  })
  hook(root, "SessionEnd", session, { reason: "prompt_input_exit" })
}

describe("an error fixed in an earlier session", () => {
  it("is told at the next SessionStart as a lesson with what fixed it, never as a current error", () => {
    const root = project()
    fixingSession(root)
    const text = contextOf(hook(root, "SessionStart", "s2", { source: "startup" }).stdout)!
    expect(text).toContain("## Lessons: errors fixed since")
    expect(text).toMatch(
      new RegExp(
        String.raw`- ${"`"}npm test -- auth${"`"} failed @\d+ \(\S+ \S+\) ` +
          String.raw`with FAIL src\/auth\.test\.ts > login > refreshes the token: TokenExpiredError: `
      )
    )
    // What failed in the error's own words, and what fixed it: the line the edit changed.
    expect(text).toMatch(
      /: jwt expired at refreshSession; fixed: edited src\/auth\.ts \(`expiresIn: 3600`\) @\d+; passed \S+ \S+ @\d+\n/
    )
    expect(text).not.toContain("## Open errors")
    expect(text).not.toContain("## Recent errors")
    // Told once, as a lesson: the session summaries after it only say what each session did.
    const told = text.slice(0, text.indexOf("## Recent sessions"))
    expect(told.match(/refreshes the token/g)).toHaveLength(1)
  })

  it("fixed by a Ralph loop (its check passing at Stop) is a lesson at the next SessionStart, not an error", () => {
    const root = tempFolder()
    const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, stdio: "ignore" })
    git("init", "-q")
    git("config", "user.email", "dev@example.com")
    git("config", "user.name", "dev")
    const check = `if (!require("fs").existsSync("fixed")) {\n`
      + `  console.log(" FAIL  src/thing.test.ts > the thing is fixed"); process.exit(1)\n}`
    writeFileSync(join(root, "check.js"), check)
    git("add", "-A")
    git("commit", "-qm", "init")
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "PostToolUseFailure", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test" },
      tool_use_id: "toolu_1",
      error: "Exit code 1\n FAIL  src/thing.test.ts > the thing is fixed"
    })
    const started = runCli([
      "ralph",
      "start",
      "fix the thing",
      "--session",
      "s1",
      "--criteria",
      "test_pass=node check.js",
      "--json"
    ], {
      cwd: root,
      env: { RALPH_MEM_DB: "", RALPH_MEM_NODE: "" }
    })
    expect(started.code, started.stderr).toBe(0)
    hook(root, "Stop", "s1", { stop_hook_active: false, last_assistant_message: "Trying." })
    writeFileSync(join(root, "fixed"), "yes")
    hook(root, "Stop", "s1", { stop_hook_active: true, last_assistant_message: "Fixed." })
    expect(query(root, "SELECT status FROM loop_runs")).toEqual([{ status: "success" }])
    hook(root, "SessionEnd", "s1", { reason: "exit" })
    const text = contextOf(hook(root, "SessionStart", "s2", { source: "startup" }).stdout)!
    // One lesson for the passing check, which resolved both the npm test run and the loop's own failed check.
    expect(text).toMatch(
      new RegExp(
        /## Lessons: errors fixed since\n- `node check\.js` failed @\d+ .* with FAIL src\/thing\.test\.ts > /.source
          + /the thing is fixed; .*passed .* @\d+\n/.source
      )
    )
    expect(text).not.toContain("## Open errors")
    expect(text).not.toContain("## Recent errors")
  })

  it("is an open error, first among what happened, while no run has passed", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    failingTest(root, "s1", "toolu_1")
    hook(root, "PostToolUse", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test -- other" },
      tool_response: { stdout: "ok", stderr: "" },
      tool_use_id: "toolu_2"
    })
    hook(root, "SessionEnd", "s1", { reason: "exit" })
    const text = contextOf(hook(root, "SessionStart", "s2", { source: "startup" }).stdout)!
    expect(text).toMatch(
      new RegExp(
        String.raw`## Open errors\n- \S+ \S+ ${"`"}npm test -- auth${"`"} failed: ` +
          String.raw`FAIL src\/auth\.test\.ts > login > refreshes the token: TokenExpiredError: `
      )
    )
    expect(text.indexOf("## Open errors")).toBeLessThan(text.indexOf("## Recent sessions"))
    expect(text).not.toContain("## Lessons")
  })
})

describe("ids in the injected text", () => {
  it("name each line, say how to open them, and `ralph-mem show` opens every one", () => {
    const root = project()
    fixingSession(root)
    const text = contextOf(hook(root, "SessionStart", "s2", { source: "startup" }).stdout)!
    expect(text).toContain("mcp__plugin_ralph-mem_memory__get")
    expect(text).toContain("`ralph-mem show <id>`")
    const ids = [...new Set(text.match(/@\d+/g))]
    expect(ids.length).toBeGreaterThanOrEqual(3)
    for (const line of text.split("\n").filter((l) => l.startsWith("- "))) expect(line).toMatch(/@\d+/)
    const shown = runCli(["show", ...ids, "--json", "--db", join(root, ".ralph-mem", "memory.db")])
    expect(shown.code, shown.stderr).toBe(0)
    const { details, unknown } = JSON.parse(shown.stdout) as { details: Array<{ ref: string }>; unknown: Array<string> }
    expect(unknown).toEqual([])
    expect(details.map((d) => d.ref).sort()).toEqual([...ids].sort())
  })
})

describe("nothing is told twice in a session", () => {
  it("a prompt is not retold the SessionStart, a memory command gets no related memory, compaction tells again", () => {
    const root = project()
    fixingSession(root)
    const atStart = contextOf(hook(root, "SessionStart", "s2", { source: "startup" }).stdout)!
    expect(atStart).toContain("refreshes the token")
    const prompted = contextOf(
      hook(root, "UserPromptSubmit", "s2", { prompt: "Why did the login test fail with TokenExpiredError?" }).stdout
    )
    const [start, prompt] = injections(root, "s2")
    if (prompted !== undefined) {
      expect(prompt!.sources.filter((s) => start!.sources.includes(s))).toEqual([])
      expect(prompted).not.toContain("refreshes the token")
    }
    expect(hook(root, "UserPromptSubmit", "s2", { prompt: "/ralph-mem:mem-search TokenExpiredError" }).stdout).toBe("")
    const again = contextOf(hook(root, "SessionStart", "s2", { source: "compact" }).stdout)!
    expect(again).toContain("refreshes the token")
    // Resumed, the session still holds what it was told: nothing new to say.
    expect(hook(root, "SessionStart", "s2", { source: "resume" }).stdout).toBe("")
  })
})

describe("recent sessions", () => {
  it("leave out sessions that only ran memory commands", () => {
    const root = project()
    fixingSession(root)
    hook(root, "SessionStart", "memory-only", { source: "startup" })
    hook(root, "UserPromptSubmit", "memory-only", { prompt: "/ralph-mem:mem-status" })
    hook(root, "PostToolUse", "memory-only", {
      tool_name: "Bash",
      tool_input: { command: "npx ralph-mem status --json" },
      tool_response: { stdout: "{}", stderr: "" },
      tool_use_id: "toolu_9"
    })
    hook(root, "SessionEnd", "memory-only", { reason: "exit" })
    expect(query(root, "SELECT summary FROM sessions WHERE session_id = 'memory-only'")).toEqual([{
      summary: expect.any(String)
    }])
    const text = contextOf(hook(root, "SessionStart", "s3", { source: "startup" }).stdout)!
    const recent = text.slice(text.indexOf("## Recent sessions")).split("\n\n")[0]!
    expect(recent).toContain("The login test fails")
    expect(recent).not.toContain("mem-status")
  })
})

describe("recall at the moment of failure", () => {
  it("answers a failure seen and fixed before with when, what fixed it and ids, once a session, recorded", () => {
    const root = project()
    fixingSession(root)
    // A session that was told nothing yet (its SessionStart said other things, or ran before the fix).
    const recalled = contextOf(failingTest(root, "s2", "toolu_21").stdout)!
    expect(recalled).toMatch(/^ralph-mem: this failure was seen before\. \S+ \S+ `npm test -- auth` failed @\d+: /)
    expect(recalled).toMatch(/It passed \S+ \S+ @\d+ after: edited src\/auth\.ts \(`expiresIn: 3600`\) @\d+/)
    expect(recalled.length).toBeLessThanOrEqual(600)
    const output = JSON.parse(failingTest(root, "s2", "toolu_21b").stdout || "{}") as Record<string, unknown>
    expect(output).toEqual({})
    const recorded = injections(root, "s2").filter((i) => i.hook === "PostToolUseFailure")
    expect(recorded.map((i) => i.text)).toEqual([recalled])
  })

  it("points to the lesson the session was told at its start instead of telling it again", () => {
    const root = project()
    fixingSession(root)
    const atStart = contextOf(hook(root, "SessionStart", "s2", { source: "startup" }).stdout)!
    const lesson = /- `npm test -- auth` failed (@\d+) /.exec(atStart)![1]!
    const recalled = contextOf(failingTest(root, "s2", "toolu_21").stdout)!
    expect(
      recalled.startsWith(
        `ralph-mem: this failure was seen before and fixed: the lesson ${lesson} this session was told (`
      )
    ).toBe(true)
    expect(recalled).toMatch(/ \(edited src\/auth\.ts \(`expiresIn: 3600`\) @\d+\); it passed .* @\d+\.$/)
    expect(recalled).not.toContain("refreshes the token")
  })

  it("says nothing for a first occurrence, a different failure, or a failure never fixed", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    expect(failingTest(root, "s1", "toolu_1").stdout).toBe("")
    expect(failingTest(root, "s1", "toolu_2").stdout).toBe("") // seen before, never passed
    fixingSession(root, "s2")
    const other = hook(root, "PostToolUseFailure", "s3", {
      tool_name: "Bash",
      tool_input: { command: "npm test -- parser" },
      tool_use_id: "toolu_3",
      error: "Exit code 1\n FAIL  src/parser.test.ts > parses dates\nSyntaxError: unexpected end of input",
      is_interrupt: false
    })
    expect(other.stdout).toBe("")
  })

  it("answers a failure whose events compaction packed, with what fixed it, from what its row keeps", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    fixingSession(root)
    await packed(root)
    const recalled = contextOf(failingTest(root, "s2", "toolu_21").stdout)!
    expect(recalled).toMatch(
      /^ralph-mem: this failure was seen before\. \S+ \S+ `npm test -- auth` failed @\d+: FAIL src\/auth\.test\.ts > /
    )
    expect(recalled).toMatch(/It passed \S+ \S+ @\d+ after: edited src\/auth\.ts \(`expiresIn: 3600`\) @\d+/)
  })

  it("recognises and recalls a packed failure without unpacking it: with nothing between it and its pass, no zlib", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    failingTest(root, "s1", "toolu_1")
    // Run again, it passed (a flaky test): nothing was recorded in between.
    hook(root, "PostToolUse", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test -- auth" },
      tool_response: { stdout: " ✓ src/auth.test.ts (4 tests)", stderr: "" },
      tool_use_id: "toolu_2"
    })
    hook(root, "SessionEnd", "s1", { reason: "prompt_input_exit" })
    await packed(root)
    // Written by the hook's own process only: any process it starts inherits NODE_OPTIONS, and the probe.
    const probe = join(root, "probe.cjs")
    const loaded = join(root, "modules.json")
    writeFileSync(
      probe,
      `if (process.argv.at(-1) === "PostToolUseFailure") process.on("exit", () =>
        require("node:fs").writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)))`
    )
    const run = runHookProcess(
      "PostToolUseFailure",
      payload("PostToolUseFailure", "s2", root, {
        tool_name: "Bash",
        tool_input: { command: "npm test -- auth" },
        tool_use_id: "toolu_21",
        error: FAILURE
      }),
      { cwd: root, env: { NODE_OPTIONS: `--require ${probe}` } }
    )
    expect(run.stderr).toBe("")
    const recalled = contextOf(run.stdout)!
    expect(recalled).toMatch(/^ralph-mem: this failure was seen before\. .* failed @\d+: FAIL src\/auth\.test\.ts > /)
    expect(recalled).toMatch(/ It passed \S+ \S+ @\d+\. Open any @id/)
    expect(JSON.parse(readFileSync(loaded, "utf8"))).not.toContain("NativeModule zlib")
  })

  it("recalls a test run that exits 0 yet fails (piped into tail), which is recorded as an error", () => {
    const root = project()
    fixingSession(root)
    const piped = hook(root, "PostToolUse", "s2", {
      tool_name: "Bash",
      tool_input: { command: "npm test -- auth | tail -5" },
      tool_response: { stdout: FAILURE.replace("Exit code 1\n", ""), stderr: "" },
      tool_use_id: "toolu_31"
    })
    expect(contextOf(piped.stdout)).toContain("this failure was seen before")
    expect(JSON.parse(piped.stdout).hookSpecificOutput.hookEventName).toBe("PostToolUse")
    expect(query(root, "SELECT type, error_message AS errorMessage FROM observations WHERE session_id = 's2'")).toEqual(
      [
        {
          type: "error",
          errorMessage:
            "FAIL src/auth.test.ts > login > refreshes the token: TokenExpiredError: jwt expired at refreshSession"
        }
      ]
    )
  })
})
