/**
 * The Ralph loop end to end: the real Claude Code CLI runs `/ralph-mem:ralph start ...` (the plugin's slash
 * command, whose shell step binds a loop to the session), and then the plugin's own Stop hook drives the loop:
 * it runs the check (`node check.js` in the project), records the iteration, and blocks the stop with the next
 * prompt until the check passes or a stop condition ends the loop. The mock Messages API plays the model and
 * records what it was sent, so every scenario asserts on the database, on `ralph status --json`, on the Stop
 * hook's output in the stream, and on the prompts the model saw.
 *
 * Iteration semantics (observed and asserted below): `ralph start` opens iteration 1; each Stop evaluates the
 * open iteration, and a block opens the next one. So the n-th re-feed works in iteration n + 1, and a fix made
 * during the 2nd re-feed makes the loop succeed at iteration 3.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import type Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testRunState } from "../support/cli.ts"
import { removeWhenSettled } from "../support/remove.ts"
import {
  type ClaudeRun,
  describeRun,
  findClaudeBinary,
  hookResponses,
  MISSING_CLAUDE_MESSAGE,
  runClaude
} from "./claude.ts"
import {
  lastToolResults,
  type MockAnthropic,
  type RecordedRequest,
  type Reply,
  startMockAnthropic,
  stringsIn
} from "./mock-anthropic.ts"

const claudeBin = findClaudeBinary()
if (claudeBin === undefined) console.warn(`tests/e2e/loop skipped: ${MISSING_CLAUDE_MESSAGE}`)
const suiteName = claudeBin === undefined
  ? `Ralph loop end to end (skipped: ${MISSING_CLAUDE_MESSAGE})`
  : "Ralph loop end to end"

/** The repository root is the plugin: `commands/ralph.md`, `hooks/hooks.json`, `dist/`. */
const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const CLI = join(REPO_ROOT, "dist", "ralph-mem.mjs")

/** Generous: one run takes about 1 s, but a busy 2-core machine can be ten times slower. */
const RUN_TIMEOUT_MS = 120_000
const SCENARIO_TIMEOUT_MS = 600_000

/**
 * How Claude Code 2.1.330 puts a Stop hook's additionalContext into the conversation: once, in a user
 * message, as `<system-reminder>\nStop hook additional context: <text>\n</system-reminder>`.
 */
const FEEDBACK = "Stop hook additional context"
/** What a `decision: block` would add (twice the prompt, and a "stop hook problem" for the user): never sent. */
const BLOCK_ERROR = "Stop hook blocking error"
/** What check.js prints when it fails: the re-fed prompt must carry it to the model. */
const FAIL_LINE = "FAIL: fixed.txt is missing"
const CRITERIA = `--criteria "custom=node check.js"`

// ---------------------------------------------------------------------------------------------------------
// Projects, mocks, sessions

const cleanups: Array<() => void | Promise<void>> = []

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/**
 * A committed git project whose `check.js` passes only once `fixed.txt` exists (or never, with `never`).
 * Its memory lands in `<project>/.ralph-mem/memory.db`.
 */
const newProject = (options: { readonly never?: boolean } = {}): string => {
  const project = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-e2e-loop-")))
  cleanups.push(() => removeWhenSettled(project))
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: project, stdio: "ignore" })
  git("init", "-q")
  git("config", "user.email", "e2e@example.com")
  git("config", "user.name", "e2e")
  const check = options.never === true
    ? `console.log(${JSON.stringify(FAIL_LINE)}); process.exit(1)\n`
    : `if (!require("fs").existsSync("fixed.txt")) { console.log(${
      JSON.stringify(FAIL_LINE)
    }); process.exit(1) }\nconsole.log("PASS")\n`
  writeFileSync(join(project, "check.js"), check)
  git("add", "-A")
  git("commit", "-qm", "initial")
  return project
}

const newMock = async (script: (request: RecordedRequest, index: number) => Reply): Promise<MockAnthropic> => {
  const mock = await startMockAnthropic({ script })
  cleanups.push(() => mock.close())
  return mock
}

/** How many Stop-hook re-feeds the conversation of a request holds: the n-th re-feed's requests say n. */
const refeedsIn = (request: RecordedRequest): number =>
  stringsIn(request.body?.messages).filter((s) => s.includes(FEEDBACK)).length

/** Whether a request answers a tool call (the model then just finishes its turn). */
const answersTool = (request: RecordedRequest): boolean => lastToolResults(request).length > 0

/** The text of a request's last `user` message. */
const lastUserText = (request: RecordedRequest): string =>
  stringsIn((request.body?.messages ?? []).findLast((m) => m.role === "user")?.content).join("\n")

const REFEED = new RegExp(`<system-reminder>\\n${FEEDBACK}: ([\\s\\S]*?)\\n</system-reminder>`)

/** The prompt a re-feed carried, from the last user message of the request that answers it. */
const refeedText = (request: RecordedRequest): string | undefined => REFEED.exec(lastUserText(request))?.[1]

/** Main requests that answer a Stop-hook re-feed (one per re-feed; the requests after a tool call are not). */
const refeedRequests = (mock: MockAnthropic): Array<RecordedRequest> =>
  mock.mainRequests().filter((r) => refeedText(r) !== undefined)

/** Everything the conversation of a request holds, as one text. */
const conversationText = (request: RecordedRequest): string => stringsIn(request.body?.messages).join("\n")

const startPrompt = (goal: string, extra = ""): string => `/ralph-mem:ralph start ${goal} ${CRITERIA}${extra}`

const runSession = (options: {
  readonly project: string
  readonly prompt: string
  readonly mock: MockAnthropic
  readonly env?: Readonly<Record<string, string>>
  readonly maxTurns?: number
}): Promise<ClaudeRun> =>
  runClaude({
    prompt: options.prompt,
    cwd: options.project,
    mock: options.mock,
    pluginDir: REPO_ROOT,
    maxTurns: options.maxTurns ?? 30,
    timeoutMs: RUN_TIMEOUT_MS,
    ...(options.env === undefined ? {} : { env: options.env })
  })

interface StopOutput {
  readonly decision?: string
  readonly hookSpecificOutput?: { readonly hookEventName: string; readonly additionalContext: string }
  readonly systemMessage?: string
}

/**
 * "continue" when the Stop hook continued the turn (never with a `decision: block`), "stop" when it let Claude
 * stop.
 */
const verdict = (
  o: StopOutput
): string => (o.decision !== undefined
  ? `decision:${o.decision}`
  : o.hookSpecificOutput === undefined
  ? "stop"
  : "continue")

/** What each Stop hook printed (`{}` for nothing: Claude may stop). */
const stopOutputs = (run: ClaudeRun): Array<StopOutput> =>
  hookResponses(run, "Stop").map((r) => {
    const out = (r.stdout ?? "").trim()
    return out === "" ? {} : (JSON.parse(out) as StopOutput)
  })

const expectCleanRun = (run: ClaudeRun, mock: MockAnthropic): void => {
  expect(run.code, describeRun(run)).toBe(0)
  expect(run.timedOut, describeRun(run)).toBe(false)
  expect(run.pluginErrors).toEqual([])
  expect(mock.scriptErrors).toEqual([])
  for (const response of hookResponses(run, "Stop")) expect(response.exit_code, response.stderr ?? "").toBe(0)
}

// ---------------------------------------------------------------------------------------------------------
// The project's memory and the CLI

/** Only what the CLI needs: no RALPH_MEM_DB or CLAUDE_* from the test's environment may redirect it. */
const cliEnv = (project: string): Record<string, string> => ({
  PATH: [dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter),
  HOME: project,
  ...testRunState(),
  NO_COLOR: "1"
})

const ralphCli = (project: string, ...args: Array<string>): string =>
  execFileSync(process.execPath, [CLI, "ralph", ...args], {
    cwd: project,
    env: cliEnv(project),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })

interface LoopStatus {
  readonly loopId: string
  readonly goal: string
  readonly status: string
  readonly iteration: number
  readonly maxIterations: number
  readonly sessionId: string | null
  readonly endReason: string | null
  readonly lastResults: ReadonlyArray<{ readonly kind: string; readonly passed: boolean }>
}

const ralphStatus = (project: string): LoopStatus => JSON.parse(ralphCli(project, "status", "--json")) as LoopStatus

interface LoopRunRow {
  readonly loop_id: string
  readonly session_id: string | null
  readonly goal: string
  readonly status: string
  readonly iterations: number
  readonly criteria_results: string | null
  readonly end_reason: string | null
}

interface LoopIterationRow {
  readonly loop_id: string
  readonly iteration: number
  readonly passed: number | null
  readonly criteria: string | null
}

const withDatabase = <T>(project: string, read: (db: Database.Database) => T): T => {
  const db = newSqliteDatabase(join(project, ".ralph-mem", "memory.db"), { readonly: true, fileMustExist: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

const loopRuns = (project: string): Array<LoopRunRow> =>
  withDatabase(
    project,
    (db) =>
      db.prepare(
        "SELECT loop_id, session_id, goal, status, iterations, criteria_results, end_reason"
          + " FROM loop_runs ORDER BY started_at"
      ).all() as Array<
        LoopRunRow
      >
  )

const loopIterations = (project: string): Array<LoopIterationRow> =>
  withDatabase(
    project,
    (db) =>
      db.prepare("SELECT loop_id, iteration, passed, criteria FROM loop_iterations ORDER BY loop_id, iteration")
        .all() as Array<LoopIterationRow>
  )

/** The one loop of a project (fails the test if there is not exactly one). */
const onlyLoop = (project: string): LoopRunRow => {
  const runs = loopRuns(project)
  expect(runs, "exactly one loop").toHaveLength(1)
  return runs[0]!
}

const hookFailureLog = (project: string): Array<string> => {
  const path = join(project, ".ralph-mem", "hooks.log")
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((line) => line !== "") : []
}

// ---------------------------------------------------------------------------------------------------------

describe.skipIf(claudeBin === undefined)(suiteName, () => {
  describe("a loop that succeeds at iteration 3", () => {
    const GOAL = "make check.js pass"
    /** Iteration n + 1 runs during the n-th re-feed: fixing during the 2nd makes iteration 3 pass. */
    const FIX_AT_REFEED = 2
    let project: string
    let mock: MockAnthropic
    let run: ClaudeRun

    beforeAll(async () => {
      project = newProject()
      const fixed = join(project, "fixed.txt")
      mock = await newMock((request) => {
        if (answersTool(request)) return "Created fixed.txt."
        const refeeds = refeedsIn(request)
        if (refeeds === FIX_AT_REFEED) {
          return {
            text: "Creating the missing file.",
            toolUses: [{ name: "Write", input: { file_path: fixed, content: "yes" } }]
          }
        }
        return refeeds === 0 ? "I looked at check.js; trying." : `Attempt ${refeeds}: still looking.`
      })
      run = await runSession({ project, prompt: startPrompt(GOAL), mock })
    }, SCENARIO_TIMEOUT_MS)

    it("runs cleanly: exit 0, every Stop hook exits 0, nothing in hooks.log", () => {
      expectCleanRun(run, mock)
      expect(hookFailureLog(project)).toEqual([])
      expect(readFileSync(join(project, "fixed.txt"), "utf8")).toBe("yes")
    })

    it("binds the loop to the session through the slash command's shell step", () => {
      const first = mock.mainRequests()[0]!
      expect(conversationText(first)).toMatch(/Ralph loop \S+ started: make check\.js pass/)
      expect(onlyLoop(project)).toMatchObject({ session_id: run.sessionId, goal: GOAL })
    })

    it("blocks twice, then lets Claude stop saying the loop succeeded at iteration 3", () => {
      const outputs = stopOutputs(run)
      expect(outputs.map((o) => verdict(o))).toEqual(["continue", "continue", "stop"])
      expect(outputs[0]?.systemMessage).toMatch(/iteration 2 of 10 \(custom failed/)
      expect(outputs[1]?.systemMessage).toMatch(/iteration 3 of 10 \(custom failed/)
      expect(outputs[2]?.systemMessage).toMatch(/the loop succeeded at iteration 3 \(custom passed\)/)
    })

    it("records success with exactly 3 iterations: 1 and 2 fail, 3 passes", () => {
      const loop = onlyLoop(project)
      expect(loop).toMatchObject({ status: "success", iterations: 3, end_reason: null })
      expect(JSON.parse(loop.criteria_results ?? "[]")).toEqual([
        expect.objectContaining({ kind: "custom", passed: true })
      ])
      const iterations = loopIterations(project)
      expect(iterations.map((it) => [it.iteration, it.passed])).toEqual([[1, 0], [2, 0], [3, 1]])
      expect(
        iterations.map((it) => (JSON.parse(it.criteria ?? "[]") as Array<{ passed: boolean }>).map((c) => c.passed))
      ).toEqual([
        [false],
        [false],
        [true]
      ])
    })

    it("agrees with ralph status --json", () => {
      const loop = onlyLoop(project)
      expect(ralphStatus(project)).toMatchObject({
        loopId: loop.loop_id,
        goal: GOAL,
        status: loop.status,
        iteration: loop.iterations,
        maxIterations: 10,
        sessionId: run.sessionId,
        lastResults: [expect.objectContaining({ kind: "custom", passed: true })]
      })
    })

    it("shows the tokens each iteration used, read from the transcript (the mock says 10 in, 5 out a request)", () => {
      const iterations = (JSON.parse(ralphCli(project, "status", "--json")) as {
        iterations: ReadonlyArray<{ iteration: number; usage: { inputTokens: number; outputTokens: number } | null }>
      }).iterations
      const reported = iterations.filter((it) => it.usage !== null)
      // The transcript lags the hooks by the last reply, so an iteration may miss messages (how many varies
      // run to run); what it reports comes from the mock's usage, and some iterations report it.
      expect(reported.length).toBeGreaterThan(0)
      for (const { usage } of reported) {
        expect(usage!.outputTokens % 5).toBe(0)
        expect(usage!.inputTokens % 10).toBe(0)
        expect(usage!.outputTokens).toBeGreaterThan(0)
      }
      expect(ralphCli(project, "status")).toMatch(
        new RegExp(`iteration ${reported[0]!.iteration}\\s+\\w+, \\d+ s, \\d+ tokens \\(in \\d+, out \\d+`)
      )
    })

    it("re-feeds the model the goal, the iteration number and the failing check's output, once per block", () => {
      const refeeds = refeedRequests(mock)
      expect(refeeds).toHaveLength(2)
      refeeds.forEach((request, i) => {
        const text = refeedText(request)!
        expect(text).toContain(`Goal: ${GOAL}`)
        expect(text).toContain(`This is iteration ${i + 2} of at most 10.`)
        expect(text).toContain(`after iteration ${i + 1} and they did not pass`)
        expect(text).toContain("node check.js")
        expect(text).toContain(FAIL_LINE)
        expect(text).toBe(stopOutputs(run)[i]?.hookSpecificOutput?.additionalContext)
        // Sent once: the prompt's goal line appears in this re-feed only, and no "blocking error" copy follows it.
        const conversation = conversationText(request)
        expect(conversation.split(`This is iteration ${i + 2} of at most 10.`)).toHaveLength(2)
        expect(conversation).not.toContain(BLOCK_ERROR)
      })
      // The model wrote the file during the 2nd re-feed, then finished that turn.
      const writes = mock.mainRequests().filter(answersTool)
      expect(writes).toHaveLength(1)
      expect(refeedsIn(writes[0]!)).toBe(FIX_AT_REFEED)
    })
  })

  describe("a loop stopped from another process while Claude works", () => {
    let project: string
    let mock: MockAnthropic
    let run: ClaudeRun
    let stopOutput = ""

    beforeAll(async () => {
      project = newProject({ never: true })
      mock = await newMock((request) => {
        // During the 1st re-feed (iteration 2), the user runs `ralph stop` in another terminal.
        if (refeedsIn(request) === 1 && stopOutput === "") stopOutput = ralphCli(project, "stop")
        return refeedsIn(request) === 0 ? "Trying." : "Still trying."
      })
      run = await runSession({ project, prompt: startPrompt("a check that never passes"), mock })
    }, SCENARIO_TIMEOUT_MS)

    it("runs cleanly and ends with exit 0", () => {
      expectCleanRun(run, mock)
      expect(run.result?.["is_error"]).toBe(false)
      expect(run.result?.["result"]).toBe("Still trying.")
      expect(hookFailureLog(project)).toEqual([])
      expect(stopOutput).toMatch(/^Loop \S+ stopped\./)
    })

    it("blocks once, then lets Claude stop without another block and without running the check again", () => {
      expect(stopOutputs(run).map((o) => verdict(o))).toEqual(["continue", "stop"])
      expect(refeedRequests(mock)).toHaveLength(1)
      expect(mock.mainRequests()).toHaveLength(2)
      // Iteration 2 was opened by the block and never evaluated: the stop ended the loop first.
      expect(loopIterations(project).map((it) => [it.iteration, it.passed])).toEqual([[1, 0], [2, null]])
    })

    it("records the loop as stopped, and ralph status agrees", () => {
      const loop = onlyLoop(project)
      expect(loop).toMatchObject({
        status: "stopped",
        iterations: 2,
        end_reason: "stopped by the user",
        session_id: run.sessionId
      })
      expect(ralphStatus(project)).toMatchObject({
        loopId: loop.loop_id,
        status: "stopped",
        iteration: 2,
        endReason: "stopped by the user"
      })
    })
  })

  describe("Claude Code's Stop-hook block cap", () => {
    const CAP = 2
    let project: string
    let mock: MockAnthropic
    let run: ClaudeRun

    beforeAll(async () => {
      project = newProject({ never: true })
      // Each turn writes a new file, so the iterations make "progress" and the no-progress condition (same
      // failure, no file changed, 3 iterations by default) cannot end the loop before the cap does.
      mock = await newMock((request) => {
        if (answersTool(request)) return `Attempt ${refeedsIn(request)} written.`
        const n = refeedsIn(request)
        return {
          toolUses: [{
            name: "Write",
            input: { file_path: join(project, `attempt-${n}.txt`), content: `attempt ${n}` }
          }]
        }
      })
      run = await runSession({
        project,
        prompt: startPrompt("a check that never passes"),
        mock,
        env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: String(CAP) }
      })
    }, SCENARIO_TIMEOUT_MS)

    it("runs cleanly, and Claude Code never has to override the hook", () => {
      expectCleanRun(run, mock)
      expect(hookFailureLog(project)).toEqual([])
      for (const text of [run.stdout, run.stderr]) {
        expect(text).not.toMatch(/blocked the turn from ending/i)
        expect(text).not.toMatch(/consecutive times/i)
      }
    })

    it("blocks exactly CAP times, then ends the loop itself and says why", () => {
      const outputs = stopOutputs(run)
      expect(outputs.map((o) => verdict(o))).toEqual([...Array.from({ length: CAP }, () => "continue"), "stop"])
      expect(refeedRequests(mock)).toHaveLength(CAP)
      const last = outputs.at(-1)!
      expect(last.systemMessage).toMatch(
        /the loop ended without success after iteration 3: .*CLAUDE_CODE_STOP_HOOK_BLOCK_CAP/
      )
      expect(last.systemMessage).toContain(`allows ${CAP} consecutive Stop-hook continuations`)
    })

    it("records the loop as failed with the cap as its reason, and ralph status agrees", () => {
      const loop = onlyLoop(project)
      expect(loop.status).toBe("failed")
      expect(loop.iterations).toBe(CAP + 1)
      expect(loop.end_reason).toContain("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")
      expect(loopIterations(project).map((it) => [it.iteration, it.passed])).toEqual([[1, 0], [2, 0], [3, 0]])
      expect(ralphStatus(project)).toMatchObject({
        loopId: loop.loop_id,
        status: "failed",
        iteration: CAP + 1,
        endReason: loop.end_reason
      })
    })
  })

  describe("no bleeding: another session in the same project while a loop is running", () => {
    let project: string
    let first: { run: ClaudeRun; mock: MockAnthropic }
    let second: { run: ClaudeRun; mock: MockAnthropic }
    let before: { runs: Array<LoopRunRow>; iterations: Array<LoopIterationRow> }

    beforeAll(async () => {
      project = newProject({ never: true })
      // Session 1 starts a loop and is cut off by --max-turns 1: Claude Code gives up after the first re-feed
      // is requested, so the loop stays `running`, bound to session 1, with iteration 2 open.
      const mock1 = await newMock(() => "Working on it.")
      const run1 = await runSession({
        project,
        prompt: startPrompt("a check that never passes"),
        mock: mock1,
        maxTurns: 1
      })
      first = { run: run1, mock: mock1 }
      before = { runs: loopRuns(project), iterations: loopIterations(project) }
      const mock2 = await newMock(() => "Hello from the second session.")
      const run2 = await runSession({ project, prompt: "Say hello", mock: mock2 })
      second = { run: run2, mock: mock2 }
    }, SCENARIO_TIMEOUT_MS)

    it("leaves session 1's loop running when Claude Code stops at --max-turns", () => {
      expect(first.run.timedOut, describeRun(first.run)).toBe(false)
      expect(first.mock.scriptErrors).toEqual([])
      expect(first.run.result?.["subtype"], describeRun(first.run)).toBe("error_max_turns")
      expect(hookFailureLog(project)).toEqual([])
      expect(stopOutputs(first.run).map((o) => verdict(o))).toEqual(["continue"])
      expect(before.runs).toEqual([
        expect.objectContaining({ status: "running", session_id: first.run.sessionId, iterations: 2 })
      ])
    })

    it("never blocks the second session's Stop, nor re-feeds its model", () => {
      expectCleanRun(second.run, second.mock)
      expect(second.run.sessionId).not.toBe(first.run.sessionId)
      const stops = hookResponses(second.run, "Stop")
      expect(stops.length).toBeGreaterThan(0)
      expect(stops.map((r) => (r.stdout ?? "").trim())).toEqual(stops.map(() => ""))
      expect(second.mock.mainRequests()).toHaveLength(1)
      expect(second.mock.mainRequests().filter((r) => conversationText(r).includes(FEEDBACK))).toEqual([])
      expect(second.run.result?.["result"]).toBe("Hello from the second session.")
    })

    it("does not touch the running loop: same rows, no check run, status unchanged", () => {
      expect(loopRuns(project)).toEqual(before.runs)
      expect(loopIterations(project)).toEqual(before.iterations)
      expect(ralphStatus(project)).toMatchObject({ status: "running", iteration: 2, sessionId: first.run.sessionId })
    })
  })

  describe("a plan loop: edits blocked, a draft critiqued, the plan accepted at iteration 2", () => {
    const FULL_PLAN = "## Goal\nCache the catalog.\n## Steps\n1. Add a map keyed by id.\n## Risks\nStale entries.\n"
      + "## Verification\nA test that reads twice.\n[PLAN_COMPLETE]"
    let project: string
    let mock: MockAnthropic
    let run: ClaudeRun

    beforeAll(async () => {
      project = newProject()
      mock = await newMock((request) => {
        if (answersTool(request)) return "## Goal\nCache the catalog.\n## Steps\n1. Add a map."
        if (refeedsIn(request) === 0) {
          return {
            text: "Let me start on the code.",
            toolUses: [
              {
                name: "Write",
                input: { file_path: join(project, "cache.ts"), content: "export const cache = new Map()" }
              },
              { name: "Bash", input: { command: "ls -la", description: "List files" } }
            ]
          }
        }
        return FULL_PLAN
      })
      run = await runSession({
        project,
        prompt: "/ralph-mem:ralph plan design a catalog cache --min-iterations 2",
        mock
      })
    }, SCENARIO_TIMEOUT_MS)

    it("runs cleanly, and the blocked Write never happens", () => {
      expectCleanRun(run, mock)
      expect(hookFailureLog(project)).toEqual([])
      expect(existsSync(join(project, "cache.ts"))).toBe(false)
    })

    it("shows the model the block as the Write's tool error, and lets the read-only command run", () => {
      const answer = mock.mainRequests().find(answersTool)!
      const [write, bash] = lastToolResults(answer)
      expect(write).toMatchObject({
        isError: true,
        text: expect.stringMatching(
          /Blocked by ralph-mem: plan loop \S+ is running in this session[\s\S]*Write edits files/
        )
      })
      expect(bash).toMatchObject({ isError: false, text: expect.stringMatching(/check\.js/) })
      expect(
        withDatabase(
          project,
          (db) =>
            db.prepare("SELECT json_extract(payload, '$.toolName') AS tool FROM events WHERE type = 'LoopToolBlocked'")
              .all()
        )
      ).toEqual([{ tool: "Write" }])
    })

    it("re-feeds the first reply as a draft to critique, then accepts the complete plan and saves it", () => {
      const outputs = stopOutputs(run)
      expect(outputs.map((o) => verdict(o))).toEqual(["continue", "stop"])
      expect(outputs[1]?.systemMessage).toMatch(/the loop succeeded at iteration 2[\s\S]*The plan is saved to /)
      const [refeed] = refeedRequests(mock)
      expect(refeedText(refeed!)).toMatch(
        new RegExp(
          /\[ralph-mem plan loop \S+\] Goal: design a catalog cache[\s\S]*Critique the previous draft first/.source
            + /[\s\S]*lacks a heading for: Risks, Verification/.source
        )
      )
      const status = JSON.parse(ralphCli(project, "status", "--json")) as {
        status: string
        mode: string
        planPath: string
      }
      expect(status).toMatchObject({ status: "success", mode: "plan" })
      expect(readFileSync(status.planPath, "utf8")).toBe(`${FULL_PLAN}\n`)
    })
  })
})
