/**
 * The memory tools end to end: the real Claude Code CLI starts the plugin's MCP server from .mcp.json,
 * and the mock model calls its tools by name (`mcp__plugin_ralph-mem_memory__<tool>`: Claude Code defers
 * MCP tools behind ToolSearch, but a direct call works) and `ralph-mem` through Bash (the plugin's bin/
 * is on the Bash tool's PATH). What a tool answered must be in the next request's tool_result; what it
 * remembered must be in the next session's SessionStart context; and once Claude Code is gone, whether
 * it exited or was SIGKILLed, no ralph-mem process of its session may be left.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeWhenSettled } from "../support/remove.ts"
import {
  createSandbox,
  describeRun,
  findClaudeBinary,
  isolatedEnv,
  MISSING_CLAUDE_MESSAGE,
  runClaude,
  type Sandbox
} from "./claude.ts"
import {
  bodyContains,
  lastToolResults,
  type RecordedRequest,
  type Reply,
  startMockAnthropic
} from "./mock-anthropic.ts"

const claudeBin = findClaudeBinary()
if (claudeBin === undefined) console.warn(`tests/e2e/mcp skipped: ${MISSING_CLAUDE_MESSAGE}`)

const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const TOOL = (name: string) => `mcp__plugin_ralph-mem_memory__${name}`
const RUN_TIMEOUT_MS = 120_000
const SCENARIO_TIMEOUT_MS = 600_000

const cleanups: Array<() => void | Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const newProject = (): string => {
  const project = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-e2e-mcp-")))
  cleanups.push(() => removeWhenSettled(project))
  execFileSync("git", ["init", "-q", project])
  return project
}

const newSandbox = (): Sandbox => {
  const sandbox = createSandbox()
  cleanups.push(() => sandbox.cleanup())
  return sandbox
}

/** One `claude -p` session in `project` against its own scripted mock; it must run cleanly. */
const session = async (
  project: string,
  sandbox: Sandbox,
  prompt: string,
  script: ReadonlyArray<Reply> | ((request: RecordedRequest, index: number) => Reply)
) => {
  const mock = await startMockAnthropic({ script })
  cleanups.push(() => mock.close())
  const run = await runClaude({
    prompt,
    cwd: project,
    mock,
    pluginDir: REPO_ROOT,
    maxTurns: 10,
    timeoutMs: RUN_TIMEOUT_MS,
    sandbox
  })
  expect(run.code, describeRun(run)).toBe(0)
  expect(run.pluginErrors).toEqual([])
  expect(mock.scriptErrors).toEqual([])
  expect(run.init?.["mcp_servers"]).toEqual(
    expect.arrayContaining([{ name: "plugin:ralph-mem:memory", status: "connected", source: "plugin" }])
  )
  if (run.sessionId === undefined) throw new Error(`no session id: ${describeRun(run)}`)
  return { run, mock, sessionId: run.sessionId, main: mock.mainRequests() }
}

interface LoggedEvent {
  readonly streamId: string
  readonly type: string
  readonly writer: string
  readonly payload: Record<string, unknown>
}

const loggedEvents = (project: string): Array<LoggedEvent> => {
  const db = newSqliteDatabase(join(project, ".ralph-mem", "memory.db"), { readonly: true, fileMustExist: true })
  try {
    return (
      db.prepare("SELECT stream_id AS streamId, type, metadata, payload FROM events ORDER BY position").all() as Array<{
        streamId: string
        type: string
        metadata: string
        payload: string
      }>
    ).map((r) => ({
      streamId: r.streamId,
      type: r.type,
      writer: String(JSON.parse(r.metadata).writer),
      payload: JSON.parse(r.payload) as Record<string, unknown>
    }))
  } finally {
    db.close()
  }
}

const ulids = (text: string): Array<string> => [
  ...new Set([...text.matchAll(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g)].map((m) => m[0]))
]

/**
 * The tool result for `toolUseId` in `request`: in its last message that has one (Claude Code may append a
 * system message after it).
 */
const toolResult = (request: RecordedRequest | undefined, toolUseId: string) => {
  for (const message of [...(request?.body?.messages ?? [])].reverse()) {
    const found = lastToolResults({ ...request!, body: { messages: [message] } }).find((r) => r.toolUseId === toolUseId)
    if (found !== undefined) return found
  }
  throw new Error(`no tool_result for ${toolUseId}`)
}

/**
 * The ralph-mem processes of a sandbox (its MCP server, hooks, the maintenance a SessionEnd starts):
 * every process whose command line names ralph-mem's bundles and whose HOME is the sandbox's, zombies
 * (exited, not yet reaped) left out.
 */
const ralphMemProcesses = (sandbox: Sandbox): Array<string> =>
  readdirSync("/proc")
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
        if (!cmdline.includes(join(REPO_ROOT, "dist"))) return []
        if (!readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${sandbox.home}`)) return []
        if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) return []
        return [`${pid}: ${cmdline}`]
      } catch {
        return [] // gone meanwhile
      }
    })

const waitFor = async (what: string, condition: () => boolean, timeoutMs = 120_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe.skipIf(claudeBin === undefined)("ralph-mem memory tools with the real Claude Code", () => {
  it(
    "is found by Claude Code's ToolSearch with the words a model would search with",
    async () => {
      // Claude Code lists MCP tools only by name and defers their schemas: a model finds them with ToolSearch.
      const expected: ReadonlyArray<[string, string]> = [
        ["how was this error fixed before", "search"],
        ["decision rationale why", "why"],
        ["save a note for later sessions", "remember"],
        ["ralph loop iteration failing checks", "loop_status"],
        ["task handoff", "task"]
      ]
      const found = await session(
        newProject(),
        newSandbox(),
        "Find the memory tools",
        (_, index) =>
          index < expected.length
            ? {
              toolUses: [
                { id: `toolu_find_${index}`, name: "ToolSearch", input: { query: expected[index]![0], max_results: 3 } }
              ]
            }
            : "Found them."
      )
      expected.forEach(([query, tool], index) => {
        const names = toolResult(found.main[index + 1], `toolu_find_${index}`)
          .text.split("\n")
          .filter((l) => l.startsWith("mcp__"))
        expect(names[0], query).toBe(TOOL(tool))
      })
    },
    SCENARIO_TIMEOUT_MS
  )

  describe("search, then get, through direct tool calls", () => {
    const MARKER = "PELICAN-9931-PARSE"
    let project: string
    let sandbox: Sandbox
    let errorId: string
    let second: Awaited<ReturnType<typeof session>>

    beforeAll(async () => {
      project = newProject()
      sandbox = newSandbox()
      await session(project, sandbox, "Parse the pelican feed", [
        {
          toolUses: [
            {
              name: "Bash",
              input: { command: `echo "${MARKER}: unexpected token at line 3" >&2; exit 1`, description: "parse" }
            }
          ]
        },
        "It failed."
      ])
      second = await session(project, sandbox, "What went wrong with the pelican feed last time?", (request, index) => {
        if (index === 0) {
          return { toolUses: [{ id: "toolu_mcp_search", name: TOOL("search"), input: { query: MARKER } }] }
        }
        if (index === 1) {
          // The model opens the first hit it was given.
          errorId = ulids(toolResult(request, "toolu_mcp_search").text)[0]!
          return { toolUses: [{ id: "toolu_mcp_get", name: TOOL("get"), input: { ids: [errorId] } }] }
        }
        return "The parser hit an unexpected token at line 3."
      })
    }, SCENARIO_TIMEOUT_MS)

    it("gives the search hits in the next request's tool_result, each with its id", () => {
      const result = toolResult(second.main[1], "toolu_mcp_search")
      expect(result.isError).toBe(false)
      expect(result.text).toContain(`${errorId} `)
      expect(result.text).toContain(MARKER)
      expect(result.text).toContain("More: get {\"ids\": [")
    })

    it("gives the observation in full in the tool_result after get", () => {
      const result = toolResult(second.main[2], "toolu_mcp_get")
      expect(result.isError).toBe(false)
      expect(result.text).toContain(`## ${errorId} [error]`)
      expect(result.text).toContain(`${MARKER}: unexpected token at line 3`)
      expect(result.text).toContain("tool: Bash")
    })

    it("records both calls, with Claude Code's tool_use ids, and no observation of them", () => {
      const events = loggedEvents(project).filter((e) => e.streamId === `session:${second.sessionId}`)
      const calls = events.filter((e) => e.type === "MemoryToolCalled")
      expect(calls.map((e) => [e.payload["tool"], e.payload["toolUseId"], e.writer])).toEqual([
        ["search", "toolu_mcp_search", "mcp:search"],
        ["get", "toolu_mcp_get", "mcp:get"]
      ])
      expect(calls[0]?.payload).toMatchObject({ query: MARKER, returned: expect.arrayContaining([errorId]) })
      expect(calls[1]?.payload).toMatchObject({ ids: [errorId], returned: [errorId] })
      expect(events.filter((e) => e.type === "ObservationRecorded")).toEqual([])
    })

    it(
      "runs ralph-mem show <id> from Claude's Bash tool: the plugin's bin/ is on its PATH",
      async () => {
        const shown = await session(project, sandbox, "Show that memory in full", [
          {
            toolUses: [
              { id: "toolu_show", name: "Bash", input: { command: `ralph-mem show ${errorId}`, description: "show" } }
            ]
          },
          "Shown."
        ])
        const result = toolResult(shown.main[1], "toolu_show")
        expect(result.isError, result.text).toBe(false)
        expect(result.text).toContain(`${errorId}  (error, session `)
        expect(result.text).toContain(`${MARKER}: unexpected token at line 3`)
      },
      SCENARIO_TIMEOUT_MS
    )

    it("leaves no ralph-mem process of the sessions behind once Claude Code has exited", async () => {
      await waitFor("the sandbox's ralph-mem processes to end", () => ralphMemProcesses(sandbox).length === 0)
    })
  })

  describe("remember in one session", () => {
    const NOTE = "Releases are cut from the otter-7 branch, never from main"
    let project: string
    let next: Awaited<ReturnType<typeof session>>
    let saved: string

    beforeAll(async () => {
      project = newProject()
      const sandbox = newSandbox()
      const first = await session(project, sandbox, "Remember how releases work", [
        { toolUses: [{ id: "toolu_remember", name: TOOL("remember"), input: { kind: "note", text: NOTE } }] },
        "Noted."
      ])
      saved = toolResult(first.main[1], "toolu_remember").text
      next = await session(project, sandbox, "Cut a release", ["On it."])
    }, SCENARIO_TIMEOUT_MS)

    it("answers with the new memory's id", () => {
      expect(saved).toMatch(
        /Remembered as a note: later sessions of this project are told it at their start\. Its id: \w{26}/
      )
      const notes = loggedEvents(project).filter((e) => e.type === "NoteInjected")
      expect(notes.map((e) => [e.payload["text"], e.writer])).toEqual([[NOTE, "mcp:remember"]])
    })

    it("is injected at the next session's start", () => {
      const injected = loggedEvents(project).find(
        (e) =>
          e.type === "ContextInjected" &&
          e.streamId === `session:${next.sessionId}` &&
          e.payload["hookEvent"] === "SessionStart"
      )
      expect(String(injected?.payload["text"])).toContain(NOTE)
      expect(injected?.payload["sources"]).toEqual(expect.arrayContaining([ulids(saved)[0]]))
      expect(bodyContains(next.main[0]?.body, NOTE)).toBe(true)
    })
  })

  it(
    "leaves no ralph-mem process behind when Claude Code is SIGKILLed mid-session",
    async () => {
      const project = newProject()
      const sandbox = newSandbox()
      // An API that accepts the request and never answers: Claude Code waits, its MCP server is up.
      const hanging = createServer(() => {})
      await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r))
      cleanups.push(
        () =>
          new Promise<void>((r) => {
            hanging.closeAllConnections()
            hanging.close(() => r())
          })
      )
      const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`
      const claude = spawn(
        claudeBin!,
        [
          "-p",
          "Wait for me",
          "--output-format",
          "stream-json",
          "--verbose",
          "--dangerously-skip-permissions",
          "--plugin-dir",
          REPO_ROOT
        ],
        {
          cwd: project,
          env: isolatedEnv(sandbox, url),
          stdio: ["ignore", "ignore", "ignore"]
        }
      )
      try {
        await waitFor(
          "the memory server to start",
          () => ralphMemProcesses(sandbox).some((p) => p.includes("ralph-mem.mjs mcp")),
          60_000
        )
        claude.kill("SIGKILL")
        await waitFor("the sandbox's ralph-mem processes to end", () => ralphMemProcesses(sandbox).length === 0)
      } finally {
        if (claude.exitCode === null && claude.signalCode === null) claude.kill("SIGKILL")
      }
    },
    SCENARIO_TIMEOUT_MS
  )
})
