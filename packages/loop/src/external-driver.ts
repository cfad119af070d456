/**
 * The external driver, the original Ralph way: a fresh agent process per iteration (default `claude -p`),
 * given the generated prompt as its last argument, then the same criteria, records and stop conditions
 * as in a session. The agent runs without a shell. Before each iteration the loop is re-read from the
 * log, so a stop issued from another process ends it. In a PRD loop each iteration works on one story,
 * and what it learned is recorded for the iterations after it (the role progress.txt plays elsewhere).
 */
import type { CriterionResult, IterationUsage, RalphMemEvent } from "@ralph-mem/events"
import { homeFolder, streams } from "@ralph-mem/events"
import { estimateTokens, type MemoryStore } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { type AgentReport, limitBackoffMs, readAgentReport, withMachineReadableOutput } from "./agent-report.ts"
import { type CommandOutcome, runCommand } from "./criteria/index.ts"
import { closeIteration, settleOrBegin, succeed } from "./iteration.ts"
import { agentSession, loopMemory } from "./loop-memory.ts"
import { execute, loadLoop } from "./loop-stream.ts"
import { nextStep } from "./policy.ts"
import { iterationPrompt, promptChars } from "./prompt.ts"
import { iterationOpen, type Loop, storyOf } from "./state.ts"

export interface ExternalOptions {
  readonly agent: ReadonlyArray<string>
  readonly env: NodeJS.ProcessEnv
  /** How long one agent run may take. */
  readonly agentTimeoutMs: number
  readonly injectionBudgetTokens: number
  /** Called after each iteration, for progress output. */
  readonly onIteration?: (loop: Loop) => void
  /** Called when a wait for a limit starts and about once a second while it lasts, for a countdown. */
  readonly onWait?: (wait: LimitWaitProgress) => void
}

export interface LimitWaitProgress {
  readonly loopId: string
  readonly iteration: number
  readonly limit: "rate_limit" | "usage_limit"
  readonly until: number
  readonly resetReported: boolean
  readonly message: string
  readonly remainingMs: number
}

const WRITER = "cli:ralph-run"
const AGENT_OUTPUT_CHARS = 4_000
const LEARNING_CHARS = 1_500

const failureOf = (outcome: CommandOutcome) =>
  outcome.startError ?? (outcome.timedOut ? "timed out" : `exit ${outcome.exitCode ?? outcome.signal}`)

/** The agent's run, remembered like a session's tool use. */
const agentRun = (
  loopId: string,
  projectPath: string,
  agent: ReadonlyArray<string>,
  iteration: number,
  prompt: string,
  outcome: CommandOutcome,
  report: AgentReport
): RalphMemEvent => ({
  _tag: "ObservationRecorded",
  sessionId: agentSession(loopId),
  // The agent's session has no SessionStart: the observation names its project, so search finds it.
  projectPath,
  kind: outcome.exitCode === 0 ? "tool_use" : "error",
  toolName: "agent",
  inputSummary: `${agent.join(" ")} (iteration ${iteration}, ~${estimateTokens(prompt)} prompt tokens)`,
  content: report.lastMessage.slice(-AGENT_OUTPUT_CHARS) || outcome.startError || "(no output)",
  files: [],
  ...(outcome.exitCode === 0 ? {} : { errorMessage: report.limit?.message ?? failureOf(outcome) })
})

const POLL_MS = 1_000

/**
 * Waits until `until`, re-reading the loop every second: a `ralph stop` from another process ends the wait
 * (and the loop) at once. Returns the loop as it stands when the wait ends.
 */
const waitUntil = (memory: MemoryStore, loopId: string, until: number, tick: (remainingMs: number) => void) =>
  Effect.gen(function*() {
    for (;;) {
      const loop = loadLoop(memory, loopId).state!
      const remainingMs = until - Date.now()
      if (loop.status !== "running" || remainingMs <= 0) return loop
      tick(remainingMs)
      yield* Effect.sleep(Math.min(POLL_MS, remainingMs))
    }
  })

const checks = (results: ReadonlyArray<CriterionResult>) =>
  results.map((r) => `${r.kind} ${r.passed ? "passed" : `failed${r.fingerprint ? ` (${r.fingerprint})` : ""}`}`).join(
    ", "
  )

/** A PRD iteration's learning: the story, what the harness found, and what the agent reported. */
const learning = (
  loop: Loop,
  results: ReadonlyArray<CriterionResult>,
  passed: boolean,
  agentOutput: string
): RalphMemEvent | undefined => {
  const current = loop.iterations.at(-1)!
  const story = storyOf(loop, current)
  if (story === undefined) return undefined
  const files = current.filesChanged ?? []
  return {
    _tag: "ObservationRecorded",
    sessionId: agentSession(loop.loopId),
    projectPath: loop.projectPath,
    kind: passed ? "success" : "error",
    toolName: "prd-story",
    inputSummary: `${story.id} ${story.title} (iteration ${current.iteration})`,
    content: [
      `Story ${story.id} ${passed ? "passes" : "does not pass yet"}: ${checks(results)}.`,
      files.length > 0 ? `Changed: ${files.slice(0, 20).join(", ")}.` : "No file changed.",
      agentOutput.trim() === "" ? undefined : `The agent reported: ${agentOutput.trim().slice(-LEARNING_CHARS)}`
    ].filter((line) => line !== undefined).join("\n"),
    files: [...files],
    ...(passed ? {} : { errorMessage: `${story.id}: ${checks(results.filter((r) => !r.passed))}` })
  }
}

export const driveExternally = (memory: MemoryStore, loopId: string, options: ExternalOptions) => {
  const agent = withMachineReadableOutput(options.agent)
  const run = (command: Parameters<typeof execute>[2]) => execute(memory, loopId, command, WRITER)
  const record = (event: RalphMemEvent | undefined) =>
    event === undefined
      ? Effect.void
      : memory.log.append(streams.session(agentSession(loopId)), [event], { expectedVersion: "any", writer: WRITER })
        .pipe(Effect.asVoid, Effect.orDie)
  /**
   * The agent ended on a usage or rate limit: the run does not count. Wait until the reset it reported (else
   * a doubling backoff), recorded first so status and a crash recovery know, then run the iteration again.
   */
  const waitForLimit = (
    loop: Loop,
    iteration: number,
    limit: AgentReport["limit"] & {},
    usage: IterationUsage | undefined
  ) =>
    Effect.gen(function*() {
      const earlier = loop.waits.filter((w) => w.iteration === iteration).length
      const until = Math.max(Date.now(), limit.resetAt ?? Date.now() + limitBackoffMs(earlier))
      const deadline = loop.config.maxDurationMs === undefined ? undefined : loop.startedAt + loop.config.maxDurationMs
      if (deadline !== undefined && until >= deadline) {
        return yield* run({
          _tag: "Fail",
          reason: `max duration (${Math.round(loop.config.maxDurationMs! / 1000)} s) would pass while waiting for the ${
            limit.kind.replace("_", " ")
          } to reset (${new Date(until).toISOString()})`
        })
      }
      const wait = {
        limit: limit.kind,
        until: Math.round(until),
        resetReported: limit.resetAt !== undefined,
        message: limit.message
      }
      yield* run({ _tag: "WaitForLimit", ...wait, ...(usage === undefined ? {} : { usage }) })
      return yield* waitUntil(memory, loopId, until, (remainingMs) =>
        options.onWait?.({ loopId, iteration, ...wait, remainingMs }))
    })
  const iterate: Effect.Effect<Loop, Effect.Error<ReturnType<typeof run>>> = Effect.gen(function*() {
    let loop = loadLoop(memory, loopId).state!
    if (loop.status !== "running") return loop
    if (!iterationOpen(loop)) {
      loop = yield* settleOrBegin(memory, loop, WRITER, Date.now())
      if (loop.status !== "running") return loop
    }
    const iteration = loop.iterations.at(-1)!.iteration
    const prompt = iterationPrompt(loop, {
      memoryLines: loopMemory(memory, loop),
      maxChars: promptChars(loop, options.injectionBudgetTokens),
      home: homeFolder(options.env)
    })
    const outcome = yield* runCommand([...agent, prompt], {
      cwd: loop.projectPath,
      env: options.env,
      timeoutMs: options.agentTimeoutMs
    })
    const report = readAgentReport(outcome, Date.now())
    yield* record(agentRun(loopId, loop.projectPath, agent, iteration, prompt, outcome, report))
    // A stop may have come while the agent worked: it ends the loop before anything else is recorded.
    if (loadLoop(memory, loopId).state!.status !== "running") return loadLoop(memory, loopId).state!
    if (report.limit !== undefined) {
      const waited = yield* waitForLimit(loop, iteration, report.limit, report.usage)
      if (waited.status !== "running") return waited
      return yield* iterate
    }
    // The agent's last message: a marker criterion looks for the marker there.
    const closed = yield* closeIteration(memory, loop, {
      writer: WRITER,
      lastAssistantMessage: report.lastMessage,
      ...(report.usage === undefined ? {} : { usage: report.usage })
    })
    loop = closed.loop
    yield* record(learning(loop, closed.results, closed.passed, report.lastMessage))
    options.onIteration?.(loop)
    const verdict = nextStep(loop, { now: Date.now() })
    if (verdict._tag === "Succeed") return (yield* succeed(memory, loop, WRITER, report.lastMessage)).loop
    if (verdict._tag === "Fail") return yield* run({ _tag: "Fail", reason: verdict.reason })
    yield* Effect.sleep(loop.config.cooldownMs)
    return yield* iterate
  })
  return iterate
}
