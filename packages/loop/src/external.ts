/**
 * The external driver, the original Ralph way: a fresh agent process per iteration (default `claude -p`),
 * given the generated prompt as its last argument, then the same criteria, records and stop conditions
 * as in a session. The agent runs without a shell. Before each iteration the loop is re-read from the
 * log, so a stop issued from another process ends it. In a PRD loop each iteration works on one story,
 * and what it learned is recorded for the iterations after it (the role progress.txt plays elsewhere).
 */
import type { CriterionResult, RalphMemEvent } from "@ralph-mem/events"
import { streams } from "@ralph-mem/events"
import { estimateTokens, type Memory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { type CommandOutcome, runCommand } from "./criteria/index.ts"
import { stopCondition } from "./conditions.ts"
import { closeIteration, settleOrBegin, succeed } from "./iteration.ts"
import { agentSession, loopMemory } from "./loop-memory.ts"
import { iterationPrompt } from "./prompt.ts"
import { goalMet, iterationOpen, type Loop, storyOf } from "./state.ts"
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
const AGENT_OUTPUT_CHARS = 4_000
const LEARNING_CHARS = 1_500

const failureOf = (outcome: CommandOutcome) =>
  outcome.startError ?? (outcome.timedOut ? "timed out" : `exit ${outcome.exitCode ?? outcome.signal}`)

/** The agent's run, remembered like a session's tool use. */
const agentRun = (loopId: string, agent: ReadonlyArray<string>, iteration: number, prompt: string, outcome: CommandOutcome): RalphMemEvent => ({
  _tag: "ObservationRecorded",
  sessionId: agentSession(loopId),
  kind: outcome.exitCode === 0 ? "tool_use" : "error",
  toolName: "agent",
  inputSummary: `${agent.join(" ")} (iteration ${iteration}, ~${estimateTokens(prompt)} prompt tokens)`,
  content: outcome.output.slice(-AGENT_OUTPUT_CHARS) || outcome.startError || "(no output)",
  files: [],
  ...(outcome.exitCode === 0 ? {} : { errorMessage: failureOf(outcome) })
})

const checks = (results: ReadonlyArray<CriterionResult>) =>
  results.map((r) => `${r.kind} ${r.passed ? "passed" : `failed${r.fingerprint ? ` (${r.fingerprint})` : ""}`}`).join(", ")

/** A PRD iteration's learning: the story, what the harness found, and what the agent reported. */
const learning = (loop: Loop, results: ReadonlyArray<CriterionResult>, passed: boolean, agentOutput: string): RalphMemEvent | undefined => {
  const current = loop.iterations.at(-1)!
  const story = storyOf(loop, current)
  if (story === undefined) return undefined
  const files = current.filesChanged ?? []
  return {
    _tag: "ObservationRecorded",
    sessionId: agentSession(loop.loopId),
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

export const driveExternally = (memory: Memory, loopId: string, options: ExternalOptions) => {
  const run = (command: Parameters<typeof execute>[2]) => execute(memory, loopId, command, WRITER)
  const record = (event: RalphMemEvent | undefined) =>
    event === undefined
      ? Effect.void
      : memory.log.append(streams.session(agentSession(loopId)), [event], { expectedVersion: "any", writer: WRITER }).pipe(Effect.asVoid, Effect.orDie)
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
      maxChars: Math.max(2_000, Math.floor(options.injectionBudgetTokens * loop.config.contextBudget * 4))
    })
    const outcome = yield* runCommand([...options.agent, prompt], { cwd: loop.projectPath, env: options.env, timeoutMs: options.agentTimeoutMs })
    yield* record(agentRun(loopId, options.agent, iteration, prompt, outcome))
    // A stop may have come while the agent worked: it ends the loop before anything else is recorded.
    if (loadLoop(memory, loopId).state!.status !== "running") return loadLoop(memory, loopId).state!
    // The agent's output is its last message: a marker criterion looks for the marker there.
    const closed = yield* closeIteration(memory, loop, { writer: WRITER, lastAssistantMessage: outcome.output })
    loop = closed.loop
    yield* record(learning(loop, closed.results, closed.passed, outcome.output))
    options.onIteration?.(loop)
    if (goalMet(loop)) return (yield* succeed(memory, loop, WRITER, outcome.output)).loop
    const ending = stopCondition(loop, Date.now())
    if (ending !== undefined) return yield* run({ _tag: "Fail", reason: ending })
    yield* Effect.sleep(loop.config.cooldownMs)
    return yield* iterate
  })
  return iterate
}
