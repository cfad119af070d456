/**
 * What memory recorded during a loop, for the next iteration's prompt: the decisive results (errors and
 * successes, PRD learnings among them) of the loop's session and of its agent runs, newest first, within
 * a small token budget.
 */
import { estimateTokens, type MemoryStore, observationsOfSessionsSince } from "@ralph-mem/projections"
import type { Loop } from "./state.ts"

/** The session that an external driver's agent runs are recorded under. */
export const agentSession = (loopId: string) => `ralph-${loopId}`

/** The tokens of the loop's memory in the next prompt. */
const MEMORY_TOKENS = 600

/** The results that decide a loop's next step: what failed and what passed. */
const DECISIVE_TYPES: ReadonlySet<string> = new Set(["error", "success"])

interface Line {
  readonly id: string
  readonly type: string
  readonly createdAt: number
  readonly text: string
}

/** Newest first, as many as fit the budget: a line too long for what is left is skipped for shorter ones. */
const newestWithin = (lines: ReadonlyArray<Line>, budget: number): Array<Line> => {
  const kept: Array<Line> = []
  let used = 0
  for (const line of [...lines].sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id))) {
    const cost = estimateTokens(line.text)
    if (used + cost > budget) continue
    kept.push(line)
    used += cost
  }
  return kept
}

export const loopMemory = (memory: MemoryStore, loop: Loop): ReadonlyArray<string> => {
  const rows = observationsOfSessionsSince(
    memory.db,
    [loop.sessionId ?? "", agentSession(loop.loopId)],
    loop.startedAt,
    50
  )
  const lines = rows
    .filter((r) => DECISIVE_TYPES.has(r.type))
    .map((r) => ({ ...r, text: `- [${r.type}] ${r.text.replace(/\s+/g, " ").slice(0, 400)}` }))
  return newestWithin(lines, MEMORY_TOKENS).map((line) => line.text)
}
