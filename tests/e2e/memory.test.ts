/**
 * ralph-mem end to end: the real Claude Code CLI, the real plugin (this repository), a mock Messages API,
 * and a throwaway git project per scenario. Every scenario asserts twice: on what the hooks wrote into
 * `<project>/.ralph-mem/memory.db`, and on what the model was sent (the mock records every request).
 *
 * The plugin is loaded with `--plugin-dir <repo root>`, except in the last scenario, which installs it
 * from a clean clone through the local marketplace, as a user would.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import type Database from "better-sqlite3"
import { execFileSync, spawnSync } from "node:child_process"
import { randomInt } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testRunState } from "../support/cli.ts"
import { removeWhenSettled } from "../support/remove.ts"
import {
  type ClaudeRun,
  createSandbox,
  describeRun,
  findClaudeBinary,
  hookResponses,
  installPluginFromMarketplace,
  MISSING_CLAUDE_MESSAGE,
  runClaude,
  type Sandbox,
  validatePlugin
} from "./claude.ts"
import {
  bodyContains,
  lastToolResults,
  type MockAnthropic,
  type RecordedRequest,
  type Reply,
  requestsContaining,
  startMockAnthropic,
  stringsIn
} from "./mock-anthropic.ts"

const claudeBin = findClaudeBinary()
if (claudeBin === undefined) console.warn(`tests/e2e/memory skipped: ${MISSING_CLAUDE_MESSAGE}`)
const suiteName = claudeBin === undefined
  ? `ralph-mem end to end (skipped: ${MISSING_CLAUDE_MESSAGE})`
  : "ralph-mem end to end"

/** The repository root is the plugin: `.claude-plugin/`, `hooks/hooks.json`, `dist/hook.mjs`. */
const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const HOOK_SCRIPT = join(REPO_ROOT, "dist", "hook.mjs")

/** The ralph-mem hooks every `claude -p` run fires and reports in the stream (SessionEnd runs after it ends). */
const STREAMED_HOOKS = ["SessionStart", "UserPromptSubmit", "Stop"] as const

/** Generous: one run takes about 1 s, but a busy 2-core machine can be ten times slower. */
const RUN_TIMEOUT_MS = 120_000
const SCENARIO_TIMEOUT_MS = 600_000

// ---------------------------------------------------------------------------------------------------------
// Projects, mocks and sessions

const cleanups: Array<() => void | Promise<void>> = []

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A fresh temporary directory (real path: macOS and some CI runners put tmp behind a symlink). */
const temporaryDirectory = (prefix: string): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  cleanups.push(() => removeWhenSettled(dir))
  return dir
}

/** A git project, so its memory lands in `<project>/.ralph-mem/memory.db`. */
const newProject = (): string => {
  const project = temporaryDirectory("ralph-mem-e2e-project-")
  execFileSync("git", ["init", "-q", project])
  return project
}

const newSandbox = (): Sandbox => {
  const sandbox = createSandbox()
  cleanups.push(() => sandbox.cleanup())
  return sandbox
}

/** The model's side of a conversation: a Bash call. */
const bash = (command: string, id?: string): Reply => ({
  toolUses: [{ name: "Bash", input: { command, description: "Run a command" }, ...(id === undefined ? {} : { id }) }]
})

interface Session {
  readonly run: ClaudeRun
  /** This session's own mock: its `requests` are exactly what this session sent. */
  readonly mock: MockAnthropic
  readonly sessionId: string
}

interface SessionOptions {
  readonly project: string
  readonly prompt: string
  /** The model's replies, in order (then "Done."). */
  readonly replies: ReadonlyArray<Reply>
  /** Default: this repository as `--plugin-dir`; `"installed"` relies on the sandbox's installed plugin. */
  readonly plugin?: "repo" | "installed"
  readonly sandbox?: Sandbox
}

/** One `claude -p` session against its own mock; asserts it ran cleanly (exit 0, every scripted reply used). */
const runSession = async (options: SessionOptions): Promise<Session> => {
  const mock = await startMockAnthropic({ script: options.replies })
  cleanups.push(() => mock.close())
  const run = await runClaude({
    prompt: options.prompt,
    cwd: options.project,
    mock,
    maxTurns: 10,
    timeoutMs: RUN_TIMEOUT_MS,
    ...(options.plugin === "installed" ? {} : { pluginDir: REPO_ROOT }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox })
  })
  expect(run.code, describeRun(run)).toBe(0)
  expect(run.pluginErrors).toEqual([])
  expect(mock.scriptErrors).toEqual([])
  const sessionId = run.sessionId
  if (sessionId === undefined) throw new Error(`no session id in the stream: ${describeRun(run)}`)
  return { run, mock, sessionId }
}

/** Every ralph-mem hook that Claude Code reported in the stream exited 0 (they fail open, but must not fail). */
const expectHooksSucceeded = (run: ClaudeRun, hooks: ReadonlyArray<string> = STREAMED_HOOKS): void => {
  for (const hook of hooks) {
    const responses = hookResponses(run, hook)
    expect(responses.length, `${hook} ran`).toBeGreaterThan(0)
    for (const response of responses) expect(response.exit_code, `${hook}: ${response.stderr ?? ""}`).toBe(0)
  }
}

// ---------------------------------------------------------------------------------------------------------
// Reading the project's memory (read-only, straight from SQLite)

const databasePath = (project: string): string => join(project, ".ralph-mem", "memory.db")

const withDatabase = <T>(project: string, read: (db: Database.Database) => T): T => {
  const db = newSqliteDatabase(databasePath(project), { readonly: true, fileMustExist: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

interface LoggedEvent {
  readonly position: number
  readonly eventId: string
  readonly streamId: string
  readonly type: string
  readonly payload: Readonly<Record<string, unknown>>
  /** `metadata.writer`, e.g. `hook:PostToolUse`. */
  readonly writer: string
}

interface EventRow {
  readonly position: number
  readonly event_id: string
  readonly stream_id: string
  readonly type: string
  readonly payload: string
  readonly metadata: string
}

/** The whole event log, in order. */
const loggedEvents = (project: string): Array<LoggedEvent> =>
  withDatabase(
    project,
    (db) =>
      (db.prepare("SELECT position, event_id, stream_id, type, payload, metadata FROM events ORDER BY position")
        .all() as Array<EventRow>).map(
          (row) => ({
            position: row.position,
            eventId: row.event_id,
            streamId: row.stream_id,
            type: row.type,
            payload: JSON.parse(row.payload) as Record<string, unknown>,
            writer: String((JSON.parse(row.metadata) as { writer?: unknown }).writer)
          })
        )
  )

const sessionStream = (sessionId: string): string => `session:${sessionId}`

const eventsOfSession = (project: string, sessionId: string): Array<LoggedEvent> =>
  loggedEvents(project).filter((e) => e.streamId === sessionStream(sessionId))

/** The `(type, writer)` pairs of a session's stream: what happened, and which hook wrote it. */
const timelineOf = (project: string, sessionId: string): Array<[string, string]> =>
  eventsOfSession(project, sessionId).map((e) => [e.type, e.writer])

/** The one event of a type in a session's stream (fails the test if there is not exactly one). */
const onlyEvent = (project: string, sessionId: string, type: string, hookEvent?: string): LoggedEvent => {
  const matching = eventsOfSession(project, sessionId).filter(
    (e) => e.type === type && (hookEvent === undefined || e.payload["hookEvent"] === hookEvent)
  )
  expect(matching.map((e) => e.type), `exactly one ${type}${hookEvent === undefined ? "" : ` (${hookEvent})`}`).toEqual(
    [type]
  )
  return matching[0] as LoggedEvent
}

interface ObservationRow {
  readonly event_id: string
  readonly type: "tool_use" | "error" | "success" | "note"
  readonly tool_name: string | null
  readonly input_summary: string | null
  readonly content: string
  readonly error_message: string | null
  readonly files: string
}

const observationsOf = (project: string, sessionId: string): Array<ObservationRow> =>
  withDatabase(project, (db) =>
    db.prepare(
      `SELECT event_id, type, tool_name, input_summary, content, error_message, files
       FROM observations WHERE session_id = ? ORDER BY id`
    ).all(sessionId) as Array<ObservationRow>)

interface SessionRow {
  readonly project_path: string | null
  readonly source: string | null
  readonly ended_at: number | null
  readonly end_reason: string | null
  readonly prompts: number
  readonly summary: string | null
}

const sessionRowOf = (project: string, sessionId: string): SessionRow | undefined =>
  withDatabase(
    project,
    (db) =>
      db.prepare(
        "SELECT project_path, source, ended_at, end_reason, prompts, summary FROM sessions WHERE session_id = ?"
      ).get(sessionId) as
        | SessionRow
        | undefined
  )

/** How many observations the full-text index finds for one exact term (tokens are stored lowercased). */
const fullTextHits = (project: string, term: string): number =>
  withDatabase(
    project,
    (db) =>
      db.prepare("SELECT count(*) FROM observations_fts WHERE observations_fts MATCH ?").pluck().get(
        `"${term.replaceAll("\"", "\"\"")}"`
      ) as number
  )

/** The database's bytes on disk, main file and WAL (not yet checkpointed pages live there), as latin1 text. */
const databaseBytes = (project: string): string =>
  ["", "-wal", "-shm"]
    .map((suffix) => `${databasePath(project)}${suffix}`)
    .filter((path) => existsSync(path))
    // A file may vanish as we read it (the background backup's connection closing removes the WAL).
    .map((path) => {
      try {
        return readFileSync(path).toString("latin1")
      } catch {
        return ""
      }
    })
    .join("\n")

/** The lines of `.ralph-mem/hooks.log` (every hook failure), `[]` when there was none. */
const hookFailureLog = (project: string): Array<string> => {
  const path = join(project, ".ralph-mem", "hooks.log")
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((line) => line !== "") : []
}

// ---------------------------------------------------------------------------------------------------------
// Calling the hook directly, as Claude Code does: a fresh process, the payload on stdin

const runHookDirectly = (
  event: string,
  stdin: string,
  cwd: string
): { readonly code: number | null; readonly stdout: string; readonly stderr: string } => {
  const result = spawnSync(process.execPath, [HOOK_SCRIPT, event], {
    cwd,
    input: stdin,
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    // Only what a hook needs: no RALPH_MEM_DB or CLAUDE_PROJECT_DIR from the parent may redirect the database.
    env: { PATH: [dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter), HOME: cwd, ...testRunState() }
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

// ---------------------------------------------------------------------------------------------------------
// What the model was sent

/** Requests that carry ralph-mem's injected memory (its header), by index. */
const MEMORY_HEADER = "# ralph-mem: what this project's memory holds"

const requestsWithMemory = (requests: ReadonlyArray<RecordedRequest>): Array<number> =>
  requestsContaining(requests, MEMORY_HEADER)

// ---------------------------------------------------------------------------------------------------------

describe.skipIf(claudeBin === undefined)(suiteName, () => {
  describe("a session with one tool call", () => {
    const OUTPUT = "MARMOT-4242-OBSERVED"
    const COMMAND = `echo ${OUTPUT}`
    const PROMPT = "Print the marmot marker from the shell"
    const REPLY = "The marmot marker is printed."
    let project: string
    let session: Session

    beforeAll(async () => {
      project = newProject()
      session = await runSession({ project, prompt: PROMPT, replies: [bash(COMMAND, "toolu_e2e_marmot"), REPLY] })
    }, SCENARIO_TIMEOUT_MS)

    it("runs every hook cleanly: exit 0, nothing in hooks.log", () => {
      expectHooksSucceeded(session.run, [...STREAMED_HOOKS, "PostToolUse"])
      expect(hookFailureLog(project)).toEqual([])
      expect(session.run.result?.["result"]).toBe(REPLY)
    })

    it("records the session in its own stream, each event written by the matching hook", () => {
      expect(timelineOf(project, session.sessionId)).toEqual([
        ["SessionStarted", "hook:SessionStart"],
        ["PromptSubmitted", "hook:UserPromptSubmit"],
        ["ObservationRecorded", "hook:PostToolUse"],
        ["AssistantReplied", "hook:Stop"],
        ["SessionSummarized", "hook:SessionEnd"],
        ["SessionEnded", "hook:SessionEnd"]
      ])
      // Nothing else: no HookFailed, no other stream, no injection (the memory was empty).
      expect(loggedEvents(project).map((e) => e.streamId)).toEqual(Array(6).fill(sessionStream(session.sessionId)))
    })

    it("keeps the facts: project, prompt, the tool's input and output, the reply", () => {
      expect(onlyEvent(project, session.sessionId, "SessionStarted").payload).toMatchObject({
        projectPath: project,
        source: "startup"
      })
      expect(onlyEvent(project, session.sessionId, "PromptSubmitted").payload).toMatchObject({ prompt: PROMPT })
      expect(onlyEvent(project, session.sessionId, "ObservationRecorded").payload).toMatchObject({
        kind: "tool_use",
        toolName: "Bash",
        toolUseId: "toolu_e2e_marmot",
        inputSummary: COMMAND,
        content: OUTPUT
      })
      expect(onlyEvent(project, session.sessionId, "AssistantReplied").payload).toMatchObject({ message: REPLY })
      expect(onlyEvent(project, session.sessionId, "SessionEnded").payload["reason"]).toEqual(expect.any(String))
      const summarized = onlyEvent(project, session.sessionId, "SessionSummarized").payload
      expect(String(summarized["summary"])).toContain(`Asked: ${PROMPT}`)
      expect(String(summarized["summary"])).toContain(`Outcome: ${REPLY.replace(/[.!?]+$/, "")}`)
      // Every event of the session names its project, so search finds it whatever hooks ran.
      for (
        const type of [
          "PromptSubmitted",
          "ObservationRecorded",
          "AssistantReplied",
          "SessionSummarized",
          "SessionEnded"
        ]
      ) {
        expect(onlyEvent(project, session.sessionId, type).payload["projectPath"]).toBe(project)
      }
    })

    it("projects the observation and the session into the read models", () => {
      expect(observationsOf(project, session.sessionId)).toEqual([
        expect.objectContaining({
          type: "tool_use",
          tool_name: "Bash",
          input_summary: COMMAND,
          content: OUTPUT,
          error_message: null,
          files: "[]"
        })
      ])
      expect(sessionRowOf(project, session.sessionId)).toMatchObject({
        project_path: project,
        source: "startup",
        prompts: 1,
        ended_at: expect.any(Number),
        summary: expect.stringContaining(`Asked: ${PROMPT}`)
      })
    })

    it("matches what the model saw: the same tool output, and no memory injected into an empty project", () => {
      const main = session.mock.mainRequests()
      expect(main).toHaveLength(2)
      expect(lastToolResults(main[1] as RecordedRequest)).toEqual([
        expect.objectContaining({ toolUseId: "toolu_e2e_marmot", isError: false, text: OUTPUT })
      ])
      expect(requestsWithMemory(session.mock.requests)).toEqual([])
    })
  })

  describe("a second session in the same project", () => {
    const MARKER = "ZEBRA-7731-QUOKKA"
    // `# npm test` makes it a check command, so it is remembered as a success.
    const CHECK_COMMAND = `echo "PASS ${MARKER}" # npm test`
    const FIRST_PROMPT = "Fix the flaky pelican parser tests"
    let project: string
    let first: Session
    let second: Session

    beforeAll(async () => {
      project = newProject()
      first = await runSession({
        project,
        prompt: FIRST_PROMPT,
        replies: [bash(CHECK_COMMAND), "The pelican parser tests pass now."]
      })
      second = await runSession({ project, prompt: "Did the quokka check pass earlier?", replies: ["Yes, it passed."] })
    }, SCENARIO_TIMEOUT_MS)

    it("remembers the first session's check as a success", () => {
      expect(observationsOf(project, first.sessionId)).toEqual([
        expect.objectContaining({
          type: "success",
          tool_name: "Bash",
          input_summary: CHECK_COMMAND,
          content: `PASS ${MARKER}`
        })
      ])
      expect(requestsWithMemory(first.mock.requests)).toEqual([])
    })

    it("injects the first session's summary and success at SessionStart, and records what it injected", () => {
      expectHooksSucceeded(second.run)
      const injected = onlyEvent(project, second.sessionId, "ContextInjected", "SessionStart").payload
      const text = String(injected["text"])
      expect(text).toContain("## Recent sessions")
      expect(text).toContain(`Asked: ${FIRST_PROMPT}`)
      expect(text).toContain("## Recent successes")
      expect(text).toContain(MARKER)
      const [firstObservation] = observationsOf(project, first.sessionId)
      expect(injected["sources"]).toEqual(expect.arrayContaining([firstObservation?.event_id]))
      // Exactly the recorded text reached the model, in the very first request of the session.
      const [firstRequest] = second.mock.mainRequests()
      expect(bodyContains(firstRequest?.body, `SessionStart hook additional context: ${text}`)).toBe(true)
    })

    it("does not tell the prompt the matching observation again: the SessionStart told it already", () => {
      const injected = eventsOfSession(project, second.sessionId).filter((e) => e.type === "ContextInjected")
      expect(injected.map((e) => e.payload["hookEvent"])).toEqual(["SessionStart"])
      const contexts = stringsIn(second.mock.mainRequests()[0]?.body).filter((t) =>
        t.includes(" hook additional context: ")
      )
      expect(contexts.filter((t) => t.includes(MARKER))).toHaveLength(1)
    })

    it("reaches the second session's first model request with the distinctive output", () => {
      const main = second.mock.mainRequests()
      expect(main).toHaveLength(1)
      expect(requestsContaining(main, MARKER)).toEqual([0])
      expect(hookFailureLog(project)).toEqual([])
    })
  })

  describe("a failing tool", () => {
    const NOISY_FAILURE = `echo "compiling widget"; echo "error TS2322: widget mismatch" >&2; exit 1`
    let project: string
    let session: Session

    beforeAll(async () => {
      project = newProject()
      session = await runSession({
        project,
        prompt: "Build the widget",
        replies: [bash(NOISY_FAILURE, "toolu_e2e_noisy"), bash("exit 3", "toolu_e2e_silent"), "Both commands failed."]
      })
    }, SCENARIO_TIMEOUT_MS)

    it("is recorded as an error observation by PostToolUseFailure, with the exit code", () => {
      expectHooksSucceeded(session.run, [...STREAMED_HOOKS, "PostToolUseFailure"])
      expect(hookResponses(session.run, "PostToolUse")).toEqual([])
      expect(timelineOf(project, session.sessionId).filter(([type]) => type === "ObservationRecorded")).toEqual([
        ["ObservationRecorded", "hook:PostToolUseFailure"],
        ["ObservationRecorded", "hook:PostToolUseFailure"]
      ])
      const [noisy, silent] = observationsOf(project, session.sessionId)
      expect(silent).toMatchObject({
        type: "error",
        tool_name: "Bash",
        input_summary: "exit 3",
        error_message: "Exit code 3"
      })
      expect(noisy).toMatchObject({ type: "error", tool_name: "Bash", input_summary: NOISY_FAILURE })
      expect(noisy?.error_message).toContain("Exit code 1")
    })

    // Claude Code 2.1.330 puts the command's output after "Exit code N" in PostToolUseFailure's `error`.
    it("keeps the failing command's stdout and stderr, which the error carries", () => {
      const [noisy] = observationsOf(project, session.sessionId)
      expect(noisy?.content).toMatch(/^Exit code 1\n/)
      expect(noisy?.content).toContain("compiling widget")
      expect(noisy?.content).toContain("error TS2322: widget mismatch")
    })

    it("matches what the model saw: both tool results are errors", () => {
      const main = session.mock.mainRequests()
      expect(main).toHaveLength(3)
      expect(lastToolResults(main[1] as RecordedRequest)).toEqual([
        expect.objectContaining({ toolUseId: "toolu_e2e_noisy", isError: true })
      ])
      expect(lastToolResults(main[2] as RecordedRequest)).toEqual([
        expect.objectContaining({ toolUseId: "toolu_e2e_silent", isError: true })
      ])
      expect(sessionRowOf(project, session.sessionId)?.summary).toContain("Errors (2 commands, 0 fixed)")
    })
  })

  describe("an error fixed in one session, and back in the next", () => {
    /** A project whose `npm test` fails while src/auth.js sets `expiresIn: 0`. */
    const BROKEN = "module.exports = { expiresIn: 0 }\n"
    const CHECK = [
      `const src = require("fs").readFileSync("src/auth.js", "utf8")`,
      `if (src.includes("expiresIn: 0")) {`,
      `  console.log(" FAIL  src/auth.test.js > login > refreshes the token")`,
      `  console.error("TokenExpiredError: jwt expired")`,
      `  process.exit(1)`,
      `}`,
      `console.log(" ✓ src/auth.test.js (1 test)")`
    ].join("\n")
    /** Every context ralph-mem's hooks put into a request, as Claude Code labels it. */
    const contextsIn = (request: RecordedRequest | undefined): Array<string> =>
      stringsIn(request?.body).filter((text) => / hook additional context: /.test(text) && text.includes("ralph-mem"))
    let project: string
    let fixing: Session
    let again: Session

    beforeAll(async () => {
      project = newProject()
      writeFileSync(
        join(project, "package.json"),
        JSON.stringify({ name: "auth", version: "1.0.0", scripts: { test: "node check.js" } })
      )
      writeFileSync(join(project, "check.js"), CHECK)
      mkdirSync(join(project, "src"))
      const auth = join(project, "src", "auth.js")
      writeFileSync(auth, BROKEN)
      fixing = await runSession({
        project,
        prompt: "The login test fails; fix it",
        replies: [
          bash("npm test", "toolu_e2e_fail"),
          { toolUses: [{ name: "Read", input: { file_path: auth } }] },
          {
            toolUses: [{
              name: "Edit",
              input: { file_path: auth, old_string: "expiresIn: 0", new_string: "expiresIn: 3600" }
            }]
          },
          bash("npm test", "toolu_e2e_pass"),
          "Fixed: the token lives an hour."
        ]
      })
      // The fix is undone (a bad merge): the same failure comes back in the next session.
      writeFileSync(auth, BROKEN)
      again = await runSession({
        project,
        prompt: "Check the test suite",
        replies: [bash("npm test", "toolu_e2e_again"), "It fails again."]
      })
    }, SCENARIO_TIMEOUT_MS)

    it("records the failure, the edit and the passing run of the fixing session", () => {
      expectHooksSucceeded(fixing.run, [...STREAMED_HOOKS, "PostToolUse", "PostToolUseFailure"])
      expect(observationsOf(project, fixing.sessionId).map((o) => [o.type, o.tool_name, o.input_summary])).toEqual([
        ["error", "Bash", "npm test"],
        ["tool_use", "Read", expect.stringContaining("src/auth.js")],
        ["tool_use", "Edit", expect.stringContaining("src/auth.js")],
        ["success", "Bash", "npm test"]
      ])
      expect(hookFailureLog(project)).toEqual([])
    })

    it("tells the next session the lesson, not the error", () => {
      expectHooksSucceeded(again.run, [...STREAMED_HOOKS, "PostToolUseFailure"])
      const text = String(onlyEvent(project, again.sessionId, "ContextInjected", "SessionStart").payload["text"])
      expect(text).toMatch(
        new RegExp(
          String.raw`## Lessons: errors fixed since\n- ${"`"}npm test${"`"} failed @\d+ .* ` +
            String.raw`with FAIL src\/auth\.test\.js > login > refreshes the token: `
        )
      )
      // What failed in the error's own words, and the line the edit that fixed it changed.
      expect(text).toMatch(/: TokenExpiredError: jwt expired; fixed: edited src\/auth\.js \(`expiresIn: 3600`\) @\d+/)
      expect(text).not.toContain("## Open errors")
      expect(text).toContain("`ralph-mem show <id>`")
      expect(bodyContains(again.mock.mainRequests()[0]?.body, `SessionStart hook additional context: ${text}`)).toBe(
        true
      )
    })

    it("answers the failing npm test with the recall, in the very next request, recorded", () => {
      const recall = onlyEvent(project, again.sessionId, "ContextInjected", "PostToolUseFailure").payload
      const lesson = /- `npm test` failed (@\d+) /.exec(
        String(onlyEvent(project, again.sessionId, "ContextInjected", "SessionStart").payload["text"])
      )?.[1]
      expect(String(recall["text"])).toMatch(
        new RegExp(
          `^ralph-mem: this failure was seen before and fixed: the lesson ${lesson} this session was told ` +
            `\\(edited src/auth\\.js \\(\`expiresIn: 3600\`\\) @\\d+\\)`
        )
      )
      const [first, next] = again.mock.mainRequests()
      expect(bodyContains(first?.body, String(recall["text"]))).toBe(false)
      expect(bodyContains(next?.body, String(recall["text"]))).toBe(true)
      // The request that answers the failed tool call, the recall right after its result.
      const messages = stringsIn(next?.body?.messages)
      expect(messages.indexOf("toolu_e2e_again")).toBeGreaterThanOrEqual(0)
      expect(messages.findIndex((m) => m.includes(String(recall["text"])))).toBeGreaterThan(
        messages.indexOf("toolu_e2e_again")
      )
    })

    it("repeats no item within a request", () => {
      for (const request of again.mock.mainRequests()) {
        const lines = contextsIn(request).flatMap((text) => text.split("\n")).filter((line) => line.startsWith("- "))
        expect(lines.length).toBeGreaterThan(0)
        expect(lines).toEqual([...new Set(lines)])
        expect(contextsIn(request).filter((text) => text.includes("refreshes the token"))).toHaveLength(1)
      }
    })
  })

  describe("privacy: <private> blocks and secrets never reach the database or later sessions", () => {
    const PIN = "4417"
    const PRIVATE_TEXT = `my pin is ${PIN}`
    const SECRET_BODY = randomAlphanumerics(40)
    const API_KEY = `sk-ant-api03-${SECRET_BODY}`
    /**
     * The pin as a word of its own: a bare "4417" also turns up by chance inside random ids (a UUID's hex,
     * a ULID), which are stored too. In text the pin follows a space; in an id it sits between id characters.
     */
    const PIN_AS_A_WORD = new RegExp(String.raw`(?<![\w-])${PIN}(?![\w-])`)
    const leaks = (text: string): Array<string> =>
      [
        PIN_AS_A_WORD.test(text) ? PIN : undefined,
        text.includes(API_KEY) ? "api key" : undefined,
        text.includes(SECRET_BODY) ? "api key body" : undefined
      ]
        .filter((leak): leak is string => leak !== undefined)
    let project: string
    let first: Session
    let second: Session

    beforeAll(async () => {
      project = newProject()
      first = await runSession({
        project,
        prompt: `Deploy the otter service. <private>${PRIVATE_TEXT}</private> Use the key ${API_KEY} for it.`,
        replies: [bash(`echo "otter deploy used ${API_KEY}"`), `Deployed the otter service with ${API_KEY}.`]
      })
      second = await runSession({ project, prompt: "How did the otter deploy go?", replies: ["It went fine."] })
    }, SCENARIO_TIMEOUT_MS)

    it("sends the first prompt and tool output to the model as Claude Code does (not ralph-mem's to filter)", () => {
      const main = first.mock.mainRequests()
      expect(requestsContaining(main, PRIVATE_TEXT)).toEqual([0, 1])
      expect(requestsContaining(main, API_KEY)).toEqual([0, 1])
    })

    it("stores the session with the private block replaced and the key masked", () => {
      expectHooksSucceeded(first.run, [...STREAMED_HOOKS, "PostToolUse"])
      expect(onlyEvent(project, first.sessionId, "PromptSubmitted").payload["prompt"]).toBe(
        "Deploy the otter service. [private] Use the key [secret:anthropic-key] for it."
      )
      expect(observationsOf(project, first.sessionId)).toEqual([
        expect.objectContaining({
          input_summary: `echo "otter deploy used [secret:anthropic-key]"`,
          content: "otter deploy used [secret:anthropic-key]"
        })
      ])
      expect(onlyEvent(project, first.sessionId, "AssistantReplied").payload["message"]).toBe(
        "Deployed the otter service with [secret:anthropic-key]."
      )
    })

    it("leaves no trace of the pin or the key in the database files, the full-text index or hooks.log", () => {
      expect(leaks(databaseBytes(project))).toEqual([])
      expect(databaseBytes(project)).not.toContain(PRIVATE_TEXT)
      expect(fullTextHits(project, PIN)).toBe(0)
      expect(fullTextHits(project, SECRET_BODY.toLowerCase())).toBe(0)
      expect(fullTextHits(project, "otter")).toBeGreaterThan(0) // the index does hold the rest of the observation
      expect(hookFailureLog(project)).toEqual([])
    })

    it("injects the redacted memory into the second session, and neither secret reaches any of its requests", () => {
      expectHooksSucceeded(second.run)
      const atStart = String(onlyEvent(project, second.sessionId, "ContextInjected", "SessionStart").payload["text"])
      expect(atStart).toContain("Asked: Deploy the otter service. [private] Use the key [secret:anthropic-key] for it")
      const related = String(
        onlyEvent(project, second.sessionId, "ContextInjected", "UserPromptSubmit").payload["text"]
      )
      expect(related).toContain("otter deploy used [secret:anthropic-key]")
      expect(requestsWithMemory(second.mock.requests).length).toBeGreaterThan(0)
      for (const [index, request] of second.mock.requests.entries()) {
        expect(leaks(JSON.stringify(request.body ?? null)), `request ${index} (${request.kind})`).toEqual([])
      }
    })
  })

  describe("a malformed hook payload", () => {
    const MALFORMED_PAYLOADS = ["{not json", "", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`]
    let project: string
    let before: Array<LoggedEvent>
    let results: Array<ReturnType<typeof runHookDirectly>>

    beforeAll(async () => {
      project = newProject()
      await runSession({ project, prompt: "First session before the garbage", replies: [bash("echo before")] })
      before = loggedEvents(project)
      results = MALFORMED_PAYLOADS.map((payload) => runHookDirectly("PostToolUse", payload, project))
    }, SCENARIO_TIMEOUT_MS)

    it("exits 0 and prints nothing, each time", () => {
      expect(results).toEqual(MALFORMED_PAYLOADS.map(() => ({ code: 0, stdout: "", stderr: "" })))
    })

    it("leaves the log intact, adding only one HookFailed event per bad payload, and logs each failure", () => {
      const after = loggedEvents(project)
      expect(after.slice(0, before.length)).toEqual(before)
      const added = after.slice(before.length)
      expect(added.map((e) => [e.type, e.streamId, e.writer])).toEqual(
        MALFORMED_PAYLOADS.map(() => ["HookFailed", "hooks:failures", "hook:PostToolUse"])
      )
      expect(added[0]?.payload).toMatchObject({ hook: "PostToolUse", reason: expect.stringContaining("not JSON") })
      const logged = hookFailureLog(project).map((line) => JSON.parse(line) as { hook: string; reason: string })
      expect(logged).toHaveLength(MALFORMED_PAYLOADS.length)
      expect(logged.every((entry) => entry.hook === "PostToolUse" && entry.reason.includes("malformed hook input")))
        .toBe(true)
      expect(withDatabase(project, (db) => db.pragma("integrity_check", { simple: true }))).toBe("ok")
    })

    it("does not stop the next real session from recording", async () => {
      const session = await runSession({
        project,
        prompt: "Second session after the garbage",
        replies: [bash("echo after"), "Still fine."]
      })
      expectHooksSucceeded(session.run, [...STREAMED_HOOKS, "PostToolUse"])
      // The first session's memory is injected too; what matters here is that every hook recorded.
      const recorded = timelineOf(project, session.sessionId).map(([type]) => type).filter((type) =>
        type !== "ContextInjected"
      )
      expect(recorded).toEqual([
        "SessionStarted",
        "PromptSubmitted",
        "ObservationRecorded",
        "AssistantReplied",
        "SessionSummarized",
        "SessionEnded"
      ])
      expect(hookFailureLog(project)).toHaveLength(MALFORMED_PAYLOADS.length)
    }, SCENARIO_TIMEOUT_MS)
  })

  describe("installed from a clean clone through the local marketplace", () => {
    let clone: string

    beforeAll(() => {
      clone = join(temporaryDirectory("ralph-mem-e2e-clone-"), "ralph-mem")
      execFileSync("git", ["clone", "-q", REPO_ROOT, clone])
    }, SCENARIO_TIMEOUT_MS)

    it("passes claude plugin validate --strict (the marketplace's plugin, plugin/)", async () => {
      const result = await validatePlugin(join(clone, "plugin"), { timeoutMs: RUN_TIMEOUT_MS })
      expect(result.code, result.stdout + result.stderr).toBe(0)
    }, SCENARIO_TIMEOUT_MS)

    it("records a session run without --plugin-dir", async () => {
      const sandbox = newSandbox()
      await installPluginFromMarketplace({
        sandbox,
        marketplaceDir: clone,
        plugin: "ralph-mem",
        marketplace: "ralph-mem",
        timeoutMs: RUN_TIMEOUT_MS
      })
      const project = newProject()
      const session = await runSession({
        project,
        prompt: "Say hello through the installed plugin",
        replies: [bash("echo INSTALLED-PLUGIN-HELLO"), "Hello."],
        plugin: "installed",
        sandbox
      })
      expect(session.run.args).not.toContain("--plugin-dir")
      expect(session.run.init?.["plugins"]).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: "ralph-mem", path: join(clone, "plugin") })])
      )
      expectHooksSucceeded(session.run, [...STREAMED_HOOKS, "PostToolUse"])
      expect(timelineOf(project, session.sessionId)).toEqual([
        ["SessionStarted", "hook:SessionStart"],
        ["PromptSubmitted", "hook:UserPromptSubmit"],
        ["ObservationRecorded", "hook:PostToolUse"],
        ["AssistantReplied", "hook:Stop"],
        ["SessionSummarized", "hook:SessionEnd"],
        ["SessionEnded", "hook:SessionEnd"]
      ])
      expect(observationsOf(project, session.sessionId)).toEqual([
        expect.objectContaining({ tool_name: "Bash", content: "INSTALLED-PLUGIN-HELLO" })
      ])
      expect(lastToolResults(session.mock.mainRequests()[1] as RecordedRequest)).toEqual([
        expect.objectContaining({ isError: false, text: "INSTALLED-PLUGIN-HELLO" })
      ])
      expect(hookFailureLog(project)).toEqual([])
    }, SCENARIO_TIMEOUT_MS)
  })
})

/** `length` random letters and digits (the shape of a real key's body). */
function randomAlphanumerics(length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join("")
}
