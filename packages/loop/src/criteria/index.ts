export { fingerprintFailure, type FingerprintOptions } from "@ralph-mem/projections"
export { type Argv, type DetectableKind, detectCommand, isDetectableKind } from "./detect.ts"
export { type CriteriaEvaluation, evaluateCriteria } from "./evaluate.ts"
export {
  checkMinIterations,
  checkPlanSections,
  DEFAULT_MIN_PLAN_ITERATIONS,
  DEFAULT_PLAN_MARKER,
  DEFAULT_PLAN_SECTIONS
} from "./plan.ts"
export { type CommandOptions, type CommandOutcome, runCommand } from "./process.ts"
export { runCriterion, type RunCriterionOptions } from "./run.ts"
