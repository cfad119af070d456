/**
 * The memory tools' MCP server (`ralph-mem mcp`) as a real process, spoken to in JSON-RPC on stdio, over a
 * memory the real hooks and CLI wrote: what each tool answers, what every call records, what hostile
 * input gets (always a tool error, never a crash), and that it keeps reading the right file while other
 * processes back up, restore, forget, replay and compact it. Lifecycle: it exits when its stdin ends, and
 * when the process that started it dies.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { estimateTokens, restoreFromBackup } from "@ralph-mem/projections"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { type AddressInfo, connect, createServer, type Socket } from "node:net"
import { basename, join } from "node:path"
import { crc32 } from "node:zlib"
import { afterEach, describe, expect, it } from "vitest"
import { MAX_MESSAGE_BYTES } from "../apps/cli/src/mcp/message-lines.ts"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, runCli, testRunState } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { type McpProcess, startMcp } from "./support/mcp.ts"
import { maintenanceSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"
import { walProgress } from "./support/wal.ts"

const PLANTED = "ZEBRA-QUOKKA-7731"
const SESSION = "s3"

const servers: Array<McpProcess> = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.close()
  }
})

const hook = (root: string, event: string, session: string, fields: Record<string, unknown>) =>
  expect(runHookProcess(event, payload(event, session, root, fields), { cwd: root }).code).toBe(0)

const cli = (root: string, ...args: Array<string>) => {
  const result = runCli(args, { cwd: root, env: { RALPH_MEM_DB: "" } })
  expect(result.stderr, args.join(" ")).toBe("")
  return result.stdout
}

/**
 * A git project whose memory the hooks and the CLI wrote: a session with a failing checkout test that a
 * later run passed, a decision, a belief, a task with a finding, and the session now running (s3).
 */
const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  hook(root, "SessionStart", "s1", { source: "startup" })
  hook(root, "UserPromptSubmit", "s1", { prompt: "make the checkout tests pass" })
  hook(root, "PostToolUse", "s1", {
    tool_name: "Read",
    tool_input: { file_path: `${root}/src/payment_gateway.ts` },
    tool_use_id: "t0",
    tool_response: { file: { filePath: `${root}/src/payment_gateway.ts`, numLines: 80 } }
  })
  hook(root, "PostToolUseFailure", "s1", {
    tool_name: "Bash",
    tool_input: { command: "npm test -- checkout" },
    tool_use_id: "t1",
    error: `Exit code 1\nCheckoutTimeoutError ${PLANTED} in payment_gateway.ts`
  })
  hook(root, "PostToolUse", "s1", {
    tool_name: "Edit",
    tool_input: { file_path: `${root}/src/payment_gateway.ts`, old_string: "timeout: 5", new_string: "timeout: 30" },
    tool_use_id: "t2",
    tool_response: {}
  })
  hook(root, "PostToolUse", "s1", {
    tool_name: "Bash",
    tool_input: { command: "npm test -- checkout" },
    tool_use_id: "t3",
    tool_response: { stdout: "PASS checkout (3 tests)" }
  })
  hook(root, "SessionEnd", "s1", { reason: "exit" })
  cli(
    root,
    "decide",
    "Retry the payment gateway with exponential backoff",
    "--why",
    "the gateway drops one call in fifty under load",
    "--alternative",
    "a fixed 30 s timeout: still fails under load"
  )
  cli(root, "belief", "set", "stack", "TypeScript on Node 24 with vitest")
  cli(root, "task", "start", "Fix the checkout timeout", "--id", "checkout")
  cli(root, "task", "plan", "Reproduce", "Patch the gateway")
  cli(root, "task", "finding", "the gateway times out after 5 s")
  hook(root, "SessionStart", SESSION, { source: "startup" })
  return root
}

const serve = async (root: string, env: Record<string, string> = {}) => {
  const server = await startMcp({
    cwd: root,
    env: { CLAUDE_CODE_SESSION_ID: SESSION, CLAUDE_PROJECT_DIR: root, ...env }
  })
  servers.push(server)
  return server
}

interface LoggedEvent {
  readonly streamId: string
  readonly type: string
  readonly writer: string
  readonly payload: Record<string, unknown>
}

const events = (root: string, type?: string): Array<LoggedEvent> => {
  const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true, fileMustExist: true })
  try {
    const rows = db
      .prepare("SELECT stream_id AS streamId, type, metadata, payload FROM events ORDER BY position")
      .all() as Array<{ streamId: string; type: string; metadata: string; payload: string }>
    return rows
      .map((r) => ({
        streamId: r.streamId,
        type: r.type,
        writer: String(JSON.parse(r.metadata).writer),
        payload: JSON.parse(r.payload) as Record<string, unknown>
      }))
      .filter((e) => type === undefined || e.type === type)
  } finally {
    db.close()
  }
}

/** The event ids in an answer, each once, in the order they first appear. */
const ids = (text: string): Array<string> => [
  ...new Set([...text.matchAll(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g)].map((m) => m[0]))
]

/** The ids of a search answer's hits (observations and sessions), in rank order. */
const hitIds = (text: string): Array<string> => [...text.matchAll(/^\d+\. (\S+) /gm)].map((m) => m[1]!)

describe("ralph-mem mcp: the memory tools", () => {
  it("lists eight tools a model finds by the words it searches with, each with an object input schema", async () => {
    const server = await serve(project())
    const listed = await server.request("tools/list")
    const tools = (listed.result?.["tools"] ?? []) as Array<{
      name: string
      description: string
      inputSchema: { type: string; properties: object }
    }>
    expect(tools.map((t) => t.name)).toEqual([
      "search",
      "timeline",
      "get",
      "why",
      "beliefs",
      "task",
      "remember",
      "loop_status"
    ])
    // An empty list of kinds is refused: the schema says so to the model too.
    expect(tools[0]?.inputSchema.properties).toMatchObject({ types: { type: "array", minItems: 1, maxItems: 4 } })
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object")
      expect(tool.description, tool.name).toMatch(/memory/i)
    }
    const all = tools.map((t) => t.description).join(" ")
    for (const word of ["past", "sessions", "errors", "decisions", "notes", "remember"]) {
      expect(all.toLowerCase()).toContain(word)
    }
    expect(server.stderr()).toBe("")
  })

  it("answers search, then timeline, then get: the earlier error, what fixed it, and the error in full", async () => {
    const root = project()
    const server = await serve(root)
    const found = await server.call("search", { query: "checkout timeout", types: ["error"] })
    expect(found.isError).toBe(false)
    expect(found.text).toContain("CheckoutTimeoutError")
    expect(found.text).toMatch(/More: get \{"ids": \[/)
    const [errorId] = ids(found.text)
    expect(errorId).toBeDefined()

    const around = await server.call("timeline", { around: errorId, before: 1, after: 2 })
    expect(around.isError).toBe(false)
    const lines = around.text.split("\n")
    const marked = lines.findIndex((l) => l.startsWith(`> ${errorId}`))
    expect(marked).toBeGreaterThan(0)
    // Oldest first: the read before it, the edit and the passing run after it.
    expect(lines[marked - 1]).toContain("[tool_use] `Read")
    expect(lines[marked + 1]).toContain("timeout: 30")
    expect(lines[marked + 2]).toContain("PASS checkout (3 tests)")

    const full = await server.call("get", { ids: [errorId] })
    expect(full.isError).toBe(false)
    expect(full.text).toContain(`## ${errorId} [error]`)
    expect(full.text).toContain("input: npm test -- checkout")
    expect(full.text).toContain(`CheckoutTimeoutError ${PLANTED} in payment_gateway.ts`)

    const session = await server.call("timeline", { session: "s1" })
    expect(session.text).toMatch(/^Session s1, .*: 1 prompt\(s\), 4 observation\(s\)\.\nSummary: /)
  })

  it("answers why, beliefs, task and loop_status from working memory", async () => {
    const root = project()
    const server = await serve(root)
    const why = await server.call("why", { query: "gateway backoff" })
    expect(why.text).toContain("Retry the payment gateway with exponential backoff")
    expect(why.text).toContain("why: the gateway drops one call in fifty under load")
    expect(why.text).toContain("rejected: a fixed 30 s timeout (still fails under load)")
    expect((await server.call("beliefs")).text).toContain("- stack: TypeScript on Node 24 with vitest")
    const task = await server.call("task", {})
    expect(task.text).toContain("# Task checkout: Fix the checkout timeout")
    expect(task.text).toContain("- the gateway times out after 5 s")
    expect((await server.call("loop_status", {})).text).toBe("No Ralph loop is running in this session.")
  })

  it("tells loop_status the loop of this session: goal, iteration, what failed", async () => {
    const root = project()
    // A loop bound to this session; its first iteration's check fails with a line it can be told by.
    writeFileSync(join(root, "fail.js"), `console.error("GATEWAY-STILL-BROKEN"); process.exit(1)\n`)
    cli(
      root,
      "ralph",
      "start",
      "make the gateway tests pass",
      "--session",
      SESSION,
      "--criteria",
      "custom=node fail.js"
    )
    hook(root, "Stop", SESSION, { stop_hook_active: false, last_assistant_message: "I tried." })
    const server = await serve(root)
    const status = await server.call("loop_status")
    expect(status.isError).toBe(false)
    expect(status.text).toContain("Goal: make the gateway tests pass")
    expect(status.text).toMatch(/iteration 2 of at most \d+/)
    expect(status.text).toContain("GATEWAY-STILL-BROKEN")
    // Another session's server does not see it as its own.
    const other = await serve(root, { CLAUDE_CODE_SESSION_ID: "someone-else" })
    expect((await other.call("loop_status")).text).toMatch(
      /^No Ralph loop is running in this session\.\n- loop \S+ \(session s3\): make the gateway tests pass/
    )
  })

  it("ends answers with hints naming real ids, which the tools and commands they name take", async () => {
    const root = project()
    cli(root, "task", "start", "Speed up the search", "--id", "search")
    cli(
      root,
      "ralph",
      "start",
      "make the gateway tests pass",
      "--session",
      SESSION,
      "--criteria",
      "custom=node fail.js"
    )
    const server = await serve(root, { CLAUDE_CODE_SESSION_ID: "someone-else" })
    const lastLine = (answer: { readonly text: string }) => answer.text.split("\n").at(-1)

    const found = await server.call("search", { query: "checkout timeout" })
    const observations = hitIds(found.text).filter((id) => id !== "s1")
    expect(observations.length).toBeGreaterThan(0)
    expect(lastLine(found)).toBe(
      `More: get {"ids": ${JSON.stringify(observations.slice(0, 3))}} gives observations in full; ` +
        `timeline {"around": "${observations[0]}"} shows what came before and after it; ` +
        `timeline {"session": "s1"} lists a summarised session.`
    )
    expect((await server.call("timeline", { around: observations[0] })).text).toContain(`> ${observations[0]}`)
    // A summary alone: nothing for get or timeline around.
    const summaryOnly = await server.call("search", { query: "make" })
    expect(hitIds(summaryOnly.text)).toEqual(["s1"])
    expect(lastLine(summaryOnly)).toBe(`More: timeline {"session": "s1"} lists a summarised session.`)

    const task = await server.call("task", {})
    expect(task.text).toMatch(/^# Task search: /)
    expect(lastLine(task)).toBe(`Other tasks: checkout (task {"task": "checkout"} shows it).`)
    expect((await server.call("task", { task: "checkout" })).text).toMatch(/^# Task checkout: /)

    const status = await server.call("loop_status")
    const loopId = /^- loop (\S+) \(session s3\)/m.exec(status.text)![1]!
    expect(lastLine(status)).toBe(
      `Running in this project: \`ralph-mem ralph status --loop ${loopId}\` (Bash) shows the first one.`
    )
    expect(cli(root, "ralph", "status", "--loop", loopId)).toContain("make the gateway tests pass")
  })

  it("remembers a note through the privacy filter, returns its id, and the next session is told it", async () => {
    const root = project()
    const server = await serve(root)
    const key = `sk-ant-api03-${"Q".repeat(40)}`
    const saved = await server.call("remember", {
      kind: "note",
      text: `Deploys go through ops-gateway-7 <private>pin PIN-4417-QUOKKA</private> with ${key}`
    })
    expect(saved.isError).toBe(false)
    expect(saved.text).toContain(
      "Stored with private text or secrets filtered out: " +
        "\"Deploys go through ops-gateway-7 [private] with [secret:anthropic-key]\""
    )
    const [noteId] = ids(saved.text)
    const stored = events(root, "NoteInjected")
    expect(stored.map((e) => e.payload["text"])).toEqual([
      "Deploys go through ops-gateway-7 [private] with [secret:anthropic-key]"
    ])
    expect(stored[0]?.payload).toMatchObject({ sessionId: SESSION, noteType: "note" })
    expect(stored[0]?.writer).toBe("mcp:remember")
    // A word no id, time or page of the file can hold by chance (four digits alone were found in one, once).
    expect(readFileSync(join(root, ".ralph-mem", "memory.db")).toString("latin1")).not.toContain("PIN-4417-QUOKKA")
    // The next session's SessionStart injects it, and it is one search away.
    const next = runHookProcess("SessionStart", payload("SessionStart", "s4", root, { source: "startup" }), {
      cwd: root
    })
    expect(JSON.parse(next.stdout).hookSpecificOutput.additionalContext).toContain(
      "Deploys go through ops-gateway-7 [private] with [secret:anthropic-key]"
    )
    expect(ids((await server.call("search", { query: "ops-gateway-7" })).text)[0]).toBe(noteId)
  })

  it("says text was filtered only when the filter changed it, and refuses an empty note as the CLI does", async () => {
    const root = project()
    const server = await serve(root)
    // Padding is trimmed, as every write trims what it is given: nothing was filtered out.
    const padded = await server.call("remember", { kind: "note", text: "\n  Releases are cut on Tuesdays \t\n" })
    expect(padded.isError).toBe(false)
    expect(padded.text).toMatch(
      /^Remembered as a note: later sessions of this project are told it at their start\. Its/
    )
    const belief = await server.call("remember", { kind: "belief", key: "focus", text: "  the release train  " })
    expect(belief.text).toMatch(/^Belief focus set: every new session of this project is told it\. Its id/)
    const blank = await server.call("remember", { kind: "note", text: " \n\t " })
    expect(blank).toEqual({ isError: true, text: "the note is empty" })
    expect(events(root, "NoteInjected").map((e) => e.payload["text"])).toEqual(["Releases are cut on Tuesdays"])
    // The CLI's inject takes the same path and says the same.
    expect(runCli(["inject", " \n\t "], { cwd: root, env: { RALPH_MEM_DB: "" } }).stderr).toMatch(/the note is empty/)
    expect(events(root, "MemoryToolCalled").at(-1)?.payload).toMatchObject({
      tool: "remember",
      returned: [],
      error: "the note is empty"
    })
  })

  it("remembers a decision, a belief and a task finding, and refuses what is incomplete", async () => {
    const root = project()
    const server = await serve(root)
    const decision = await server.call("remember", {
      kind: "decision",
      text: "Keep SQLite",
      why: "one file, no server",
      alternatives: ["Postgres: a server to run"],
      impact: "high"
    })
    expect(decision.text).toMatch(/^Decision recorded for task checkout: the why tool finds it\. Its id: \w{26}/)
    expect((await server.call("why", { query: "sqlite" })).text).toContain("rejected: Postgres (a server to run)")
    expect((await server.call("remember", { kind: "belief", key: "focus", text: "the checkout flow" })).text).toMatch(
      /^Belief focus set/
    )
    expect((await server.call("remember", { kind: "belief", key: "focus", text: "the checkout flow" })).text).toMatch(
      /already says exactly this/
    )
    expect((await server.call("remember", { kind: "finding", text: "backoff fixes it" })).text).toMatch(
      /^Finding recorded for task checkout/
    )
    expect((await server.call("task")).text).toContain("- backoff fixes it")
    expect(await server.call("remember", { kind: "decision", text: "Keep SQLite" })).toEqual({
      isError: true,
      text: expect.stringContaining("A decision needs `why`")
    })
    expect(await server.call("remember", { kind: "belief", text: "no key" })).toEqual({
      isError: true,
      text: expect.stringContaining("A belief needs `key`")
    })
    expect(await server.call("remember", { kind: "belief", key: "../../etc", text: "x" })).toMatchObject({
      isError: true
    })
    expect(await server.call("remember", { kind: "finding", text: "x", task: "no-such-task" })).toEqual({
      isError: true,
      text: expect.stringContaining("No task")
    })
    cli(root, "task", "done")
    expect(await server.call("remember", { kind: "finding", text: "x" })).toEqual({
      isError: true,
      text: expect.stringContaining("no open task")
    })
  })

  it("copies the calls' records into the database once it is idle, not while a call waits", async () => {
    const root = project()
    // A maintenance reading the database would hold back what a checkpoint may copy.
    await maintenanceSettled(root)
    const server = await serve(root)
    const path = join(root, ".ralph-mem", "memory.db")
    for (const query of ["checkout timeout", "payment gateway", PLANTED]) {
      expect((await server.call("search", { query })).isError).toBe(false)
    }
    const deadline = Date.now() + 20_000
    for (let wal = walProgress(path); wal.frames === 0 || wal.checkpointed < wal.frames; wal = walProgress(path)) {
      if (Date.now() > deadline) throw new Error(`the log was not checkpointed: ${JSON.stringify(wal)}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(server.stderr()).toBe("")
  }, SETTLE_TEST_TIMEOUT_MS)

  it("records every call as a MemoryToolCalled event in the session's stream: tool, query, ids", async () => {
    const root = project()
    const server = await serve(root)
    const found = await server.call("search", { query: "checkout timeout" }, { "claudecode/toolUseId": "toolu_42" })
    const shown = hitIds(found.text)
    // The first session's summary is a hit too: its id is the session's.
    expect(shown).toContain("s1")
    await server.call("get", { ids: [shown[0], "01ZZZZZZZZZZZZZZZZZZZZZZZZ"] })
    await server.call("search", { query: "" })
    const recorded = events(root, "MemoryToolCalled")
    expect(recorded.map((e) => [e.streamId, e.writer])).toEqual([
      [`session:${SESSION}`, "mcp:search"],
      [`session:${SESSION}`, "mcp:get"],
      [`session:${SESSION}`, "mcp:search"]
    ])
    expect(recorded[0]?.payload).toMatchObject({
      tool: "search",
      query: "checkout timeout",
      toolUseId: "toolu_42",
      sessionId: SESSION,
      returned: shown
    })
    expect(recorded[0]?.payload["tokens"]).toBe(estimateTokens(found.text))
    expect(recorded[1]?.payload).toMatchObject({
      tool: "get",
      ids: [shown[0], "01ZZZZZZZZZZZZZZZZZZZZZZZZ"],
      returned: [shown[0]]
    })
    expect(recorded[2]?.payload).toMatchObject({
      tool: "search",
      returned: [],
      error: expect.stringContaining("Invalid input for search")
    })
    // The calls are not recorded a second time as observations by the PostToolUse hook.
    hook(root, "PostToolUse", SESSION, {
      tool_name: "mcp__plugin_ralph-mem_memory__get",
      tool_input: { ids: [shown[0]] },
      tool_use_id: "toolu_43",
      tool_response: [{ type: "text", text: found.text }]
    })
    hook(root, "PostToolUseFailure", SESSION, {
      tool_name: "mcp__plugin_ralph-mem_memory__get",
      tool_input: { ids: ["x"] },
      tool_use_id: "toolu_44",
      error: "No observation with id x"
    })
    expect(events(root, "ObservationRecorded").filter((e) => e.payload["sessionId"] === SESSION)).toEqual([])
  })

  it("records a call to a tool it does not have, with its error, under the name as called, cut", async () => {
    const root = project()
    const server = await serve(root)
    const unknown =
      "Unknown tool \"serch\"; the memory tools are search, timeline, get, why, beliefs, task, remember, " +
      "loop_status."
    expect(await server.call("serch", { query: "checkout" }, { "claudecode/toolUseId": "toolu_7" })).toEqual({
      isError: true,
      text: unknown
    })
    const cut = "n".repeat(100)
    expect((await server.call("n".repeat(100_000), {})).text).toMatch(new RegExp(`^Unknown tool "${cut}"; `))
    expect(events(root, "MemoryToolCalled").map((e) => [e.streamId, e.writer, e.payload])).toEqual([
      [
        `session:${SESSION}`,
        "mcp:serch",
        { tool: "serch", toolUseId: "toolu_7", sessionId: SESSION, returned: [], tokens: 0, error: unknown }
      ],
      [
        `session:${SESSION}`,
        `mcp:${cut}`,
        { tool: cut, sessionId: SESSION, returned: [], tokens: 0, error: expect.stringMatching(/^Unknown tool "n+"; /) }
      ]
    ])
  })

  it("serves the database --db names, through the command tree (ralph-mem mcp --db <file>)", async () => {
    const root = project()
    const elsewhere = tempFolder()
    mkdirSync(join(elsewhere, ".git"))
    const server = await startMcp({
      cwd: elsewhere,
      args: ["--db", join(root, ".ralph-mem", "memory.db")],
      env: { CLAUDE_CODE_SESSION_ID: SESSION, CLAUDE_PROJECT_DIR: root }
    })
    servers.push(server)
    expect((await server.call("search", { query: PLANTED })).text).toContain(`CheckoutTimeoutError ${PLANTED}`)
    expect(await server.close()).toEqual({ code: 0, signal: null })
  })

  it("creates no database for reads of a project with no memory, and says so", async () => {
    const root = tempFolder()
    mkdirSync(join(root, ".git"))
    const server = await serve(root)
    expect(await server.call("search", { query: "anything" })).toEqual({
      isError: false,
      text: expect.stringContaining("no memory yet")
    })
    expect(await server.call("search", { limit: 5 })).toMatchObject({ isError: true })
    expect(await server.call("serch", { query: "anything" })).toMatchObject({ isError: true })
    expect(existsSync(join(root, ".ralph-mem"))).toBe(false)
    expect((await server.call("remember", { kind: "note", text: "the first memory" })).isError).toBe(false)
    expect(events(root, "NoteInjected")).toHaveLength(1)
  })
})

describe("ralph-mem mcp and the network", () => {
  it("opens no socket and resolves no name: every tool called with the network tripwire preloaded", async () => {
    const root = project()
    const log = join(tempFolder(), "network.log")
    const processes = join(tempFolder(), "processes.log")
    const server = await serve(root, {
      NODE_OPTIONS: `--require "${join(import.meta.dirname, "support", "network-tripwire.cjs")}"`,
      RALPH_MEM_TRIPWIRE_LOG: log,
      RALPH_MEM_TRIPWIRE_PROCESSES: processes
    })
    await server.request("tools/list")
    const [errorId] = ids((await server.call("search", { query: "checkout timeout" })).text)
    for (
      const [tool, args] of [
        ["timeline", { around: errorId }],
        ["get", { ids: [errorId] }],
        ["why", { query: "gateway" }],
        ["beliefs", {}],
        ["task", {}],
        ["remember", { kind: "note", text: "no network here" }],
        ["loop_status", {}]
      ] as const
    ) {
      expect((await server.call(tool, args)).isError, tool).toBe(false)
    }
    expect(await server.close()).toEqual({ code: 0, signal: null })
    // The tripwire was loaded in the server, and recorded nothing.
    expect(readFileSync(processes, "utf8")).toContain("\"event\":\"loaded\"")
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("")
  })
})

describe("ralph-mem mcp against hostile input", () => {
  it("answers malformed arguments, unknown tools and ids, huge limits with tool errors; keeps serving", async () => {
    const root = project()
    const server = await serve(root)
    // Arguments that are not an object are refused by the protocol layer (the SDK) before any tool runs.
    for (const args of ["a string", [], 42, null]) {
      const response = await server.request("tools/call", { name: "search", arguments: args })
      expect(response.error?.message, JSON.stringify(args)).toMatch(/"expected": "record"/)
    }
    const refusals: Array<[string, unknown, RegExp]> = [
      ["search", undefined, /Invalid input for search: Missing key/],
      ["search", {}, /Invalid input for search: Missing key\n  at \["query"\]/],
      ["search", { query: 42 }, /Expected string/],
      ["search", { query: "x".repeat(100_000) }, /length of at most 2000/],
      ["search", { query: "token", limit: 1e9 }, /between 1 and 50/],
      ["search", { query: "token", limit: 2.5 }, /Invalid input for search/],
      ["search", { query: "token", limit: "10" }, /Expected number/],
      ["search", { query: "token", types: ["secret"] }, /"error" \| "success"/],
      [
        "search",
        { query: "token", types: [] },
        /Invalid input for search: Expected a value with a length of at least 1/
      ],
      ["search", { query: "token", since: "yesterday-ish" }, /is not a time/],
      ["timeline", {}, /Give one of `around`/],
      ["timeline", { around: "x", session: "y" }, /Give one of `around`/],
      ["timeline", { around: "01ZZZZZZZZZZZZZZZZZZZZZZZZ", after: 1e6 }, /between 0 and 50/],
      ["timeline", { around: "01ZZZZZZZZZZZZZZZZZZZZZZZZ" }, /No observation with id 01ZZZZZZZZZZZZZZZZZZZZZZZZ/],
      ["timeline", { session: "no-such-session" }, /No session no-such-session/],
      ["get", { ids: [] }, /length of at least 1/],
      ["get", { ids: "01ZZZZZZZZZZZZZZZZZZZZZZZZ" }, /Expected array/],
      ["get", { ids: Array.from({ length: 10_000 }, (_, i) => `id${i}`) }, /length of at most 20/],
      ["get", { ids: ["nope", "'; DROP TABLE events; --"] }, /No observation with id nope, '; DROP TABLE events; --/],
      ["task", { task: "no-such-task" }, /No task "no-such-task"/],
      ["remember", { kind: "secret", text: "x" }, /"note" \| "decision"/],
      ["remember", { kind: "note", text: "" }, /length of at least 1/],
      ["no_such_tool", {}, /Unknown tool "no_such_tool"; the memory tools are search, timeline/]
    ]
    for (const [tool, args, expected] of refusals) {
      const answer = await server.call(tool, args)
      expect(answer, `${tool} ${String(JSON.stringify(args)).slice(0, 80)}`).toEqual({
        isError: true,
        text: expect.stringMatching(expected)
      })
    }
    // Lines that are not JSON-RPC at all: the protocol's error or nothing, and the server goes on.
    server.send("{not json")
    server.send(JSON.stringify({ jsonrpc: "2.0", id: 999, method: "tools/call", params: "garbage" }))
    expect((await server.call("search", { query: "checkout" })).isError).toBe(false)
    expect(server.child.exitCode).toBe(null)
    expect(events(root).length).toBeGreaterThan(0)
    expect(runCli(["verify"], { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)
  })

  it("refuses a message over 10 MiB unread, answers the request it names, logs it, and reads on", async () => {
    const root = project()
    const server = await serve(root)
    const query = "x".repeat(11 * 1024 * 1024)
    // The id near the start of the line, as most clients write it.
    const first = await server.request("tools/call", { name: "search", arguments: { query } })
    expect(first.error).toEqual({
      code: -32600,
      message: expect.stringMatching(
        /^ralph-mem: a message of 1153\d{4} bytes \(request 2\), more than the 10485760 bytes \(10 MiB\) the memory /
      )
    })
    // The id last, as the MCP SDK's client writes it.
    const last = server.answerTo("last")
    server.send(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"why","arguments":{"query":"${query}"}},"id":"last"}`
    )
    expect((await last).error?.code).toBe(-32600)
    // No id either end: the refusal names no request. And a line far longer than any buffer the server could hold,
    // sent in pieces: its memory stays bounded (read whole, the line alone would take 512 MiB).
    const start = `{"jsonrpc":"2.0","params":{"padding":"`
    const piece = Buffer.alloc(1024 * 1024, "y")
    const end = `"},"id":7,"method":"tools/call"}`
    server.child.stdin.write(start)
    for (let i = 0; i < 512; i++) server.child.stdin.write(piece)
    server.send(end)
    const bytes = start.length + 512 * piece.length + end.length
    const found = await server.call("search", { query: "checkout timeout" })
    expect(found.isError).toBe(false)
    expect(found.text).toContain("CheckoutTimeoutError")
    expect(server.unaddressed()).toEqual([
      { jsonrpc: "2.0", error: { code: -32600, message: expect.stringContaining(`a message of ${bytes} bytes,`) } }
    ])
    const peak = Number(/^VmHWM:\s*(\d+) kB/m.exec(readFileSync(`/proc/${server.child.pid}/status`, "utf8"))![1])
    expect(peak * 1024).toBeLessThan(256 * 1024 * 1024)
    const logged = readFileSync(join(root, ".ralph-mem", "hooks.log"), "utf8").trim().split("\n").map((line) =>
      JSON.parse(line) as { hook: string; reason: string; sessionId: string }
    )
    expect(logged.map((entry) => [entry.hook, entry.sessionId])).toEqual([
      ["mcp:message", SESSION],
      ["mcp:message", SESSION],
      ["mcp:message", SESSION]
    ])
    expect(logged[1]!.reason).toMatch(/^a message of 1153\d{4} bytes \(request "last"\), more than the 10485760 bytes/)
    expect(runCli(["doctor"], { cwd: root, env: { RALPH_MEM_DB: "" } }).stdout).toMatch(
      new RegExp(`hook failures \\(24 h\\).*3 \\(see .*hooks\\.log\\), last: a message of ${bytes} bytes, more than`)
    )
    expect(server.child.exitCode).toBe(null)
  })

  it("keeps every answer within the configured token budget and says how to get the rest", async () => {
    const root = project()
    for (let i = 0; i < 30; i++) {
      hook(root, "PostToolUseFailure", SESSION, {
        tool_name: "Bash",
        tool_input: { command: `npm test -- budget ${i}` },
        tool_use_id: `b${i}`,
        error: `Exit code 1\nBudgetOverflowError ${"stack frame line\n".repeat(200)}`
      })
    }
    const server = await serve(root, { RALPH_MEM_TOOL_RESULT_TOKENS: "300" })
    // Refusals quote what was asked: they keep to the budget too.
    const unknown = Array.from({ length: 20 }, (_, i) => `${"x".repeat(190)}${i}`)
    const refused = await server.call("get", { ids: unknown })
    expect(refused.isError).toBe(true)
    expect(estimateTokens(refused.text)).toBeLessThanOrEqual(300)
    expect(refused.text).toMatch(/^No observation with id x+0, x+1, /)
    const found = await server.call("search", { query: "BudgetOverflowError", limit: 50 })
    expect(estimateTokens(found.text)).toBeLessThanOrEqual(300)
    expect(found.text).toMatch(/more hit\(s\) left out to keep this answer within 300 tokens/)
    const [first, second] = ids(found.text)
    const full = await server.call("get", { ids: [first, second] })
    expect(estimateTokens(full.text)).toBeLessThanOrEqual(300)
    expect(full.text).toMatch(/\n… \[\d+ characters cut\] …\n/)
    // The closing lines name the observation that was cut, and the one left out.
    expect(full.text.split("\n").slice(-2)).toEqual([
      `Cut short to fit 300 tokens; \`ralph-mem show ${first}\` (Bash) prints it whole.`,
      `Left out to keep this answer within 300 tokens: get {"ids": ["${second}"]}.`
    ])
    const around = await server.call("timeline", { around: first, before: 50, after: 50 })
    expect(estimateTokens(around.text)).toBeLessThanOrEqual(300)
    expect(around.text).toContain(`> ${first}`)
  })

  it("cuts a decision, belief or loop too long alone, its last line naming the command for the rest", async () => {
    const root = project()
    const rationale = `${"the gateway drops calls under load; ".repeat(850)}END-OF-RATIONALE`
    const decision = JSON.parse(cli(root, "decide", "Throttle the gateway client", "--why", rationale, "--json")).id
    const goal = `${"make every checkout path retry once. ".repeat(800)}END-OF-GOAL`
    cli(root, "ralph", "start", goal, "--session", SESSION, "--criteria", "custom=node fail.js")
    const server = await serve(root)
    const lastLine = (text: string) => text.split("\n").at(-1)
    const cutShort = (command: string) => `Cut short to fit 3000 tokens; \`${command}\` (Bash) prints it whole.`

    const why = (await server.call("why", { query: "throttle" })).text
    expect(estimateTokens(why)).toBeLessThanOrEqual(3000)
    expect(why).toMatch(/\n… \[\d+ characters cut\] …\n/)
    expect(lastLine(why)).toBe(cutShort(`ralph-mem show ${decision}`))
    expect(cli(root, "show", decision)).toContain("END-OF-RATIONALE")

    const korean = `${"결제 게이트웨이는 부하가 걸리면 호출을 떨어뜨린다. ".repeat(290)}끝-표시`
    expect(korean.length).toBeGreaterThan(8000)
    const saved = await server.call("remember", { kind: "belief", key: "gateway", text: korean })
    const [belief] = ids(saved.text)
    const beliefs = (await server.call("beliefs")).text
    expect(estimateTokens(beliefs)).toBeLessThanOrEqual(3000)
    expect(beliefs).toMatch(/^2 belief\(s\) about this project:\n- gateway: 결제/)
    expect(beliefs.split("\n").slice(-2)).toEqual([
      cutShort(`ralph-mem show ${belief}`),
      "1 older belief(s) left out to keep this answer within 3000 tokens: `ralph-mem belief list` (Bash) lists all."
    ])
    expect(cli(root, "show", belief!)).toContain("끝-표시")

    const status = (await server.call("loop_status")).text
    expect(estimateTokens(status)).toBeLessThanOrEqual(3000)
    const loopId = /^Ralph loop (\S+),/.exec(status)![1]!
    expect(status).toContain("make every checkout path retry once.")
    expect(lastLine(status)).toBe(cutShort(`ralph-mem ralph status --loop ${loopId} --json`))
    expect(JSON.parse(cli(root, "ralph", "status", "--loop", loopId, "--json")).goal).toBe(goal)
  })

  it("says an id was forgotten, once a forget by another process erased it", async () => {
    const root = project()
    const server = await serve(root)
    const [errorId] = ids((await server.call("search", { query: PLANTED })).text)
    cli(root, "forget", errorId!, "--confirm")
    expect(await server.call("get", { ids: [errorId] })).toEqual({
      isError: true,
      text: expect.stringContaining(
        `Forgotten (erased from memory by ralph-mem forget; nothing of them is left): ${errorId}`
      )
    })
    expect((await server.call("search", { query: PLANTED })).text).toMatch(/^Nothing in this project's memory matches/)
  })

  it("reads the restored database after a restore replaced the file mid-session, and writes into it", async () => {
    const root = project()
    const server = await serve(root)
    expect((await server.call("search", { query: "checkout" })).isError).toBe(false)
    cli(root, "backup")
    // Written after the backup: the restored database will not have it.
    expect((await server.call("remember", { kind: "note", text: "AFTER-THE-BACKUP marmot" })).isError).toBe(false)
    expect(ids((await server.call("search", { query: "marmot" })).text)).toHaveLength(1)
    const path = join(root, ".ralph-mem", "memory.db")
    const restored = restoreFromBackup(path)
    expect(restored.backup).toBeDefined()
    expect((await server.call("search", { query: "marmot" })).text).toMatch(
      /^Nothing in this project's memory matches "marmot"/
    )
    expect((await server.call("search", { query: "checkout" })).text).toContain("CheckoutTimeoutError")
    expect((await server.call("remember", { kind: "note", text: "AFTER-THE-RESTORE otter" })).isError).toBe(false)
    // It wrote into the file that is there now, not into the one set aside.
    expect(JSON.parse(cli(root, "search", "otter", "--json")).hits).toHaveLength(1)
    const damaged = readdirSync(join(root, ".ralph-mem", "damaged")).filter((f) => f.endsWith(".db"))
    expect(damaged).toHaveLength(1)
  })

  it("keeps answering while other processes replay, compact and vacuum the database", async () => {
    const root = project()
    const server = await serve(root)
    const before = (await server.call("search", { query: "checkout timeout" })).text
    expect(runCli(["replay"], { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)
    expect((await server.call("search", { query: "checkout timeout" })).text).toBe(before)
    expect(runCli(["compact", "--idle", "0", "--vacuum"], { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)
    expect((await server.call("search", { query: "checkout timeout" })).text).toBe(before)
    const [errorId] = ids(before)
    expect((await server.call("get", { ids: [errorId] })).text).toContain(PLANTED)
    expect(runCli(["verify"], { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)
  })
})

describe("ralph-mem mcp: its code cache", () => {
  /** The server's cache files in a compile-cache folder. */
  const cacheFiles = (cache: string): Array<string> => {
    const folder = join(cache, "ralph-mem")
    return existsSync(folder) ? readdirSync(folder).filter((n) => n.startsWith("mcp-")).map((n) => join(folder, n)) : []
  }
  const answersSearch = async (server: McpProcess) => {
    const answer = await server.call("search", { query: "checkout" })
    expect(answer.isError).toBe(false)
    expect(answer.text).toContain("hit(s)")
  }

  it("is written once a call is answered, taken as it is by the next server, and replaced when damaged", async () => {
    const root = project()
    const cache = join(tempFolder(), "compile-cache")
    const first = await serve(root, { NODE_COMPILE_CACHE: cache })
    expect(cacheFiles(cache)).toEqual([])
    await answersSearch(first)
    await waitFor(() => cacheFiles(cache).length === 1, 60_000)
    await first.close()
    const [file] = cacheFiles(cache)
    const written = readFileSync(file!)
    const writtenAt = statSync(file!).mtimeMs
    // V8 took it: a refused cache would be written again after the first answer, before the server exits.
    const second = await serve(root, { NODE_COMPILE_CACHE: cache })
    await answersSearch(second)
    await second.close()
    expect(statSync(file!).mtimeMs).toBe(writtenAt)
    expect(readFileSync(file!).equals(written)).toBe(true)
    // Damage that keeps its length: V8 itself would abort the compile (and the session would have no memory
    // tools). The checksum sends it to be compiled from source, and a sound cache replaces it.
    const damaged = Buffer.from(written)
    for (let i = 64; i < damaged.length; i += 997) damaged[i]! ^= 0xff
    writeFileSync(file!, damaged)
    const third = await serve(root, { NODE_COMPILE_CACHE: cache })
    await answersSearch(third)
    await waitFor(
      () => existsSync(file!) && readFileSync(file!).length > 0 && !readFileSync(file!).equals(damaged),
      60_000
    )
    expect(await third.close()).toEqual({ code: 0, signal: null })
    expect(third.stderr()).toBe("")
    const fourth = await serve(root, { NODE_COMPILE_CACHE: cache })
    await answersSearch(fourth)
    expect(await fourth.close()).toEqual({ code: 0, signal: null })
  })

  it("is neither read nor written through a link planted where it lives", async () => {
    const root = project()
    // What the link would serve: a cache under the server's own name whose code is damaged and whose checksum
    // matches the damage. Read, it kills the server before it answers (V8 checks a cache's versions, flags and
    // length, not its code): shown in a private folder first.
    const own = join(tempFolder(), "compile-cache")
    const first = await serve(root, { NODE_COMPILE_CACHE: own })
    await answersSearch(first)
    await waitFor(() => cacheFiles(own).length === 1, 60_000)
    await first.close()
    const [file] = cacheFiles(own)
    const contents = readFileSync(file!).subarray(4)
    for (let i = 64; i < contents.length; i += 997) contents[i]! ^= 0xff
    const planted = Buffer.alloc(4 + contents.length)
    planted.writeUInt32LE(crc32(contents))
    contents.copy(planted, 4)
    writeFileSync(file!, planted)
    await expect(serve(root, { NODE_COMPILE_CACHE: own })).rejects.toThrow(/exited before answering initialize/)
    const elsewhere = tempFolder()
    writeFileSync(join(elsewhere, basename(file!)), planted)
    const cache = join(tempFolder(), "compile-cache")
    mkdirSync(cache)
    symlinkSync(elsewhere, join(cache, "ralph-mem"))
    for (let i = 0; i < 2; i++) {
      const server = await serve(root, { NODE_COMPILE_CACHE: cache })
      await answersSearch(server)
      expect(await server.close()).toEqual({ code: 0, signal: null })
    }
    expect(readdirSync(elsewhere)).toEqual([basename(file!)])
    expect(readFileSync(join(elsewhere, basename(file!))).equals(planted)).toBe(true)
  })
})

describe("ralph-mem mcp lifetime", () => {
  it("exits 0 when its stdin ends, and on SIGINT", async () => {
    const root = project()
    const first = await serve(root)
    await first.call("search", { query: "checkout" })
    expect(await first.close()).toEqual({ code: 0, signal: null })
    const second = await serve(root)
    await second.call("search", { query: "checkout" })
    second.child.kill("SIGINT")
    expect(await second.exited).toEqual({ code: 0, signal: null })
    // A normal end leaves no trace.
    expect(exitsLogged(root)).toEqual([])
  })

  it("exits when writing its answers fails, and says why in hooks.log", async () => {
    const root = project()
    const server = await serve(root)
    // Claude Code's end of the server's stdout is gone; its stdin stays open.
    server.child.stdout.destroy()
    server.send(JSON.stringify({ jsonrpc: "2.0", id: "after", method: "tools/list" }))
    expect(await server.exited).toEqual({ code: 1, signal: null })
    expect(exitsLogged(root)).toEqual([
      expect.objectContaining({
        sessionId: SESSION,
        reason: expect.stringMatching(/^the memory server exited: writing to Claude Code failed: .*EPIPE/)
      })
    ])
    expect(server.stderr()).toBe("")
  })

  it("exits when reading from Claude Code fails, and says why in hooks.log", async () => {
    const root = project()
    // The server's stdin is a socket whose other end is reset: its next read fails (ECONNRESET), where a
    // closed pipe would only end.
    const listener = createServer()
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
    const { port } = listener.address() as AddressInfo
    const accepted = new Promise<Socket>((resolve) => listener.once("connection", resolve))
    const claudeEnd = connect(port, "127.0.0.1")
    const serverEnd = await accepted
    serverEnd.pause()
    const child = spawn(process.execPath, [CLI, "mcp"], {
      cwd: root,
      stdio: [serverEnd, "pipe", "pipe"],
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: root,
        ...testRunState(),
        CLAUDE_CODE_SESSION_ID: SESSION,
        CLAUDE_PROJECT_DIR: root
      }
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal }))
    )
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    // Once the server answers, it is reading its stdin: only then is the connection reset.
    const answered = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
    claudeEnd.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })}\n`)
    await answered
    serverEnd.destroy()
    listener.close()
    claudeEnd.resetAndDestroy()
    expect(await exited).toEqual({ code: 1, signal: null })
    expect(exitsLogged(root)).toEqual([
      expect.objectContaining({
        sessionId: SESSION,
        reason: expect.stringMatching(/^the memory server exited: reading from Claude Code failed: .*ECONNRESET/)
      })
    ])
    expect(stderr).toBe("")
  })

  it("exits when the MCP transport gives up, and says why in hooks.log", async () => {
    const root = project()
    // No line closes the SDK's transport: message-lines.ts hands it each line whole and within its limit, and
    // refuses a longer one. A probe preloaded into the server takes that guard away (stdin reaches the transport
    // as it comes), so one line past the limit makes the transport give up, as it would for any other reason.
    const probe = join(root, "unbounded-stdin.cjs")
    writeFileSync(
      probe,
      `if (process.argv[2] === "mcp") {
        const { Readable } = require("node:stream")
        const pipe = Readable.prototype.pipe
        Readable.prototype.pipe = function (destination, options) {
          return this === process.stdin ? this : pipe.call(this, destination, options)
        }
      }`
    )
    const server = await serve(root, { NODE_OPTIONS: `--require "${probe}"` })
    await server.call("search", { query: "checkout" })
    // The server stops reading part-way through the line: the rest of it finds no reader.
    server.child.stdin.on("error", () => {})
    server.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "long",
        method: "tools/call",
        params: { name: "search", arguments: { query: "x".repeat(MAX_MESSAGE_BYTES) } }
      })
    )
    expect(await server.exited).toEqual({ code: 1, signal: null })
    expect(exitsLogged(root)).toEqual([
      expect.objectContaining({
        sessionId: SESSION,
        reason: `the memory server exited: the MCP transport closed after an error: ReadBuffer exceeded maximum size ` +
          `of ${MAX_MESSAGE_BYTES} bytes`
      })
    ])
    expect(server.stderr()).toBe("")
    expect(runCli(["doctor"], { cwd: root, env: { RALPH_MEM_DB: "" } }).stdout).toMatch(
      /hook failures \(24 h\).*1 \(see .*hooks\.log\), last: the memory server exited: the MCP transport closed after/
    )
  })

  it("exits when the process that started it is killed, even while its stdin stays open", async () => {
    const root = project()
    // A parent that starts the server with a pipe on its stdin, hands the pipe's writing end to a third
    // process (which keeps it open after the parent is gone), waits for the server to answer initialize,
    // prints both pids, and waits.
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
    })
    const parent = spawn(
      process.execPath,
      [
        "-e",
        `
      const { spawn } = require("node:child_process")
      const server = spawn(process.execPath, [${JSON.stringify(CLI)}, "mcp"], { stdio: ["pipe", "pipe", "ignore"] })
      const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], {
        stdio: ["ignore", "ignore", "ignore", server.stdin]
      })
      server.stdout.once("data", () => process.stdout.write(server.pid + " " + holder.pid + "\\n"))
      server.stdin.write(${JSON.stringify(initialize)} + "\\n")
      setInterval(() => {}, 1000)
    `
      ],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"],
        env: { PATH: process.env["PATH"] ?? "", ...testRunState(), HOME: root }
      }
    )
    const [serverPid, holderPid] = await new Promise<Array<number>>((resolve) =>
      parent.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim().split(" ").map(Number)))
    )
    try {
      expect(isRunning(serverPid!)).toBe(true)
      parent.kill("SIGKILL")
      await waitFor(() => !isRunning(serverPid!), 60_000)
      // The pipe was still open: the server noticed its parent was gone, not an end of its input.
      expect(isRunning(holderPid!)).toBe(true)
    } finally {
      process.kill(holderPid!, "SIGKILL")
    }
  })
})

/** The entries hooks.log has for the memory server's exits. */
const exitsLogged = (root: string): Array<Record<string, unknown>> => {
  const log = join(root, ".ralph-mem", "hooks.log")
  if (!existsSync(log)) return []
  return readFileSync(log, "utf8").split("\n").filter(Boolean).map((line) =>
    JSON.parse(line) as Record<string, unknown>
  )
    .filter((entry) => entry["hook"] === "mcp:exit")
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    // A zombie (exited, not yet reaped by its new parent) is not running.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

const waitFor = async (condition: () => boolean, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${String(condition)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
