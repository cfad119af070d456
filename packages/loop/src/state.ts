/**
 * A loop's state is the fold of its stream: `evolve` applies one event. Status, crash recovery and
 * rollback all read this state, so there is nothing to keep in sync and nothing to corrupt.
 */
import type { CriterionResult, IterationUsage, LoopConfig, PrdStory, RalphMemEvent } from "@ralph-mem/events"

export type LoopStatus = "running" | "success" | "failed" | "stopped"

export interface IterationRecord {
  readonly iteration: number
  readonly startedAt: number
  /** A PRD loop: the story the iteration worked on. */
  readonly storyId?: string
  readonly results?: ReadonlyArray<CriterionResult>
  readonly passed?: boolean
  readonly filesChanged?: ReadonlyArray<string>
  readonly snapshotRef?: string
  /** Why no snapshot of the iteration could be taken. */
  readonly snapshotProblem?: string
  readonly completedAt?: number
  /** Tokens and cost the agent reported for this iteration; absent: not reported. */
  readonly usage?: IterationUsage
}

/** A wait for a usage or rate limit to reset; the interrupted run did not count as an iteration. */
export interface LimitWait {
  readonly iteration: number
  readonly limit: "rate_limit" | "usage_limit"
  readonly at: number
  readonly until: number
  readonly resetReported: boolean
  readonly message: string
  readonly usage?: IterationUsage
}

export interface Loop {
  readonly loopId: string
  readonly goal: string
  readonly projectPath: string
  readonly driver: "session" | "external"
  readonly sessionId?: string
  readonly config: LoopConfig
  readonly status: LoopStatus
  readonly startedAt: number
  readonly endedAt?: number
  readonly endReason?: string
  /** Snapshot taken when the loop started, before any iteration changed anything. */
  readonly startSnapshotRef?: string
  /** Why no snapshot could be taken at the start. */
  readonly startSnapshotProblem?: string
  readonly iterations: ReadonlyArray<IterationRecord>
  readonly rollbacks: ReadonlyArray<
    { readonly toIteration: number; readonly snapshotRef: string; readonly rescueSnapshotRef: string }
  >
  readonly waits: ReadonlyArray<LimitWait>
  /** The session's last turn ended on an API error (StopFailure); cleared when the loop moves on. */
  readonly interruption?: { readonly iteration: number; readonly error: string; readonly message: string }
  /** A PRD loop: its stories, `passes` as the harness decided them. */
  readonly prd?: { readonly path: string; readonly stories: ReadonlyArray<PrdStory> }
  /** A plan loop: where the final plan goes. */
  readonly plan?: { readonly path: string }
}

/** No loop yet: only a start is possible. */
export type LoopState = Loop | undefined

export const currentIteration = (loop: Loop): IterationRecord | undefined => loop.iterations.at(-1)

/** An iteration is open when it started and has not completed. */
export const iterationOpen = (loop: Loop): boolean => {
  const current = currentIteration(loop)
  return current !== undefined && current.completedAt === undefined
}

const updateCurrent = (loop: Loop, change: (it: IterationRecord) => IterationRecord): Loop => {
  const current = currentIteration(loop)
  return current === undefined ? loop : { ...loop, iterations: [...loop.iterations.slice(0, -1), change(current)] }
}

const withoutInterruption = (loop: Loop): Loop => {
  if (loop.interruption === undefined) return loop
  const { interruption: _, ...rest } = loop
  return rest
}

const end = (loop: Loop, status: LoopStatus, at: number, reason: string | undefined): Loop => ({
  ...loop,
  status,
  endedAt: at,
  ...(reason === undefined ? {} : { endReason: reason })
})

export const evolve = (state: LoopState, event: RalphMemEvent, at: number): LoopState => {
  if (event._tag === "LoopStarted") {
    return {
      loopId: event.loopId,
      goal: event.goal,
      projectPath: event.projectPath,
      driver: event.driver,
      ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
      ...(event.snapshotRef === undefined ? {} : { startSnapshotRef: event.snapshotRef }),
      ...(event.snapshotProblem === undefined ? {} : { startSnapshotProblem: event.snapshotProblem }),
      ...(event.prd === undefined ? {} : { prd: event.prd }),
      ...(event.plan === undefined ? {} : { plan: event.plan }),
      config: event.config,
      status: "running",
      startedAt: at,
      iterations: [],
      rollbacks: [],
      waits: []
    }
  }
  if (state === undefined) return state
  switch (event._tag) {
    case "LoopIterationStarted":
      return {
        ...withoutInterruption(state),
        iterations: [...state.iterations, {
          iteration: event.iteration,
          startedAt: at,
          ...(event.storyId === undefined ? {} : { storyId: event.storyId })
        }]
      }
    case "LoopCriteriaEvaluated":
      return updateCurrent(state, (it) => ({ ...it, results: event.results }))
    case "LoopIterationCompleted":
      return updateCurrent(withoutInterruption(state), (it) => ({
        ...it,
        passed: event.passed,
        filesChanged: event.filesChanged,
        completedAt: at,
        ...(event.snapshotRef === undefined ? {} : { snapshotRef: event.snapshotRef }),
        ...(event.snapshotProblem === undefined ? {} : { snapshotProblem: event.snapshotProblem }),
        ...(event.usage === undefined ? {} : { usage: event.usage })
      }))
    case "LoopWaited":
      return {
        ...state,
        waits: [...state.waits, {
          iteration: event.iteration,
          limit: event.limit,
          at,
          until: event.until,
          resetReported: event.resetReported,
          message: event.message,
          ...(event.usage === undefined ? {} : { usage: event.usage })
        }]
      }
    case "LoopInterrupted":
      return { ...state, interruption: { iteration: event.iteration, error: event.error, message: event.message } }
    case "LoopSucceeded":
      return end(state, "success", at, undefined)
    case "LoopFailed":
      return end(state, "failed", at, event.reason)
    case "LoopStopped":
      return end(state, "stopped", at, event.reason)
    case "LoopRolledBack":
      return {
        ...state,
        rollbacks: [...state.rollbacks, {
          toIteration: event.toIteration,
          snapshotRef: event.snapshotRef,
          rescueSnapshotRef: event.rescueSnapshotRef
        }]
      }
    case "LoopConfigChanged":
      return { ...state, config: event.config }
    case "LoopResumed":
      return { ...state, driver: event.driver }
    case "LoopStoryPassed":
      return state.prd === undefined
        ? state
        : {
          ...state,
          prd: {
            ...state.prd,
            stories: state.prd.stories.map((s) => (s.id === event.storyId ? { ...s, passes: true } : s))
          }
        }
    case "LoopPlanSaved":
      return { ...state, plan: { path: event.path } }
    default:
      return state
  }
}

/** A PRD loop's next story: the highest priority (lowest number) that does not pass; file order breaks ties. */
export const nextStory = (loop: Loop): PrdStory | undefined =>
  loop.prd?.stories.reduce<PrdStory | undefined>(
    (best, story) => (story.passes || (best !== undefined && best.priority <= story.priority) ? best : story),
    undefined
  )

/** The story an iteration worked on. */
export const storyOf = (loop: Loop, iteration: IterationRecord | undefined): PrdStory | undefined =>
  iteration?.storyId === undefined ? undefined : loop.prd?.stories.find((s) => s.id === iteration.storyId)

/**
 * The goal is met: the last iteration passed the harness's criteria and, in a PRD loop, every story
 * now passes (a passing iteration only completes its own story).
 */
export const goalMet = (loop: Loop): boolean => {
  const last = currentIteration(loop)
  return last?.completedAt !== undefined && last.passed === true &&
    (loop.prd === undefined || loop.prd.stories.every((s) => s.passes))
}

export const fold = (
  events: ReadonlyArray<{ readonly event: RalphMemEvent; readonly occurredAt: number }>
): LoopState => events.reduce<LoopState>((state, { event, occurredAt }) => evolve(state, event, occurredAt), undefined)

/** Every token an iteration used, cache reads and writes included (they are billed, if cheaper). */
export const totalTokens = (usage: IterationUsage): number =>
  usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheCreationTokens

/**
 * What the loop has spent so far, over its iterations and the runs a limit interrupted. `tokens` and
 * `costUsd` are undefined when no run reported them: "not reported" is never shown as 0.
 */
export const loopSpend = (loop: Loop): { readonly tokens?: number; readonly costUsd?: number } => {
  const usages = [
    ...loop.iterations.flatMap((it) => (it.usage === undefined ? [] : [it.usage])),
    ...loop.waits.flatMap((w) => (w.usage === undefined ? [] : [w.usage]))
  ]
  const costs = usages.flatMap((u) => (u.costUsd === undefined ? [] : [u.costUsd]))
  return {
    ...(usages.length === 0 ? {} : { tokens: usages.reduce((sum, u) => sum + totalTokens(u), 0) }),
    ...(costs.length === 0 ? {} : { costUsd: costs.reduce((sum, c) => sum + c, 0) })
  }
}
