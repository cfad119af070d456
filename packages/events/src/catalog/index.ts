/** The ralph-mem event catalog: every event the product writes, and nothing else. */
import { type EventOf, makeCatalog } from "./catalog.ts"
import { HookFailed } from "./hook.ts"
import {
  LoopConfigChanged,
  LoopCriteriaEvaluated,
  LoopFailed,
  LoopInterrupted,
  LoopIterationCompleted,
  LoopIterationStarted,
  LoopPlanSaved,
  LoopResumed,
  LoopRolledBack,
  LoopStarted,
  LoopStopped,
  LoopStoryPassed,
  LoopSucceeded,
  LoopToolBlocked,
  LoopWaited
} from "./loop.ts"
import { DatabaseRestored, EventsLost, LossAcknowledged } from "./maintenance.ts"
import { MemoryForgotten, MemoryToolCalled, NoteInjected } from "./memory.ts"
import { ObservationRecorded } from "./observation.ts"
import {
  AssistantReplied,
  ContextInjected,
  PromptSubmitted,
  SessionCompacted,
  SessionEnded,
  SessionStarted,
  SessionSummarized
} from "./session.ts"
import {
  BeliefSet,
  BeliefUnset,
  DecisionRecorded,
  TaskCompleted,
  TaskFindingRecorded,
  TaskHandoffWritten,
  TaskStarted,
  TaskStepChanged,
  TaskStepsPlanned
} from "./working.ts"

export const definitions = [
  SessionStarted,
  PromptSubmitted,
  ContextInjected,
  AssistantReplied,
  SessionCompacted,
  SessionSummarized,
  SessionEnded,
  ObservationRecorded,
  NoteInjected,
  MemoryForgotten,
  MemoryToolCalled,
  LoopStarted,
  LoopIterationStarted,
  LoopCriteriaEvaluated,
  LoopIterationCompleted,
  LoopSucceeded,
  LoopFailed,
  LoopStopped,
  LoopRolledBack,
  LoopResumed,
  LoopConfigChanged,
  LoopStoryPassed,
  LoopPlanSaved,
  LoopToolBlocked,
  LoopWaited,
  LoopInterrupted,
  HookFailed,
  DatabaseRestored,
  EventsLost,
  LossAcknowledged,
  DecisionRecorded,
  BeliefSet,
  BeliefUnset,
  TaskStarted,
  TaskStepsPlanned,
  TaskStepChanged,
  TaskFindingRecorded,
  TaskHandoffWritten,
  TaskCompleted
] as const

export type RalphMemEvent = EventOf<(typeof definitions)[number]>

export const catalog = makeCatalog(definitions)

export * from "./catalog.ts"
export * from "./define.ts"
export type { Criterion, CriterionKind, CriterionResult, IterationUsage, LoopConfig, PrdStory } from "./loop.ts"
export { ObservationKind } from "./observation.ts"
export { SessionSource } from "./session.ts"
export { Alternative, DecisionImpact, TaskStepStatus } from "./working.ts"

/** A forget redacts the events it names. */
export const redactedBy = (event: RalphMemEvent): ReadonlyArray<string> | undefined =>
  event._tag === "MemoryForgotten" ? event.eventIds : undefined
