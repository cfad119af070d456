/**
 * A loop's state is the fold of its stream: `evolve` applies one event. Status, crash recovery and
 * rollback all read this state, so there is nothing to keep in sync and nothing to corrupt.
 */
import type { CriterionResult, LoopConfig, RalphMemEvent } from "@ralph-mem/events"

export type LoopStatus = "running" | "success" | "failed" | "stopped"

export interface IterationRecord {
  readonly iteration: number
  readonly startedAt: number
  readonly results?: ReadonlyArray<CriterionResult>
  readonly passed?: boolean
  readonly filesChanged?: ReadonlyArray<string>
  readonly snapshotRef?: string
  readonly completedAt?: number
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
  readonly iterations: ReadonlyArray<IterationRecord>
  readonly rollbacks: ReadonlyArray<{ readonly toIteration: number; readonly snapshotRef: string; readonly rescueSnapshotRef: string }>
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
      config: event.config,
      status: "running",
      startedAt: at,
      iterations: [],
      rollbacks: []
    }
  }
  if (state === undefined) return state
  switch (event._tag) {
    case "LoopIterationStarted":
      return { ...state, iterations: [...state.iterations, { iteration: event.iteration, startedAt: at }] }
    case "LoopCriteriaEvaluated":
      return updateCurrent(state, (it) => ({ ...it, results: event.results }))
    case "LoopIterationCompleted":
      return updateCurrent(state, (it) => ({
        ...it,
        passed: event.passed,
        filesChanged: event.filesChanged,
        completedAt: at,
        ...(event.snapshotRef === undefined ? {} : { snapshotRef: event.snapshotRef })
      }))
    case "LoopSucceeded":
      return end(state, "success", at, undefined)
    case "LoopFailed":
      return end(state, "failed", at, event.reason)
    case "LoopStopped":
      return end(state, "stopped", at, event.reason)
    case "LoopRolledBack":
      return {
        ...state,
        rollbacks: [...state.rollbacks, { toIteration: event.toIteration, snapshotRef: event.snapshotRef, rescueSnapshotRef: event.rescueSnapshotRef }]
      }
    case "LoopConfigChanged":
      return { ...state, config: event.config }
    case "LoopResumed":
      return { ...state, driver: event.driver }
    default:
      return state
  }
}

export const fold = (events: ReadonlyArray<{ readonly event: RalphMemEvent; readonly occurredAt: number }>): LoopState =>
  events.reduce<LoopState>((state, { event, occurredAt }) => evolve(state, event, occurredAt), undefined)
