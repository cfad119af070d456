/**
 * The external driver, the original Ralph way: a fresh agent process per iteration (default `claude -p`),
 * given the generated prompt as its last argument, then the same criteria, records and stop conditions
 * as in a session. The agent runs without a shell. Before each iteration the loop is re-read from the
 * log, so a stop issued from another process ends it.
 */
import { streams } from "@ralph-mem/events"
import { estimateTokens, type Memory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { runCommand } from "./criteria/index.ts"
import { stopCondition } from "./conditions.ts"
import { closeIteration, settleOrBegin } from "./iteration.ts"
import { iterationPrompt } from "./prompt.ts"
import { iterationOpen, type Loop } from "./state.ts"
import { execute, loadLoop } from "./store.ts"

export interface ExternalOptions {
  readonly agent: ReadonlyArray<string>
  readonly env: NodeJS.ProcessEnv
  /** How long one agent run may take. */
  readonly agentTimeoutMs: number
  readonly injectionBudgetTokens: number
  /** Called after each iteration, for progress output. */
  readonly onIteration?: (loop: Loop) => void
}

const WRITER = "cli:ralph-run"

/** The agent's work is remembered like a session's: one observation per iteration. */
export const agentSession = (loopId: string) => `ralph-${loopId}`

export const driveExternally = (memory: Memory, loopId: string, options: ExternalOptions) => {
  const run = (command: Parameters<typeof execute>[2]) => execute(memory, loopId, command, WRITER)
  const iterate: Effect.Effect<Loop, Effect.Error<ReturnType<typeof run>>> = Effect.gen(function*() {
    let loop = loadLoop(memory, loopId).state!
    if (loop.status !== "running") return loop
    if (!iterationOpen(loop)) {
      loop = yield* settleOrBegin(memory, loop, WRITER, Date.now())
      if (loop.status !== "running") return loop
    }
    const iteration = loop.iterations.at(-1)!.iteration
    const prompt = iterationPrompt(loop, { maxChars: Math.max(2_000, Math.floor(options.injectionBudgetTokens * loop.config.contextBudget * 4)) })
    const outcome = yield* runCommand([...options.agent, prompt], { cwd: loop.projectPath, env: options.env, timeoutMs: options.agentTimeoutMs })
    const sessionId = agentSession(loopId)
    yield* memory.log
      .append(streams.session(sessionId), [{
        _tag: "ObservationRecorded",
        sessionId,
        kind: outcome.exitCode === 0 ? "tool_use" : "error",
        toolName: "agent",
        inputSummary: `${options.agent.join(" ")} (iteration ${iteration}, ~${estimateTokens(prompt)} prompt tokens)`,
        content: outcome.output.slice(-4_000) || outcome.startError || "(no output)",
        files: [],
        ...(outcome.exitCode === 0 ? {} : { errorMessage: outcome.startError ?? (outcome.timedOut ? "timed out" : `exit ${outcome.exitCode ?? outcome.signal}`) })
      }], { expectedVersion: "any", writer: WRITER })
      .pipe(Effect.orDie)
    // A stop may have come while the agent worked: it ends the loop before anything else is recorded.
    if (loadLoop(memory, loopId).state!.status !== "running") return loadLoop(memory, loopId).state!
    const closed = yield* closeIteration(memory, loop, { writer: WRITER })
    const passed = closed.passed
    loop = closed.loop
    options.onIteration?.(loop)
    if (passed) return yield* run({ _tag: "Succeed" })
    const ending = stopCondition(loop, Date.now())
    if (ending !== undefined) return yield* run({ _tag: "Fail", reason: ending })
    yield* Effect.sleep(loop.config.cooldownMs)
    return yield* iterate
  })
  return iterate
}
