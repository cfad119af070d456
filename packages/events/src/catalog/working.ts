/**
 * Working memory: the decisions taken and why, durable beliefs about the project, and the task at hand
 * (its plan, findings and handoff note). Written by the user or Claude through the CLI.
 */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

export const DecisionImpact = Schema.Literals(["low", "medium", "high"])
export type DecisionImpact = typeof DecisionImpact.Type

/** An option that was considered and rejected, and why (when the author said). */
export const Alternative = Schema.Struct({
  option: Schema.String,
  rejectedBecause: Schema.optionalKey(Schema.String)
})
export type Alternative = typeof Alternative.Type

export const DecisionRecorded = defineEvent("DecisionRecorded", () => ({
  decisionId: Schema.String,
  projectPath: Schema.String,
  decision: Schema.String,
  rationale: Schema.String,
  alternatives: Schema.Array(Alternative),
  impact: DecisionImpact,
  /** The task the decision was taken for, if any. */
  taskId: Schema.optionalKey(Schema.String)
}))

/** A durable fact about the project (stack, key files, conventions, focus, blockers, any key). */
export const BeliefSet = defineEvent("BeliefSet", () => ({
  projectPath: Schema.String,
  key: Schema.String,
  value: Schema.String
}))

export const BeliefUnset = defineEvent("BeliefUnset", () => ({
  projectPath: Schema.String,
  key: Schema.String
}))

export const TaskStepStatus = Schema.Literals(["pending", "in_progress", "done"])
export type TaskStepStatus = typeof TaskStepStatus.Type

export const TaskStarted = defineEvent("TaskStarted", () => ({
  taskId: Schema.String,
  projectPath: Schema.String,
  title: Schema.String
}))

/** Steps added to the end of a task's plan, numbered from `firstStep` (1-based). */
export const TaskStepsPlanned = defineEvent("TaskStepsPlanned", () => ({
  taskId: Schema.String,
  firstStep: Schema.Int,
  steps: Schema.Array(Schema.String)
}))

export const TaskStepChanged = defineEvent("TaskStepChanged", () => ({
  taskId: Schema.String,
  step: Schema.Int,
  status: TaskStepStatus
}))

export const TaskFindingRecorded = defineEvent("TaskFindingRecorded", () => ({
  taskId: Schema.String,
  finding: Schema.String
}))

/** What the next session needs to know to pick the task up; the latest note replaces earlier ones. */
export const TaskHandoffWritten = defineEvent("TaskHandoffWritten", () => ({
  taskId: Schema.String,
  note: Schema.String
}))

export const TaskCompleted = defineEvent("TaskCompleted", () => ({
  taskId: Schema.String
}))
