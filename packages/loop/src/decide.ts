/**
 * The loop's decider: `decide(state, command)` says which events a command produces, or why it is
 * refused. Pure: no clock, no I/O (times and snapshot refs arrive in the commands).
 */
import type { CriterionResult, IterationUsage, LoopConfig, PrdStory, RalphMemEvent } from "@ralph-mem/events"
import { type Decider, refuse as refused, type Refused } from "@ralph-mem/projections"
import { loopConfigProblem } from "./config.ts"
import { currentIteration, evolve, goalMet, iterationOpen, type LoopState, nextStory } from "./state.ts"

export type LoopCommand =
  | {
    readonly _tag: "Start"
    readonly loopId: string
    readonly goal: string
    readonly projectPath: string
    readonly driver: "session" | "external"
    readonly sessionId?: string
    readonly config: LoopConfig
    readonly snapshotRef?: string
    readonly snapshotProblem?: string
    readonly prd?: { readonly path: string; readonly stories: ReadonlyArray<PrdStory> }
    readonly plan?: { readonly path: string }
  }
  | { readonly _tag: "BeginIteration" }
  | { readonly _tag: "RecordCriteria"; readonly results: ReadonlyArray<CriterionResult> }
  | {
    readonly _tag: "CompleteIteration"
    readonly passed: boolean
    readonly filesChanged: ReadonlyArray<string>
    readonly snapshotRef?: string
    readonly snapshotProblem?: string
    readonly usage?: IterationUsage
  }
  /** The agent hit a usage or rate limit: wait, then run the same iteration again. */
  | {
    readonly _tag: "WaitForLimit"
    readonly limit: "rate_limit" | "usage_limit"
    readonly until: number
    readonly resetReported: boolean
    readonly message: string
    readonly usage?: IterationUsage
  }
  /** The session's turn ended on an API error (Claude Code's StopFailure). */
  | { readonly _tag: "Interrupt"; readonly error: string; readonly message: string }
  /** Restores a snapshot, running or ended: the one moment a user wants a rollback may come after the end. */
  | {
    readonly _tag: "RollBack"
    readonly toIteration: number
    readonly snapshotRef: string
    readonly rescueSnapshotRef: string
  }
  /** A plan loop succeeds with its final plan, saved in the same append. */
  | { readonly _tag: "Succeed"; readonly plan?: { readonly path: string; readonly text: string } }
  | { readonly _tag: "Fail"; readonly reason: string }
  | {
    readonly _tag: "Stop"
    readonly reason: string
    readonly requestedBy: string
    readonly rollback?: {
      readonly toIteration: number
      readonly snapshotRef: string
      readonly rescueSnapshotRef: string
    }
  }
  | { readonly _tag: "ChangeConfig"; readonly config: LoopConfig }
  | { readonly _tag: "Resume"; readonly driver: "session" | "external" }

/** A command that does not fit the loop's state is refused, naming the command; nothing is written. */
const refuse = (command: LoopCommand, reason: string) => refused(reason, command._tag)

type Rollback = { readonly toIteration: number; readonly snapshotRef: string; readonly rescueSnapshotRef: string }

/** A rollback's target must be an iteration the loop reached (0: before the loop). */
const rollbackTarget = (rollback: Rollback, lastIteration: number): Rollback | string =>
  rollback.toIteration < 0 || rollback.toIteration > lastIteration
    ? `there is no iteration ${rollback.toIteration} to roll back to`
    : {
      toIteration: rollback.toIteration,
      snapshotRef: rollback.snapshotRef,
      rescueSnapshotRef: rollback.rescueSnapshotRef
    }

export const decide = (state: LoopState, command: LoopCommand): ReadonlyArray<RalphMemEvent> | Refused => {
  if (command._tag === "Start") {
    if (state !== undefined) return refuse(command, `loop ${state.loopId} already exists`)
    if (command.goal.trim() === "") return refuse(command, "the goal is empty")
    if (command.prd !== undefined && command.prd.stories.length === 0) return refuse(command, "the PRD has no stories")
    if (command.prd !== undefined && command.plan !== undefined) {
      return refuse(command, "a loop is either a PRD loop or a plan loop")
    }
    const problem = loopConfigProblem(command.config)
    if (problem !== undefined) return refuse(command, problem)
    const { _tag, ...started } = command
    return [{ _tag: "LoopStarted", ...started }]
  }
  if (state === undefined) return refuse(command, "there is no such loop")
  const loopId = state.loopId
  const current = currentIteration(state)
  if (command._tag === "RollBack") {
    const rollback = rollbackTarget(command, current?.iteration ?? 0)
    return typeof rollback === "string" ? refuse(command, rollback) : [{ _tag: "LoopRolledBack", loopId, ...rollback }]
  }
  if (state.status !== "running") return refuse(command, `the loop has ended (${state.status})`)
  switch (command._tag) {
    case "BeginIteration": {
      if (iterationOpen(state)) return refuse(command, `iteration ${current!.iteration} is still open`)
      const next = (current?.iteration ?? 0) + 1
      if (next > state.config.maxIterations) {
        return refuse(command, `the limit of ${state.config.maxIterations} iterations is reached`)
      }
      if (state.prd === undefined) return [{ _tag: "LoopIterationStarted", loopId, iteration: next }]
      const story = nextStory(state)
      if (story === undefined) return refuse(command, "every story of the PRD passes")
      return [{ _tag: "LoopIterationStarted", loopId, iteration: next, storyId: story.id }]
    }
    case "RecordCriteria":
      if (!iterationOpen(state)) return refuse(command, "no iteration is open")
      return [{ _tag: "LoopCriteriaEvaluated", loopId, iteration: current!.iteration, results: command.results }]
    case "CompleteIteration":
      if (!iterationOpen(state)) return refuse(command, "no iteration is open")
      if (current!.results === undefined) {
        return refuse(command, `iteration ${current!.iteration} has no criteria results yet`)
      }
      return [
        {
          _tag: "LoopIterationCompleted",
          loopId,
          iteration: current!.iteration,
          passed: command.passed,
          filesChanged: command.filesChanged,
          ...(command.snapshotRef === undefined ? {} : { snapshotRef: command.snapshotRef }),
          ...(command.snapshotProblem === undefined ? {} : { snapshotProblem: command.snapshotProblem }),
          ...(command.usage === undefined ? {} : { usage: command.usage })
        },
        // The harness's criteria passed while the agent worked on this story: it passes (and only then).
        ...(command.passed && current!.storyId !== undefined
          ? [{ _tag: "LoopStoryPassed", loopId, storyId: current!.storyId, iteration: current!.iteration } as const]
          : [])
      ]
    case "Succeed":
      if (!goalMet(state)) {
        return refuse(
          command,
          current?.passed === true
            ? "stories of the PRD do not pass yet"
            : "the last completed iteration did not pass its criteria"
        )
      }
      if (state.plan === undefined) {
        if (command.plan !== undefined) return refuse(command, "this is not a plan loop")
        return [{ _tag: "LoopSucceeded", loopId, iteration: current!.iteration }]
      }
      if (command.plan === undefined) return refuse(command, "a plan loop succeeds with its final plan")
      return [
        {
          _tag: "LoopPlanSaved",
          loopId,
          iteration: current!.iteration,
          path: command.plan.path,
          plan: command.plan.text
        },
        { _tag: "LoopSucceeded", loopId, iteration: current!.iteration }
      ]
    case "Fail":
      return [{ _tag: "LoopFailed", loopId, reason: command.reason }]
    case "WaitForLimit": {
      if (!iterationOpen(state)) return refuse(command, "no iteration is open")
      const { _tag, ...wait } = command
      return [{ _tag: "LoopWaited", loopId, iteration: current!.iteration, ...wait }]
    }
    case "Interrupt":
      return [{
        _tag: "LoopInterrupted",
        loopId,
        iteration: current?.iteration ?? 0,
        error: command.error,
        message: command.message
      }]
    case "Stop": {
      const stopped: RalphMemEvent = {
        _tag: "LoopStopped",
        loopId,
        reason: command.reason,
        requestedBy: command.requestedBy
      }
      if (command.rollback === undefined) return [stopped]
      const rollback = rollbackTarget(command.rollback, current?.iteration ?? 0)
      return typeof rollback === "string"
        ? refuse(command, rollback)
        : [stopped, { _tag: "LoopRolledBack", loopId, ...rollback }]
    }
    case "ChangeConfig": {
      const problem = loopConfigProblem(command.config)
      return problem === undefined
        ? [{ _tag: "LoopConfigChanged", loopId, config: command.config }]
        : refuse(command, problem)
    }
    case "Resume":
      return [{ _tag: "LoopResumed", loopId, iteration: current?.iteration ?? 0, driver: command.driver }]
  }
}

/** The loop as a decider: its state is the fold of its stream (`undefined` before it starts). */
export const loopDecider: Decider<LoopState, LoopCommand> = { initialState: undefined, evolve, decide }
