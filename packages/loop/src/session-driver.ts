/**
 * The in-session driver: the Stop hook of the session a loop is bound to calls `continueAtStop`.
 * The harness runs the criteria (never the model's word alone), records the iteration, and then
 *   - success: lets Claude stop and says so;
 *   - a stop condition (max iterations, max duration, no progress, the block cap): ends the loop with
 *     the reason, lets Claude stop and says why, never silently;
 *   - otherwise: continues the turn with the next iteration's prompt, as the Stop hook's additionalContext.
 *     (Claude Code 2.1.330 puts it in the conversation once, as a system reminder; a `decision: block`
 *     reason is put in twice and shows the user a "stop hook problem". Both count against the block cap.)
 * A stop issued from another process ends the loop first, and the driver then lets Claude stop.
 */
import { type CriterionResult, homeFolder, type StopOutput } from "@ralph-mem/events"
import {
  activeLoopForSession,
  estimateTokens,
  iterationsBegunSincePrompt,
  type MemoryStore
} from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { closeIteration, settleOrBegin, succeed, type Success } from "./iteration.ts"
import { loopMemory } from "./loop-memory.ts"
import { execute, loadLoop } from "./loop-stream.ts"
import { nextStep } from "./policy.ts"
import { iterationPrompt, promptChars } from "./prompt.ts"
import { iterationOpen, totalTokens } from "./state.ts"
import { transcriptUsage } from "./transcript-usage.ts"

/** Claude Code overrides a Stop hook after this many consecutive blocks unless the cap is raised (0: none). */
const DEFAULT_BLOCK_CAP = 8

const WRITER = "hook:Stop"

const blockCap = (env: Readonly<Record<string, string | undefined>>): number => {
  const raw = Number(env["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"])
  return Number.isInteger(raw) && raw >= 0 ? raw : DEFAULT_BLOCK_CAP
}

const summary = (results: ReadonlyArray<CriterionResult>) =>
  results.map((r) => `${r.kind} ${r.passed ? "passed" : "failed"}`).join(", ")

const planNote = (success: Success) =>
  success.plan === undefined
    ? ""
    : success.plan.written
    ? ` The plan is saved to ${success.plan.path}.`
    : ` The plan could not be written to ${success.plan.path} (${success.plan.problem}); ` +
      "it is in the log: ralph-mem audit --type LoopPlanSaved --json."

export const continueAtStop = (
  memory: MemoryStore,
  input: {
    readonly sessionId: string
    readonly lastAssistantMessage: string
    readonly env: Readonly<Record<string, string | undefined>>
    readonly now: number
    readonly injectionBudgetTokens: number
    /** Claude Code's transcript, for the tokens the iteration used. */
    readonly transcriptPath?: string
  }
): Effect.Effect<StopOutput | undefined> => {
  const loopId = activeLoopForSession(memory.db, input.sessionId)
  if (loopId === undefined) return Effect.succeed(undefined)
  const run = (command: Parameters<typeof execute>[2]) => execute(memory, loopId, command, WRITER)
  return Effect.gen(function*() {
    let loop = loadLoop(memory, loopId).state!
    if (!iterationOpen(loop)) {
      loop = yield* settleOrBegin(memory, loop, WRITER, input.now, input.lastAssistantMessage)
      if (loop.status !== "running") {
        return {
          systemMessage: `ralph-mem: the loop had already ${
            loop.status === "success" ? "succeeded" : `ended (${loop.endReason ?? loop.status})`
          }.`
        }
      }
    }
    const usage = transcriptUsage(input.transcriptPath, loop.iterations.at(-1)!.startedAt)
    const closed = yield* closeIteration(memory, loop, {
      writer: WRITER,
      lastAssistantMessage: input.lastAssistantMessage,
      ...(usage === undefined ? {} : { usage })
    })
    const { results, iteration } = closed
    loop = closed.loop
    // Said with whatever comes next: no rollback can return to this iteration.
    const problem = loop.iterations.at(-1)?.snapshotProblem
    const unsaved = problem === undefined
      ? ""
      : ` No snapshot of iteration ${iteration} could be taken (${problem}): a rollback cannot return to it.`
    const verdict = nextStep(loop, {
      now: input.now,
      continuations: {
        cap: blockCap(input.env),
        used: iterationsBegunSincePrompt(memory.db, loop.loopId, input.sessionId, WRITER)
      }
    })
    if (verdict._tag === "Succeed") {
      const success = yield* succeed(memory, loop, WRITER, input.lastAssistantMessage)
      return {
        systemMessage: `ralph-mem: the loop succeeded at iteration ${iteration} (${summary(results)}).${
          planNote(success)
        }${unsaved}`
      }
    }
    if (verdict._tag === "Fail") {
      yield* run({ _tag: "Fail", reason: verdict.reason })
      return {
        systemMessage:
          `ralph-mem: the loop ended without success after iteration ${iteration}: ${verdict.reason}. Last checks: ${
            summary(results)
          }.${unsaved}`
      }
    }
    loop = yield* run({ _tag: "BeginIteration" })
    const prompt = iterationPrompt(loop, {
      memoryLines: loopMemory(memory, loop),
      maxChars: promptChars(loop, input.injectionBudgetTokens),
      home: homeFolder(input.env)
    })
    const used = usage === undefined ? "" : `; iteration ${iteration} used ${totalTokens(usage)} tokens`
    return {
      hookSpecificOutput: { hookEventName: "Stop" as const, additionalContext: prompt },
      systemMessage: `ralph-mem: iteration ${iteration + 1} of ${loop.config.maxIterations} (${
        summary(results)
      }${used}; ~${estimateTokens(prompt)} tokens of context).${unsaved}`
    }
  }).pipe(
    // The loop ended under us (stopped from another process): let Claude stop, and say so. Any other
    // refusal is a defect, and the hook's failure is logged.
    Effect.catchTag("Refused", (error) =>
      loadLoop(memory, loopId).state?.status === "running"
        ? Effect.die(error)
        : Effect.succeed({ systemMessage: `ralph-mem: the loop is no longer running (${error.reason}).` })),
    Effect.catch((error) => Effect.die(error))
  )
}

/**
 * The session's turn ended on an API error (Claude Code's StopFailure: a rate or usage limit, an overload):
 * the loop's open iteration stays open, the interruption is recorded, and the loop resumes with the user's
 * next prompt (its injection names the loop), whose Stop closes the iteration as usual.
 */
export const interruptAtStopFailure = (
  memory: MemoryStore,
  input: { readonly sessionId: string; readonly error: string; readonly message: string }
): Effect.Effect<StopOutput | undefined> => {
  const loopId = activeLoopForSession(memory.db, input.sessionId)
  if (loopId === undefined) return Effect.succeed(undefined)
  return execute(memory, loopId, { _tag: "Interrupt", error: input.error, message: input.message }, "hook:StopFailure")
    .pipe(
      Effect.map((loop) => ({
        systemMessage: `ralph-mem: the loop's iteration ${
          loop.iterations.at(-1)?.iteration ?? 0
        } was cut off (${input.error}); it goes on with your next prompt, or stop it with /ralph-mem:ralph stop.`
      })),
      Effect.catchTag("Refused", () => Effect.succeed(undefined)),
      Effect.catch((error) => Effect.die(error))
    )
}
