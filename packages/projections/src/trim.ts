/**
 * Fitting memories into a token budget. Four strategies, pure functions over candidate memories:
 *   recency:     the newest survive (SessionStart's recent past);
 *   relevance:   the highest scores survive (what a prompt's search found);
 *   selective:   during a loop, only the decisive results (errors and successes) are kept;
 *   compression: past a threshold, observations of one session and kind merge into one compact line,
 *                written by the deterministic summariser (no model, no cost).
 * Each returns memories in the order they should be shown; none exceeds the budget.
 */
import { estimateTokens } from "./search/tokens.ts"
import { oneLine } from "./text.ts"

export interface Candidate {
  readonly id: string
  readonly type: string
  readonly sessionId: string | null
  readonly score: number
  readonly createdAt: number
  readonly text: string
}

const tokensOf = (c: Candidate) => estimateTokens(c.text)

/** Takes candidates in `order` while they fit. */
const takeWithin = (ordered: ReadonlyArray<Candidate>, budget: number): Array<Candidate> => {
  const kept: Array<Candidate> = []
  let used = 0
  for (const c of ordered) {
    const cost = tokensOf(c)
    if (used + cost > budget) continue
    kept.push(c)
    used += cost
  }
  return kept
}

export const byRecency = (candidates: ReadonlyArray<Candidate>, budget: number): Array<Candidate> =>
  takeWithin([...candidates].sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id)), budget)

export const byRelevance = (candidates: ReadonlyArray<Candidate>, budget: number): Array<Candidate> =>
  takeWithin([...candidates].sort((a, b) => b.score - a.score || b.createdAt - a.createdAt), budget)

/** The results that decide a loop's next step: what failed and what passed. */
export const DECISIVE_TYPES: ReadonlySet<string> = new Set(["error", "success"])

export const selective = (candidates: ReadonlyArray<Candidate>, budget: number): Array<Candidate> =>
  byRecency(candidates.filter((c) => DECISIVE_TYPES.has(c.type)), budget)


/**
 * Past `threshold` candidates, each group of the same session and type with more than one member
 * becomes one line: "3 error(s) in session s1: first; second; third" (newest first, each clipped).
 * Groups of one, and everything when under the threshold, are left as they are.
 */
export const compress = (candidates: ReadonlyArray<Candidate>, threshold: number): Array<Candidate> => {
  if (candidates.length <= threshold) return [...candidates]
  const groups = new Map<string, Array<Candidate>>()
  for (const c of candidates) {
    const key = `${c.sessionId ?? "-"}\u0000${c.type}`
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  return [...groups.values()].map((group) => {
    if (group.length === 1) return group[0]!
    const newest = [...group].sort((a, b) => b.createdAt - a.createdAt)
    const head = newest[0]!
    return {
      id: newest.map((c) => c.id).join(","),
      type: head.type,
      sessionId: head.sessionId,
      score: Math.max(...group.map((c) => c.score)),
      createdAt: head.createdAt,
      text: `${group.length} ${head.type}(s) in session ${head.sessionId ?? "-"}: ${newest.map((c) => oneLine(c.text, 80)).join("; ")}`
    }
  })
}

/** The four shares of the context window, in tokens. */
export interface BudgetShares {
  readonly system: number
  readonly injectedMemory: number
  readonly task: number
  readonly response: number
}

export const budgetShares = (
  contextWindow: number,
  shares: { readonly system: number; readonly injectedMemory: number; readonly task: number; readonly response: number }
): BudgetShares => ({
  system: Math.floor(contextWindow * shares.system),
  injectedMemory: Math.floor(contextWindow * shares.injectedMemory),
  task: Math.floor(contextWindow * shares.task),
  response: Math.floor(contextWindow * shares.response)
})
