/**
 * What memory recorded during a loop, for the next iteration's prompt: the decisive results (errors and
 * successes, PRD learnings among them) of the loop's session and of its agent runs, newest first, within
 * a small budget.
 */
import { type Memory, observationsOfSessionsSince, selective } from "@ralph-mem/projections"
import type { Loop } from "./state.ts"

/** The session that an external driver's agent runs are recorded under. */
export const agentSession = (loopId: string) => `ralph-${loopId}`

const MEMORY_TOKENS = 600

export const loopMemory = (memory: Memory, loop: Loop): ReadonlyArray<string> => {
  const rows = observationsOfSessionsSince(memory.db, [loop.sessionId ?? "", agentSession(loop.loopId)], loop.startedAt, 50)
  return selective(rows.map((r) => ({ ...r, score: 0, text: `- [${r.type}] ${r.text.replace(/\s+/g, " ").slice(0, 400)}` })), MEMORY_TOKENS).map((c) => c.text)
}
