/**
 * What memory recorded during a loop, for the next iteration's prompt: the decisive results (errors and
 * successes, PRD learnings among them) of the loop's session and of its agent runs, newest first, within
 * a small budget.
 */
import { type Memory, selective } from "@ralph-mem/projections"
import type { Loop } from "./state.ts"

/** The session that an external driver's agent runs are recorded under. */
export const agentSession = (loopId: string) => `ralph-${loopId}`

const MEMORY_TOKENS = 600

export const loopMemory = (memory: Memory, loop: Loop): ReadonlyArray<string> => {
  const rows = memory.db
    .prepare(
      `SELECT event_id AS id, type, session_id AS sessionId, 0 AS score, created_at AS createdAt,
              coalesce(tool_name || ' ' || coalesce(input_summary, '') || ': ', '') || content AS text
       FROM observations WHERE session_id IN (?, ?) AND created_at >= ? ORDER BY id DESC LIMIT 50`
    )
    .all(loop.sessionId ?? "", agentSession(loop.loopId), loop.startedAt) as Array<{ id: string; type: string; sessionId: string; score: number; createdAt: number; text: string }>
  return selective(rows.map((r) => ({ ...r, text: `- [${r.type}] ${r.text.replace(/\s+/g, " ").slice(0, 400)}` })), MEMORY_TOKENS).map((c) => c.text)
}
