/**
 * The hook entry as Claude Code runs it: real processes, real payloads, a real database.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, HOOK_NODE_OPTIONS, runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { maintenanceSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const dbOf = (root: string) => join(root, ".ralph-mem", "memory.db")

const query = (root: string, sql: string, ...params: Array<string>) => {
  const db = newSqliteDatabase(dbOf(root), { readonly: true })
  try {
    return db.prepare(sql).all(...params)
  } finally {
    db.close()
  }
}

const hook = (
  root: string,
  event: string,
  session: string,
  fields: Record<string, unknown> = {},
  env: Record<string, string> = {}
) => {
  const run = runHookProcess(event, payload(event, session, root, fields), { cwd: root, env })
  expect(run.code).toBe(0)
  expect(run.stderr).toBe("")
  return run
}

const contextOf = (stdout: string) => JSON.parse(stdout).hookSpecificOutput.additionalContext as string

/** A first session: a failing test run, a fix, a passing run. */
const firstSession = (root: string) => {
  hook(root, "SessionStart", "s1", { source: "startup" })
  hook(root, "UserPromptSubmit", "s1", {
    prompt: "The login test fails with TokenExpiredError; fix it",
    prompt_id: "p1"
  })
  hook(root, "PostToolUseFailure", "s1", {
    tool_name: "Bash",
    tool_input: { command: "npm test -- auth" },
    tool_use_id: "toolu_1",
    error: "Exit code 1\nFAIL src/auth.test.ts\nTokenExpiredError: jwt expired at refreshSession",
    is_interrupt: false
  })
  hook(root, "PostToolUse", "s1", {
    tool_name: "Edit",
    tool_input: { file_path: `${root}/src/auth.ts`, old_string: "expiresIn: 0", new_string: "expiresIn: 3600" },
    tool_response: { filePath: `${root}/src/auth.ts` },
    tool_use_id: "toolu_2"
  })
  hook(root, "PostToolUse", "s1", {
    tool_name: "Bash",
    tool_input: { command: "npm test -- auth" },
    tool_response: { stdout: "PASS src/auth.test.ts (4 tests)", stderr: "", interrupted: false },
    tool_use_id: "toolu_3"
  })
  hook(root, "PreCompact", "s1", { trigger: "auto", custom_instructions: null })
  hook(root, "Stop", "s1", { stop_hook_active: false, last_assistant_message: "Fixed: the token now lives an hour." })
  hook(root, "SessionEnd", "s1", { reason: "prompt_input_exit" })
}

describe("hooks record a session", () => {
  it("appends each hook's events to the session's stream, in order", () => {
    const root = project()
    firstSession(root)
    const events = query(
      root,
      `SELECT type, json_extract(metadata, '$.writer') AS writer
       FROM events WHERE stream_id = 'session:s1' ORDER BY position`
    )
    expect(events).toEqual([
      { type: "SessionStarted", writer: "hook:SessionStart" },
      { type: "PromptSubmitted", writer: "hook:UserPromptSubmit" },
      { type: "ObservationRecorded", writer: "hook:PostToolUseFailure" },
      { type: "ObservationRecorded", writer: "hook:PostToolUse" },
      { type: "ObservationRecorded", writer: "hook:PostToolUse" },
      { type: "SessionCompacted", writer: "hook:PreCompact" },
      { type: "AssistantReplied", writer: "hook:Stop" },
      { type: "SessionSummarized", writer: "hook:SessionEnd" },
      { type: "SessionEnded", writer: "hook:SessionEnd" }
    ])
  })

  it("classifies tool calls and keeps their summary, files and error", () => {
    const root = project()
    firstSession(root)
    expect(query(root, "SELECT type, tool_name, input_summary, files, error_message FROM observations ORDER BY id"))
      .toEqual([
        {
          type: "error",
          tool_name: "Bash",
          input_summary: "npm test -- auth",
          files: "[]",
          error_message: "Exit code 1 FAIL src/auth.test.ts TokenExpiredError: jwt expired at refreshSession"
        },
        {
          type: "tool_use",
          tool_name: "Edit",
          input_summary: `${root}/src/auth.ts`,
          files: JSON.stringify([`${root}/src/auth.ts`]),
          error_message: null
        },
        { type: "success", tool_name: "Bash", input_summary: "npm test -- auth", files: "[]", error_message: null }
      ])
  })

  it("closes the session with a local, deterministic summary", () => {
    const root = project()
    firstSession(root)
    const [session] = query(
      root,
      "SELECT source, ended_at IS NOT NULL AS ended, end_reason, compactions, prompts, summary FROM sessions"
    ) as Array<Record<string, unknown>>
    expect(session).toMatchObject({
      source: "startup",
      ended: 1,
      end_reason: "prompt_input_exit",
      compactions: 1,
      prompts: 1
    })
    expect(session!["summary"]).toBe(
      "Asked: The login test fails with TokenExpiredError; fix it. Outcome: Fixed: the token now lives an hour. " +
        "Errors (1 command, 1 fixed): " +
        "`npm test -- auth` failed (TokenExpiredError: jwt expired at refreshSession), fixed later. " +
        "Passed: `npm test -- auth`. Changed: src/auth.ts."
    )
  })

  it("stores a retried tool call once", () => {
    const root = project()
    const fields = {
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_response: { stdout: "a b" },
      tool_use_id: "toolu_same"
    }
    hook(root, "PostToolUse", "s1", fields)
    hook(root, "PostToolUse", "s1", fields)
    expect(query(root, "SELECT count(*) AS n FROM observations")).toEqual([{ n: 1 }])
  })

  it("leaves the WAL to the next hook; past 4 MiB, with a reader in it, truncates it once the reader is gone", () => {
    const root = project()
    const walSize = () => statSync(`${dbOf(root)}-wal`, { throwIfNoEntry: false })?.size ?? 0
    let calls = 0
    const call = () => {
      const i = calls++
      // Varied text, so every call adds index pages to the WAL.
      const stdout = Array.from(
        { length: 400 },
        (_, line) => `src/module${i}_${line}.ts: ok ${i * 1000 + line} token${i}x${line} case${line}y${i}`
      ).join("\n")
      hook(root, "PostToolUse", "s1", {
        tool_name: "Bash",
        tool_input: { command: `npm test -- ${i}` },
        tool_response: { stdout },
        tool_use_id: `t${i}`
      })
    }
    call()
    // The hook left its WAL behind for the next one, and another connection reads what it committed.
    expect(walSize()).toBeGreaterThan(0)
    expect(query(root, "SELECT count(*) AS n FROM observations")).toEqual([{ n: 1 }])
    // A reader that stays in its read: SQLite cannot take the WAL back to its start, and it grows.
    const reader = newSqliteDatabase(dbOf(root), { readonly: true })
    reader.exec("BEGIN")
    expect(reader.prepare("SELECT count(*) FROM observations").pluck().get()).toBe(1)
    while (walSize() <= 4 * 1024 * 1024 && calls < 80) call()
    expect(walSize()).toBeGreaterThan(4 * 1024 * 1024)
    // The next hook finds it large, waits a short time for the reader, and leaves it.
    call()
    expect(walSize()).toBeGreaterThan(4 * 1024 * 1024)
    reader.exec("COMMIT")
    reader.close()
    // The reader gone, the next hook checkpoints the WAL and truncates it.
    call()
    expect(walSize()).toBe(0)
    expect(query(root, "SELECT count(*) AS n FROM observations")).toEqual([{ n: calls }])
    expect(runCli(["verify"], { cwd: root }).code).toBe(0)
  })

  it("trims a huge tool output to the limit and marks it truncated", () => {
    const root = project()
    const stdout = `first line\n${"x".repeat(10 * 1024 * 1024)}\nlast line`
    hook(root, "PostToolUse", "s1", {
      tool_name: "Bash",
      tool_input: { command: "cat big.log" },
      tool_response: { stdout },
      tool_use_id: "t"
    })
    const [row] = query(root, "SELECT length(content) AS length, metadata, content FROM observations") as Array<
      { length: number; metadata: string; content: string }
    >
    expect(row!.length).toBeLessThan(4_200)
    expect(JSON.parse(row!.metadata)).toMatchObject({ truncated: true })
    expect(row!.content.startsWith("first line")).toBe(true)
    expect(row!.content.endsWith("last line")).toBe(true)
  })
})

describe("hooks load only what they use", () => {
  // Each Node module a hook loads is paid on every tool call: node:worker_threads alone costs about 2 ms
  // (replay loads it, from the same projection code, when it needs it).
  it.each(["PostToolUse", "UserPromptSubmit"])(
    "%s loads none of worker_threads, zlib, child_process, crypto, http",
    (event) => {
      const root = project()
      firstSession(root)
      const probe = join(root, "probe.cjs")
      const loaded = join(root, "modules.json")
      writeFileSync(
        probe,
        `process.on("exit", () => require("node:fs").writeFileSync(${
          JSON.stringify(loaded)
        }, JSON.stringify(process.moduleLoadList)))`
      )
      const fields = event === "PostToolUse"
        ? { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "README.md" } }
        : { prompt: "why does login fail?" }
      hook(root, event, "s1", fields, { NODE_OPTIONS: `--require ${probe}` })
      const modules = (JSON.parse(readFileSync(loaded, "utf8")) as Array<string>).filter((m) =>
        m.startsWith("NativeModule ")
      )
      expect(modules).toContain("NativeModule vm")
      for (const heavy of ["worker_threads", "zlib", "child_process", "crypto", "http", "https"]) {
        expect(modules).not.toContain(`NativeModule ${heavy}`)
      }
    }
  )
})

describe("the plugin's hooks/hooks.json", () => {
  it("runs every event through dist/hook.mjs with the same options to node (the ones these tests run it with)", () => {
    const file = join(import.meta.dirname, "..", "plugin", "hooks", "hooks.json")
    const config = JSON.parse(readFileSync(file, "utf8")) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>
    }
    expect(Object.keys(config.hooks).length).toBeGreaterThan(5)
    for (const [event, entries] of Object.entries(config.hooks)) {
      const command = ["node", ...HOOK_NODE_OPTIONS, "\"${CLAUDE_PLUGIN_ROOT}/dist/hook.mjs\"", event].join(" ")
      expect(entries.map((entry) => entry.hooks.map((h) => h.command))).toEqual([[command]])
    }
  })
})

describe("hooks inject memory", () => {
  it("gives a new session the project's recent past, and records what it injected", () => {
    const root = project()
    firstSession(root)
    const run = hook(root, "SessionStart", "s2", { source: "startup" })
    const context = contextOf(run.stdout)
    expect(JSON.parse(run.stdout).hookSpecificOutput.hookEventName).toBe("SessionStart")
    expect(context).toContain("## Recent sessions")
    expect(context).toContain("TokenExpiredError: jwt expired at refreshSession")
    // The failing run was fixed in that session: a lesson, not an error, and its passing run is part of it.
    // It says what failed (the error's own words) and what fixed it (the lines the edit changed).
    expect(context).toMatch(
      /## Lessons: errors fixed since\n- `npm test -- auth` failed @\d+ .* with FAIL src\/auth\.test\.ts: /
    )
    expect(context).toMatch(
      new RegExp(
        String.raw`: TokenExpiredError: jwt expired at refreshSession; ` +
          String.raw`fixed: edited src\/auth\.ts \(${"`"}expiresIn: 3600${"`"}\) @\d+; passed`
      )
    )
    expect(context).not.toContain("## Recent successes")
    const [injected] = query(
      root,
      `SELECT json_extract(payload, '$.text') AS text, json_extract(payload, '$.tokens') AS tokens,
              json_extract(payload, '$.sources') AS sources
       FROM events WHERE type = 'ContextInjected'`
    ) as Array<{ text: string; tokens: number; sources: string }>
    expect(injected!.text).toBe(context)
    expect(injected!.tokens).toBeGreaterThan(10)
    expect(JSON.parse(injected!.sources).length).toBeGreaterThanOrEqual(2)
  })

  it("answers a prompt with related memory from other sessions", () => {
    const root = project()
    firstSession(root)
    const run = hook(root, "UserPromptSubmit", "s2", { prompt: "why did refreshSession throw before?" })
    expect(contextOf(run.stdout)).toMatch(/## Related memory\n- .*TokenExpiredError: jwt expired at refreshSession/)
  })

  it("shows a related edit by the lines it changed, however long the text it replaced", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    const before = `app.use(router) // ${"every route of the dashboard API, mounted in order ".repeat(4)}`
    hook(root, "PostToolUse", "s1", {
      tool_name: "Edit",
      tool_input: {
        file_path: `${root}/src/app.ts`,
        old_string: before,
        new_string: `app.use(cors({ origin: config.allowedOrigins }))\n${before}`
      },
      tool_response: { filePath: `${root}/src/app.ts` },
      tool_use_id: "toolu_1"
    })
    const run = hook(root, "UserPromptSubmit", "s2", { prompt: "the dashboard routes fail CORS preflight" })
    expect(contextOf(run.stdout)).toMatch(
      new RegExp(
        String.raw`## Related memory\n- .*\[tool_use\] ` +
          String.raw`Edit src\/app\.ts: app\.use\(cors\(\{ origin: config\.allowedOrigins \}\)\) @\d+`
      )
    )
  })

  it("answers a Korean prompt with English memory, through the lexicon the bundle holds", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "PostToolUseFailure", "s1", {
      tool_name: "Bash",
      tool_input: { command: "docker compose up -d" },
      tool_use_id: "toolu_1",
      error: "Error response from daemon: Bind for 0.0.0.0:5432 failed: port is already allocated",
      is_interrupt: false
    })
    const run = hook(root, "UserPromptSubmit", "s2", { prompt: "포트 충돌이 또 났어" })
    expect(contextOf(run.stdout)).toMatch(/## Related memory\n- .*port is already allocated/)
  })

  it("injects nothing when memory has nothing relevant", () => {
    const root = project()
    expect(hook(root, "SessionStart", "s1", { source: "startup" }).stdout).toBe("")
    expect(hook(root, "UserPromptSubmit", "s1", { prompt: "hello" }).stdout).toBe("")
  })

  it("keeps the injection within its budget, falling back to the compact layer", () => {
    const root = project()
    firstSession(root)
    for (let i = 0; i < 5; i++) {
      hook(root, "SessionStart", `e${i}`, { source: "startup" })
      hook(root, "PostToolUseFailure", `e${i}`, {
        tool_name: "Bash",
        tool_input: { command: `npm run case-${i}` },
        error: `Exit code 2\n${"stack frame detail ".repeat(40)}`
      })
    }
    const small = { RALPH_MEM_CONTEXT_WINDOW: "2000", RALPH_MEM_INJECTION_SHARE: "0.1" }
    const run = hook(root, "SessionStart", "s3", { source: "startup" }, small)
    const [injected] = query(
      root,
      `SELECT json_extract(payload, '$.tokens') AS tokens, json_extract(payload, '$.reason') AS reason
       FROM events WHERE type = 'ContextInjected' AND stream_id = 'session:s3'`
    ) as Array<{ tokens: number; reason: string }>
    expect(injected!.tokens).toBeLessThanOrEqual(200)
    expect(injected!.reason).toMatch(/compact layer/)
    expect(contextOf(run.stdout).length).toBeGreaterThan(0)
  })
})

describe("SessionStart tells working memory", () => {
  const cli = (root: string, ...args: Array<string>) =>
    expect(runCli(args, { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)

  /** Beliefs, a task half done with a handoff note, and a session that ended on a failing test. */
  const workedOn = () => {
    const root = project()
    cli(root, "belief", "set", "stack", "TypeScript on Node 24")
    cli(root, "belief", "set", "conventions", "tabs, never spaces")
    hook(root, "SessionStart", "s1", { source: "startup" })
    cli(root, "task", "start", "Fix the login timeout")
    cli(root, "task", "plan", "Reproduce", "Patch refreshSession()", "Run the tests")
    cli(root, "task", "step", "1", "done")
    cli(root, "task", "step", "2", "in_progress")
    hook(root, "PostToolUseFailure", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test -- auth" },
      tool_use_id: "t1",
      error: "Exit code 1\nTokenExpiredError at refreshSession"
    })
    cli(root, "task", "handoff", "refreshSession multiplies by 1000 twice; fix it in src/auth.ts, then run the tests")
    hook(root, "SessionEnd", "s1", { reason: "exit" })
    return root
  }

  it("gives every new session the project's beliefs, and the injection names them as sources", () => {
    const root = workedOn()
    for (const source of ["startup", "clear", "compact"]) {
      const context = contextOf(hook(root, "SessionStart", `new-${source}`, { source }).stdout)
      expect(context).toMatch(
        /## Project beliefs\n- conventions: tabs, never spaces @\d+\n- stack: TypeScript on Node 24 @\d+\n/
      )
      expect(context).not.toContain("Where the last session stopped")
    }
    const beliefEvents = query(root, "SELECT event_id AS id FROM events WHERE type = 'BeliefSet'").map((r) =>
      (r as { id: string }).id
    )
    const [sources] = query(
      root,
      `SELECT json_extract(payload, '$.sources') AS s
       FROM events WHERE type = 'ContextInjected' ORDER BY position DESC LIMIT 1`
    ) as Array<{ s: string }>
    expect(JSON.parse(sources!.s)).toEqual(expect.arrayContaining(beliefEvents))
  })

  it("tells a resumed session where it stopped: the task, its step, the handoff note, its errors", () => {
    const root = workedOn()
    const context = contextOf(hook(root, "SessionStart", "s1", { source: "resume" }).stdout)
    expect(context).toMatch(/^# ralph-mem: what this project's memory holds\n.*\n\n## Where the last session stopped\n/)
    expect(context).toMatch(
      new RegExp(
        String.raw`- task ${"`"}fix-the-login-timeout${"`"}: Fix the login timeout; ` +
          String.raw`step 2 of 3, in progress: Patch refreshSession\(\) @\d+\n {2}\[x\] 1\. Reproduce\n {2}` +
          String.raw`\[>\] 2\. Patch refreshSession\(\)\n {2}\[ \] 3\. Run the tests`
      )
    )
    expect(context).toMatch(
      new RegExp(
        String.raw`^- handoff note \(.*\): refreshSession multiplies by 1000 twice; ` +
          String.raw`fix it in src\/auth.ts, then run the tests @\d+$`,
        "m"
      )
    )
    expect(context).toMatch(
      /^- error .*`Bash npm test -- auth`: Exit code 1 TokenExpiredError at refreshSession @\d+$/m
    )
    expect(context).toMatch(/^- last session \(.*\): Errors \(1 command, 0 fixed\): `npm test -- auth` failed/m)
    // What it says is not repeated under the recent past, and the beliefs the session was told at its
    // start are still in its context: not told again.
    expect(context).not.toContain("## Recent errors")
    expect(context).not.toContain("## Open errors")
    expect(context).not.toContain("## Project beliefs")
    expect(contextOf(hook(root, "SessionStart", "s9", { source: "startup" }).stdout)).toContain("## Project beliefs")
    // ralph-mem resume prints the same brief.
    const printed = runCli(["resume"], { cwd: root, env: { RALPH_MEM_DB: "", CLAUDE_CODE_SESSION_ID: "" } }).stdout
    expect(context).toContain(printed.trim())
  })
})

describe("hooks fail open", () => {
  const bad: ReadonlyArray<readonly [string, string | Buffer]> = [
    ["not JSON", "{ this is not json"],
    ["empty stdin", ""],
    ["wrong types", JSON.stringify({ session_id: 42, prompt: ["x"] })],
    ["missing fields", JSON.stringify({ hook_event_name: "UserPromptSubmit" })],
    ["a JSON array", "[1,2,3]"],
    ["invalid UTF-8", Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x7d])],
    ["binary", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256))]
  ]

  it("a code cache damaged on disk costs one hook at most: the next drops it and writes a sound one", () => {
    const root = project()
    const cache = join(tempFolder(), "compile-cache")
    const run = () =>
      runHookProcess(
        "PostToolUse",
        payload("PostToolUse", "s1", root, {
          tool_name: "Bash",
          tool_input: { command: "ls" },
          tool_response: { stdout: "README.md" }
        }),
        { cwd: root, env: { NODE_COMPILE_CACHE: cache } }
      )
    expect(run().code).toBe(0)
    const folder = join(cache, "ralph-mem")
    const [name] = readdirSync(folder)
    const file = join(folder, name!)
    const sound = readFileSync(file)
    // Damage that keeps the length, the versions and the flags V8 checks: V8 then aborts the compile.
    const damaged = Buffer.from(sound)
    for (let i = 64; i < damaged.length; i += 997) damaged[i]! ^= 0xff
    writeFileSync(file, damaged)
    run()
    const recovered = run()
    expect([recovered.code, recovered.stdout, recovered.stderr]).toEqual([0, "", ""])
    expect(readFileSync(file).equals(damaged)).toBe(false)
    expect(readdirSync(folder)).toEqual([name])
    expect(run().code).toBe(0)
    const observations = query(root, "SELECT count(*) AS n FROM events WHERE type = 'ObservationRecorded'") as Array<
      { n: number }
    >
    expect(observations[0]!.n).toBeGreaterThanOrEqual(3)
  })

  it("a damaged cache left marked by a dead hook whose pid a live process now has is dropped all the same", () => {
    const root = project()
    const cache = join(tempFolder(), "compile-cache")
    const run = () =>
      runHookProcess(
        "PostToolUse",
        payload("PostToolUse", "s1", root, {
          tool_name: "Bash",
          tool_input: { command: "ls" },
          tool_response: { stdout: "x" }
        }),
        { cwd: root, env: { NODE_COMPILE_CACHE: cache } }
      )
    expect(run().code).toBe(0)
    const folder = join(cache, "ralph-mem")
    const file = join(folder, readdirSync(folder)[0]!)
    const damaged = readFileSync(file)
    for (let i = 64; i < damaged.length; i += 997) damaged[i]! ^= 0xff
    writeFileSync(file, damaged)
    // The mark a crashed hook left an hour ago; its pid now belongs to a live process (this one).
    const mark = `${file}.running`
    writeFileSync(mark, String(process.pid))
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000)
    utimesSync(mark, hourAgo, hourAgo)
    const next = run()
    expect([next.code, next.stdout, next.stderr]).toEqual([0, "", ""])
    expect(readFileSync(file).equals(damaged)).toBe(false)
  })

  it.each(bad)("%s: exit 0, no output, a logged reason and a HookFailed event", (_, stdin) => {
    const root = project()
    hook(root, "SessionStart", "s0", { source: "startup" })
    const run = runHookProcess("UserPromptSubmit", stdin, { cwd: root })
    expect([run.code, run.stdout, run.stderr]).toEqual([0, "", ""])
    const log = readFileSync(join(root, ".ralph-mem", "hooks.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(log.at(-1)).toMatchObject({
      hook: "UserPromptSubmit",
      reason: expect.stringMatching(/^malformed hook input/)
    })
    expect(query(root, "SELECT json_extract(payload, '$.hook') AS hook FROM events WHERE type = 'HookFailed'")).toEqual(
      [{ hook: "UserPromptSubmit" }]
    )
  })

  it("survives a file that is not a database: keeps it aside, byte for byte, and carries on with a new one", () => {
    const root = project()
    mkdirSync(join(root, ".ralph-mem"))
    writeFileSync(dbOf(root), "definitely not sqlite ".repeat(500))
    const run = runHookProcess("SessionStart", payload("SessionStart", "s1", root, { source: "startup" }), {
      cwd: root
    })
    expect([run.code, run.stderr]).toEqual([0, ""])
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toMatch(
      /damaged \(.*not an SQLite database.*\); no backup existed, so memory starts afresh/
    )
    const [kept] = readdirSync(join(root, ".ralph-mem", "damaged"))
    expect(readFileSync(join(root, ".ralph-mem", "damaged", kept!), "utf8")).toBe("definitely not sqlite ".repeat(500))
    expect(readFileSync(join(root, ".ralph-mem", "hooks.log"), "utf8")).toMatch(
      /damaged database, restoring: .*not an SQLite database/
    )
    expect(query(root, "SELECT type FROM events ORDER BY position").map((r) => (r as { type: string }).type)).toEqual([
      "DatabaseRestored",
      "SessionStarted",
      "ContextInjected"
    ])
  })

  it("leaves another program's SQLite database alone: that is a mistake to report, not damage", () => {
    const root = project()
    mkdirSync(join(root, ".ralph-mem"))
    const other = newSqliteDatabase(dbOf(root))
    other.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY)")
    other.close()
    const before = readFileSync(dbOf(root))
    const run = runHookProcess("SessionStart", payload("SessionStart", "s1", root, { source: "startup" }), {
      cwd: root
    })
    expect([run.code, run.stdout, run.stderr]).toEqual([0, "", ""])
    expect(readFileSync(dbOf(root)).equals(before)).toBe(true)
    expect(existsSync(join(root, ".ralph-mem", "damaged"))).toBe(false)
    expect(readFileSync(join(root, ".ralph-mem", "hooks.log"), "utf8")).toMatch(/belongs to another program/)
  })

  it("ignores an event it does not handle", () => {
    const root = project()
    const run = runHookProcess("Notification", payload("Notification", "s1", root), { cwd: root })
    expect([run.code, run.stdout, run.stderr]).toEqual([0, "", ""])
    expect(existsSync(dbOf(root))).toBe(false)
  })

  it("shows the hook success rate in status", () => {
    const root = project()
    firstSession(root)
    runHookProcess("PostToolUse", "garbage", { cwd: root })
    const status = JSON.parse(runCli(["status", "--json"], { cwd: root, env: { RALPH_MEM_DB: "" } }).stdout)
    expect(status.hooks).toMatchObject({ invocations: 9, failures: 1 })
    expect(status.hooks.successRate).toBeCloseTo(8 / 9, 5)
  })
})

describe("a hook started in a folder that was removed", () => {
  // `rm -rf build` while the session stands in build/, or a branch switch without the folder: Claude Code starts the
  // hook there, and the process has no working folder (process.cwd() throws).
  for (const projectDir of [false, true]) {
    it(`records in the project above it${projectDir ? ", named by CLAUDE_PROJECT_DIR" : ""}`, () => {
      const root = tempFolder()
      mkdirSync(join(root, ".git"))
      const removed = join(root, "build")
      mkdirSync(removed)
      const run = runHookProcess(
        "UserPromptSubmit",
        payload("UserPromptSubmit", "gone-1", removed, { prompt: "why does the build folder vanish", prompt_id: "p1" }),
        { cwd: removed, cwdRemoved: true, env: { HOME: root, ...(projectDir ? { CLAUDE_PROJECT_DIR: root } : {}) } }
      )
      expect(existsSync(removed)).toBe(false)
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
      try {
        const prompts = db.prepare("SELECT payload ->> '$.prompt' FROM events WHERE type = 'PromptSubmitted'").pluck()
        expect(prompts.all()).toEqual(["why does the build folder vanish"])
      } finally {
        db.close()
      }
    })
  }

  it("of a project that is gone too: says so, and makes nothing where it was", () => {
    const root = tempFolder()
    // Its name, which the message quotes, holds a terminal sequence (ESC [2J clears the screen): shown inert.
    const removed = join(root, "scratch\u001b[2J")
    mkdirSync(removed)
    const run = runHookProcess(
      "UserPromptSubmit",
      payload("UserPromptSubmit", "gone-2", removed, { prompt: "hello", prompt_id: "p1" }),
      { cwd: removed, cwdRemoved: true, env: { HOME: root } }
    )
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).systemMessage).toBe(
      `ralph-mem is not recording: the session's folder ${join(root, "scratch\\x1b[2J")} was removed, and no ` +
        "project folder above it holds .git: nothing recorded"
    )
    expect(existsSync(removed)).toBe(false)
    expect(readdirSync(root)).toEqual([])
  })

  it("the CLI says the folder is gone, with no stack trace", () => {
    const root = tempFolder()
    const removed = join(root, "build")
    mkdirSync(removed)
    const run = spawnSync("sh", [
      "-c",
      "cd \"$0\" && rmdir \"$0\" && exec \"$@\"",
      removed,
      process.execPath,
      CLI,
      "status"
    ], {
      cwd: root,
      encoding: "utf8",
      env: { PATH: process.env["PATH"] ?? "", HOME: root }
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toMatch(/ERROR\n {2}the current folder (\(.*build\) )?no longer exists: it was removed/)
    expect(run.stderr).not.toContain("    at ")
  })
})

describe("privacy on every write path", () => {
  it("keeps <private> text and planted secrets out of the database, its WAL and its backups", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    const secret = "sk-ant-api03-PLANTEDsecretVALUE0123456789abcdefABCDEF"
    const aws = "AKIAPLANTED12345678X"
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "UserPromptSubmit", "s1", {
      prompt: "deploy it <private>my bank pin is 9911</private> with key " + secret
    })
    hook(root, "PostToolUse", "s1", {
      tool_name: "Bash",
      tool_input: { command: `curl -H "Authorization: Bearer ${secret}" https://api` },
      tool_response: { stdout: `export AWS_ACCESS_KEY_ID=${aws}\npassword=hunter2hunter2` },
      tool_use_id: "t1"
    })
    hook(root, "PostToolUse", "s1", {
      tool_name: "Write",
      tool_input: { file_path: "/x/.env", content: `API_KEY=${secret}` },
      tool_response: { type: "create", filePath: "/x/.env" },
      tool_use_id: "t2"
    })
    hook(root, "Stop", "s1", { last_assistant_message: `Done. <private>internal note 4477</private> Used ${secret}.` })
    hook(root, "SessionEnd", "s1", { reason: "exit" })
    hook(root, "SessionStart", "s2", { source: "startup" })
    // SessionEnd starts a backup in the background: wait for it, then read everything on disk.
    await maintenanceSettled(root)
    const backups = join(root, ".ralph-mem", "backups")
    const files = [
      ...["memory.db", "memory.db-wal"].map((f) => join(root, ".ralph-mem", f)),
      ...readdirSync(backups).map((f) => join(backups, f))
    ]
    expect(files.length).toBeGreaterThanOrEqual(3)
    // A file may vanish as we read (the backup's connection closing removes the WAL): that is nothing to read.
    const read = (f: string) => {
      try {
        return readFileSync(f).toString("latin1")
      } catch {
        return ""
      }
    }
    const bytes = files.map(read).join("")
    for (const planted of [secret, aws, "hunter2hunter2", "9911", "4477", "my bank pin"]) {
      expect(bytes).not.toContain(planted)
    }
    expect(bytes).toContain("[private]")
    expect(bytes).toContain("[secret:")
  })

  /** [a tool's output, the secrets in it, what around them is kept] */
  const SHAPES: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    [
      "BlobEndpoint=https://shop.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl"
      + "&sig=PlantedSasConn9xK2%2BmQ7vR4wT8zN3bH6cJ1pL5%3D",
      ["sv=2022-11-02&ss=b&srt=sco&sp=rl", "PlantedSasConn9xK2"],
      "BlobEndpoint=https://shop.blob.core.windows.net/;SharedAccessSignature="
    ],
    [
      "GET https://shop.blob.core.windows.net/exports/orders.csv?sv=2021-08-06&sr=b&sp=r"
      + "&sig=PlantedSasUrl4Zq8%2FWm2Xr7Kc4VbN6Hj2Tg5Yf7Ud9S%3D 200",
      ["PlantedSasUrl4Zq8"],
      "exports/orders.csv?sv=2021-08-06&sr=b&sp=r&sig="
    ]
  ]

  it("keeps each shape's secret out of the database a hook writes, and what surrounds it in", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "PostToolUse", "s1", {
      tool_name: "Bash",
      tool_input: { command: "cat exported-config.txt" },
      tool_response: { stdout: SHAPES.map(([output]) => output).join("\n"), stderr: "", interrupted: false },
      tool_use_id: "t1"
    })
    const bytes = ["memory.db", "memory.db-wal"]
      .map((file) => join(root, ".ralph-mem", file))
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString("latin1"))
      .join("")
    for (const [, secrets, kept] of SHAPES) {
      for (const secret of secrets) expect(bytes, secret).not.toContain(secret)
      expect(bytes, kept).toContain(kept)
    }
  })
})
