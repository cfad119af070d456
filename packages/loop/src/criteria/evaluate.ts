/** Checks a loop's success criteria, in order, and decides whether the loop's goal is met. */
import type { Criterion, CriterionResult } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { runCriterion, type RunCriterionOptions } from "./run.ts"

export interface CriteriaEvaluation {
  readonly results: ReadonlyArray<CriterionResult>
  readonly passed: boolean
}

/**
 * Every criterion runs, one after another, even after a failure: each iteration records the full picture (and
 * every failure's fingerprint) for progress detection. Sequential, because checks share the working tree and a
 * build and a test run racing over it would make both flaky.
 */
export const evaluateCriteria = (
  criteria: ReadonlyArray<Criterion>,
  options: RunCriterionOptions
): Effect.Effect<CriteriaEvaluation> =>
  Effect.forEach(criteria, (criterion) => runCriterion(criterion, options)).pipe(
    Effect.map((results) => ({ results, passed: criteriaPassed(results) }))
  )

/**
 * The marker rule. The agent saying "[RALPH_SUCCESS]" may end a loop on its own only when a marker is the ONLY
 * kind of criterion: then passed = the marker was found. As soon as the list also holds command criteria
 * (tests, build, lint, type check, custom), those must pass as well, always: the marker is still evaluated and
 * recorded, but it can never outvote a failing command. Both cases reduce to "every result passed".
 *
 * An empty list passes nothing: with no criteria there is nothing the harness verified, and a loop that ends
 * on its first iteration for that reason would look like a success it is not.
 */
const criteriaPassed = (results: ReadonlyArray<CriterionResult>): boolean =>
  results.length > 0 && results.every((result) => result.passed)
