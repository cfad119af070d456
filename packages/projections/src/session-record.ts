/**
 * What a session did, as its summariser reads it: its prompts and Claude's last reply (from the log),
 * its observations (from the `observations` read model), and its project (from `sessions`).
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import type { ObservationDetail } from "./search/details.ts"

/** What a summariser reads of an observation. */
export type RecordedObservation = Pick<
  ObservationDetail,
  "type" | "toolName" | "inputSummary" | "content" | "errorMessage" | "files"
>

export interface SessionRecord {
  readonly sessionId: string
  readonly project: string | null
  /** Every prompt, in order, as recorded (privacy-filtered and trimmed). */
  readonly prompts: ReadonlyArray<string>
  readonly observations: ReadonlyArray<RecordedObservation>
  /** Claude's last reply in the session, if a Stop hook recorded one. */
  readonly lastReply: string | null
}

export const sessionRecord = (db: SqliteDatabase, sessionId: string): SessionRecord => {
  const stream = `session:${sessionId}`
  const prompts = db
    .prepare(
      `SELECT json_extract(payload, '$.prompt') FROM events
       WHERE stream_id = ? AND type = 'PromptSubmitted' AND redacted_by IS NULL ORDER BY position`
    )
    .pluck()
    .all(stream) as Array<string>
  const lastReply = db
    .prepare(
      `SELECT json_extract(payload, '$.message') FROM events
       WHERE stream_id = ? AND type = 'AssistantReplied' AND redacted_by IS NULL ORDER BY position DESC LIMIT 1`
    )
    .pluck()
    .get(stream) as string | undefined
  const rows = db
    .prepare(
      `SELECT type, tool_name AS toolName, input_summary AS inputSummary, content, error_message AS errorMessage, files
       FROM observations WHERE session_id = ? ORDER BY id`
    )
    .all(sessionId) as Array<Omit<RecordedObservation, "files"> & { files: string }>
  const project = db.prepare(`SELECT project_path FROM sessions WHERE session_id = ?`).pluck().get(sessionId) as
    | string
    | null
    | undefined
  return {
    sessionId,
    project: project ?? null,
    prompts,
    observations: rows.map((row) => ({ ...row, files: JSON.parse(row.files) as Array<string> })),
    lastReply: lastReply ?? null
  }
}

/**
 * Sessions whose summary was written by an older version of the local summariser than `current`: `maintain`
 * and `replay` summarise them again, as a new event. Another summariser's summaries are left as they are.
 */
export const sessionsSummarizedBefore = (db: SqliteDatabase, current: string): Array<string> =>
  db
    .prepare(
      `SELECT session_id FROM sessions
       WHERE summary IS NOT NULL AND (summarizer IS NULL OR summarizer LIKE 'local%') AND summarizer IS NOT ?
       ORDER BY id`
    )
    .pluck()
    .all(current) as Array<string>
