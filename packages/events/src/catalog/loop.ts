/**
 * The Ralph loop's lifecycle: its state is the fold of these events over a loop's stream.
 *
 * Every schema here is made on first use: hooks other than Stop never touch a loop event, and making
 * them all at start-up cost each hook 0.2 ms.
 */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

const criterionKind = () => Schema.Literals(["test_pass", "build_success", "lint_clean", "type_check", "custom", "marker"])
export type CriterionKind = ReturnType<typeof criterionKind>["Type"]

const criterion = () =>
  Schema.Struct({
    kind: criterionKind(),
    /** argv, run without a shell; absent for `marker` and for commands detected from the project. */
    command: Schema.optionalKey(Schema.Array(Schema.String)),
    expectedExitCode: Schema.optionalKey(Schema.Int),
    marker: Schema.optionalKey(Schema.String),
    timeoutMs: Schema.optionalKey(Schema.Int)
  })
export type Criterion = ReturnType<typeof criterion>["Type"]

const loopConfig = () =>
  Schema.Struct({
    maxIterations: Schema.Int,
    maxDurationMs: Schema.optionalKey(Schema.Int),
    noProgressThreshold: Schema.Int,
    cooldownMs: Schema.Int,
    contextBudget: Schema.Finite,
    successCriteria: Schema.Array(criterion())
  })
export type LoopConfig = ReturnType<typeof loopConfig>["Type"]

const criterionResult = () =>
  Schema.Struct({
    kind: criterionKind(),
    passed: Schema.Boolean,
    command: Schema.optionalKey(Schema.Array(Schema.String)),
    exitCode: Schema.optionalKey(Schema.Int),
    timedOut: Schema.optionalKey(Schema.Boolean),
    durationMs: Schema.Finite,
    outputTail: Schema.String,
    /** A stable digest of what failed (failing test names, first error lines), for no-progress detection. */
    fingerprint: Schema.optionalKey(Schema.String)
  })
export type CriterionResult = ReturnType<typeof criterionResult>["Type"]

export const LoopStarted = defineEvent("LoopStarted", () => ({
  loopId: Schema.String,
  goal: Schema.String,
  projectPath: Schema.String,
  /** `session`: driven by the Stop hook of this Claude Code session; `external`: by `ralph-mem ralph run`. */
  driver: Schema.Literals(["session", "external"]),
  sessionId: Schema.optionalKey(Schema.String),
  config: loopConfig(),
  /** A snapshot of the working tree before the loop changed anything: the last resort of a rollback. */
  snapshotRef: Schema.optionalKey(Schema.String)
}))

export const LoopIterationStarted = defineEvent("LoopIterationStarted", () => ({
  loopId: Schema.String,
  iteration: Schema.Int
}))

export const LoopCriteriaEvaluated = defineEvent("LoopCriteriaEvaluated", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  results: Schema.Array(criterionResult())
}))

export const LoopIterationCompleted = defineEvent("LoopIterationCompleted", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  passed: Schema.Boolean,
  filesChanged: Schema.Array(Schema.String),
  snapshotRef: Schema.optionalKey(Schema.String)
}))

export const LoopSucceeded = defineEvent("LoopSucceeded", () => ({
  loopId: Schema.String,
  iteration: Schema.Int
}))

export const LoopFailed = defineEvent("LoopFailed", () => ({
  loopId: Schema.String,
  reason: Schema.String
}))

export const LoopStopped = defineEvent("LoopStopped", () => ({
  loopId: Schema.String,
  reason: Schema.String,
  requestedBy: Schema.String
}))

export const LoopRolledBack = defineEvent("LoopRolledBack", () => ({
  loopId: Schema.String,
  toIteration: Schema.Int,
  snapshotRef: Schema.String,
  rescueSnapshotRef: Schema.String
}))

/** A loop whose driver died is picked up again (ralph-mem ralph resume). */
export const LoopResumed = defineEvent("LoopResumed", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  driver: Schema.Literals(["session", "external"])
}))

export const LoopConfigChanged = defineEvent("LoopConfigChanged", () => ({
  loopId: Schema.String,
  config: loopConfig()
}))
