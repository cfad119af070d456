/**
 * What an id in injected text opens when it is not an observation: a session (its first event's position
 * names it: its summary and the index of its observations), or any other event of the log (a belief, a
 * decision, a loop's checks), as it was recorded.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { positionOfRef } from "./search/details.ts"

export interface SessionIndexLine {
  readonly ref: string
  readonly type: string
  readonly title: string
}

export interface EventDetail {
  readonly ref: string
  readonly id: string
  readonly type: string
  readonly streamId: string
  readonly createdAt: number
  readonly payload: Readonly<Record<string, unknown>>
  /** When the id names a session. */
  readonly session?: {
    readonly sessionId: string
    readonly summary: string | null
    readonly observations: ReadonlyArray<SessionIndexLine>
  }
}

type EventRow = Omit<EventDetail, "ref" | "payload" | "session"> & {
  readonly position: number
  readonly payload: string
}

/** How many of a session's observations its detail lists (the latest). */
const SESSION_INDEX = 50

/** Events by event id or short id (`@12`), redacted ones left out, in log order. */
export const eventDetails = (db: SqliteDatabase, ids: ReadonlyArray<string>): Array<EventDetail> => {
  const rows = db
    .prepare(
      `SELECT position, event_id AS id, type, stream_id AS streamId, occurred_at AS createdAt, payload FROM events
       WHERE redacted_by IS NULL
         AND (event_id IN (SELECT value FROM json_each(@ids)) OR position IN (SELECT value FROM json_each(@positions)))
       ORDER BY position`
    )
    .all({
      ids: JSON.stringify(ids),
      positions: JSON.stringify(ids.flatMap((id) => positionOfRef(id) ?? []))
    }) as Array<EventRow>
  const session = db.prepare(`SELECT session_id AS sessionId, summary FROM sessions WHERE id = ?`)
  const index = db.prepare(
    `SELECT '@' || id AS ref, type,
            trim(coalesce(tool_name || ' ', '') || coalesce(input_summary, substr(content, 1, 120))) AS title
     FROM observations WHERE session_id = ? ORDER BY id DESC LIMIT ?`
  )
  return rows.map(({ position, payload, ...row }) => {
    const started = session.get(position) as { readonly sessionId: string; readonly summary: string | null } | undefined
    return {
      ref: `@${position}`,
      ...row,
      payload: JSON.parse(payload) as Record<string, unknown>,
      ...(started === undefined
        ? {}
        : {
          session: {
            ...started,
            observations: (index.all(started.sessionId, SESSION_INDEX) as Array<SessionIndexLine>).reverse()
          }
        })
    }
  })
}
