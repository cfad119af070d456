/**
 * The Ralph loop's lifecycle: its state is the fold of these events over a loop's stream.
 *
 * Every schema here is made on first use: hooks other than Stop never touch a loop event, and making
 * them all at start-up cost each hook 0.2 ms.
 */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

/**
 * `plan_sections` and `min_iterations` are the plan loop's quality gate: checks of the plan text and of the
 * iteration count, set by `ralph plan`, never by `--criteria`.
 */
const criterionKind = () =>
  Schema.Literals([
    "test_pass",
    "build_success",
    "lint_clean",
    "type_check",
    "custom",
    "marker",
    "plan_sections",
    "min_iterations"
  ])
export type CriterionKind = ReturnType<typeof criterionKind>["Type"]

const criterion = () =>
  Schema.Struct({
    kind: criterionKind(),
    /** argv, run without a shell; absent for `marker` and for commands detected from the project. */
    command: Schema.optionalKey(Schema.Array(Schema.String)),
    expectedExitCode: Schema.optionalKey(Schema.Int),
    marker: Schema.optionalKey(Schema.String),
    timeoutMs: Schema.optionalKey(Schema.Int),
    /** `plan_sections`: the headings the plan must have. */
    sections: Schema.optionalKey(Schema.Array(Schema.String)),
    /** `min_iterations`: the loop cannot pass before this iteration. */
    minIterations: Schema.optionalKey(Schema.Int)
  })
export type Criterion = ReturnType<typeof criterion>["Type"]

const loopConfig = () =>
  Schema.Struct({
    maxIterations: Schema.Int,
    maxDurationMs: Schema.optionalKey(Schema.Int),
    /** Budget stops: the loop ends once its iterations used this many tokens, or cost this many US dollars. */
    maxTokens: Schema.optionalKey(Schema.Int),
    maxCostUsd: Schema.optionalKey(Schema.Finite),
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

/** A story of a PRD loop, as validated from prd.json when the loop started. */
const prdStory = () =>
  Schema.Struct({
    id: Schema.String,
    title: Schema.String,
    description: Schema.String,
    acceptanceCriteria: Schema.Array(Schema.String),
    /** Lower comes first, as in prd.json. */
    priority: Schema.Finite,
    passes: Schema.Boolean,
    notes: Schema.optionalKey(Schema.String),
    /** Checks for this story only, run after the loop's own. */
    criteria: Schema.optionalKey(Schema.Array(criterion()))
  })
export type PrdStory = ReturnType<typeof prdStory>["Type"]

export const LoopStarted = defineEvent("LoopStarted", () => ({
  loopId: Schema.String,
  goal: Schema.String,
  projectPath: Schema.String,
  /** `session`: driven by the Stop hook of this Claude Code session; `external`: by `ralph-mem ralph run`. */
  driver: Schema.Literals(["session", "external"]),
  sessionId: Schema.optionalKey(Schema.String),
  config: loopConfig(),
  /** A snapshot of the working tree before the loop changed anything: the last resort of a rollback. */
  snapshotRef: Schema.optionalKey(Schema.String),
  /** Why no snapshot could be taken (a file too large to copy, a broken repository): no rollback returns here. */
  snapshotProblem: Schema.optionalKey(Schema.String),
  /** A PRD loop: one story per iteration, highest priority first, until every story passes. */
  prd: Schema.optionalKey(Schema.Struct({ path: Schema.String, stories: Schema.Array(prdStory()) })),
  /** A plan loop: Claude writes a plan, not code; the final plan is saved to `path`. */
  plan: Schema.optionalKey(Schema.Struct({ path: Schema.String }))
}))

export const LoopIterationStarted = defineEvent("LoopIterationStarted", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  /** A PRD loop: the story this iteration works on. */
  storyId: Schema.optionalKey(Schema.String)
}))

export const LoopCriteriaEvaluated = defineEvent("LoopCriteriaEvaluated", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  results: Schema.Array(criterionResult())
}))

/**
 * What an iteration's model turns used, as the agent reported it. Absent: the agent reported nothing
 * (never recorded as zero). `costUsd` is absent when the agent reports tokens but no cost.
 */
const iterationUsage = () =>
  Schema.Struct({
    inputTokens: Schema.Int,
    outputTokens: Schema.Int,
    cacheReadTokens: Schema.Int,
    cacheCreationTokens: Schema.Int,
    costUsd: Schema.optionalKey(Schema.Finite)
  })
export type IterationUsage = ReturnType<typeof iterationUsage>["Type"]

export const LoopIterationCompleted = defineEvent("LoopIterationCompleted", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  passed: Schema.Boolean,
  filesChanged: Schema.Array(Schema.String),
  snapshotRef: Schema.optionalKey(Schema.String),
  /** Why no snapshot of the iteration could be taken: no rollback returns here. */
  snapshotProblem: Schema.optionalKey(Schema.String),
  usage: Schema.optionalKey(iterationUsage())
}))

/**
 * The agent ended on a usage or rate limit: the loop waits until `until` (the reset the agent reported,
 * else a backoff) and runs the same iteration again; the interrupted run does not count.
 */
export const LoopWaited = defineEvent("LoopWaited", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  limit: Schema.Literals(["rate_limit", "usage_limit"]),
  /** When the wait ends (epoch milliseconds). */
  until: Schema.Int,
  /** Whether `until` is the reset time the agent reported, or a backoff. */
  resetReported: Schema.Boolean,
  message: Schema.String,
  usage: Schema.optionalKey(iterationUsage())
}))

/**
 * A turn of the loop's session ended on an API error (Claude Code's StopFailure): the loop resumes at the next
 * prompt.
 */
export const LoopInterrupted = defineEvent("LoopInterrupted", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  error: Schema.String,
  message: Schema.String
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

/** A PRD story passed: the harness's criteria passed in an iteration that worked on it. */
export const LoopStoryPassed = defineEvent("LoopStoryPassed", () => ({
  loopId: Schema.String,
  storyId: Schema.String,
  iteration: Schema.Int
}))

/** A plan loop's final plan, as saved to `path` when the loop succeeded. */
export const LoopPlanSaved = defineEvent("LoopPlanSaved", () => ({
  loopId: Schema.String,
  iteration: Schema.Int,
  path: Schema.String,
  plan: Schema.String
}))

/** A plan loop's guard refused a tool call (appended to the session's stream). */
export const LoopToolBlocked = defineEvent("LoopToolBlocked", () => ({
  sessionId: Schema.String,
  loopId: Schema.String,
  toolName: Schema.String,
  inputSummary: Schema.String,
  reason: Schema.String
}))
