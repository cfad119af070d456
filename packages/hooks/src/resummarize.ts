/**
 * Sessions summarised by an older version of the local summariser are summarised again: a new
 * SessionSummarized event on the session's stream (the old one stays in the log, history is never
 * rewritten). `maintain` and `replay` run it.
 */
import { type MemoryStore, sessionRecord, sessionsSummarizedBefore } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { LOCAL_SUMMARIZER, summarizeSession } from "./summarize.ts"

export interface ResummarizeReport {
  /** Sessions given a summary by the current summariser. */
  readonly summarized: number
  readonly summarizer: string
}

export const resummarizeSessions = (
  memory: MemoryStore,
  options: { readonly home?: string | undefined; readonly writer: string }
) =>
  Effect.gen(function*() {
    let summarized = 0
    for (const sessionId of sessionsSummarizedBefore(memory.db, LOCAL_SUMMARIZER)) {
      const record = sessionRecord(memory.db, sessionId)
      const result = summarizeSession(record, { home: options.home })
      if (result === undefined) continue
      yield* memory.log.append(
        `session:${sessionId}`,
        [{
          _tag: "SessionSummarized",
          sessionId,
          ...(record.project === null ? {} : { projectPath: record.project }),
          summary: result.summary,
          summarizer: LOCAL_SUMMARIZER,
          ...(result.memoryOnly ? { memoryOnly: true } : {})
        }],
        // Two maintenance runs at once summarise a session once.
        { expectedVersion: "any", writer: options.writer, idempotencyKey: `summary:${sessionId}:${LOCAL_SUMMARIZER}` }
      )
      summarized++
    }
    return { summarized, summarizer: LOCAL_SUMMARIZER } satisfies ResummarizeReport
  })
