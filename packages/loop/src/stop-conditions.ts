/**
 * Stop conditions, checked after an iteration fails its criteria. Pure: the time comes in.
 * No progress means the same failure fingerprint and no file changed for N iterations in a row.
 * Budgets count what the agent reported; a budget on something never reported cannot stop the loop.
 */
import { type Loop, loopSpend } from "./state.ts"

const fingerprintOf = (
  results: ReadonlyArray<{ readonly passed: boolean; readonly fingerprint?: string }> | undefined
) => (results ?? []).filter((r) => !r.passed).map((r) => r.fingerprint ?? "").join("|")

export const stopCondition = (loop: Loop, now: number): string | undefined => {
  const completed = loop.iterations.filter((it) => it.completedAt !== undefined)
  const last = completed.at(-1)
  if (last !== undefined && last.iteration >= loop.config.maxIterations) {
    return `max iterations (${loop.config.maxIterations}) reached`
  }
  if (loop.config.maxDurationMs !== undefined && now - loop.startedAt >= loop.config.maxDurationMs) {
    return `max duration (${Math.round(loop.config.maxDurationMs / 1000)} s) reached`
  }
  const spend = loopSpend(loop)
  if (loop.config.maxTokens !== undefined && spend.tokens !== undefined && spend.tokens >= loop.config.maxTokens) {
    return `max tokens (${loop.config.maxTokens}) reached: ${spend.tokens} used`
  }
  if (loop.config.maxCostUsd !== undefined && spend.costUsd !== undefined && spend.costUsd >= loop.config.maxCostUsd) {
    return `max cost ($${loop.config.maxCostUsd}) reached: $${spend.costUsd.toFixed(4)} spent`
  }
  const window = completed.slice(-loop.config.noProgressThreshold)
  if (window.length === loop.config.noProgressThreshold && window.every((it) => it.passed === false)) {
    const prints = new Set(window.map((it) => fingerprintOf(it.results)))
    const changedFiles = window.some((it) => (it.filesChanged ?? []).length > 0)
    if (prints.size === 1 && !changedFiles) {
      return `no progress: the same failure and no file changed for ${loop.config.noProgressThreshold} iterations`
    }
  }
  return undefined
}
