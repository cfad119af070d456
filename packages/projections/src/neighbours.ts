/**
 * Layer 2 by id or by session, for the memory tools: an observation with its neighbours in its session, a
 * session's observations, what the session row says about it, and which ids were forgotten.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { fullDetails, type ObservationDetail } from "./search/details.ts"

export interface Neighbourhood {
  readonly target: ObservationDetail
  /** Observations of the same session just before the target, oldest first. */
  readonly before: ReadonlyArray<ObservationDetail>
  readonly after: ReadonlyArray<ObservationDetail>
}

const eventIds = (db: SqliteDatabase, sql: string, ...params: ReadonlyArray<string | number>): Array<string> =>
  db
    .prepare(sql)
    .pluck()
    .all(...params) as Array<string>

/** An observation (by event id) with up to `before` earlier and `after` later observations of its session. */
export const observationNeighbours = (
  db: SqliteDatabase,
  eventId: string,
  before: number,
  after: number
): Neighbourhood | undefined => {
  const [target] = fullDetails(db, [eventId])
  if (target === undefined) return undefined
  // A note written outside a session has no neighbours.
  const around = (sql: string, count: number) =>
    target.sessionId === null || count === 0 ? [] : eventIds(db, sql, target.sessionId, target.position, count)
  const earlier = around(
    `SELECT event_id FROM observations WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    before
  )
  const later = around(`SELECT event_id FROM observations WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`, after)
  return { target, before: fullDetails(db, earlier), after: fullDetails(db, later) }
}

/** A session's observations in full, in order: `limit` of them, after the first `offset`. */
export const sessionDetails = (
  db: SqliteDatabase,
  sessionId: string,
  limit: number,
  offset = 0
): ReadonlyArray<ObservationDetail> =>
  fullDetails(
    db,
    eventIds(
      db,
      `SELECT event_id FROM observations WHERE session_id = ? ORDER BY id LIMIT ? OFFSET ?`,
      sessionId,
      limit,
      offset
    )
  )

export interface SessionOverview {
  readonly sessionId: string
  readonly projectPath: string | null
  readonly startedAt: number
  readonly endedAt: number | null
  readonly endReason: string | null
  readonly prompts: number
  readonly summary: string | null
  readonly observations: number
}

export const sessionOverview = (db: SqliteDatabase, sessionId: string): SessionOverview | undefined =>
  db
    .prepare(
      `SELECT session_id AS sessionId, project_path AS projectPath, started_at AS startedAt, ended_at AS endedAt,
              end_reason AS endReason, prompts, summary,
              (SELECT count(*) FROM observation_rows o WHERE o.session_id = s.session_id) AS observations
       FROM sessions s WHERE session_id = ?`
    )
    .get(sessionId) as SessionOverview | undefined

/** Which of these event ids name events that a forget redacted. */
export const forgottenEventIds = (db: SqliteDatabase, ids: ReadonlyArray<string>): Set<string> =>
  new Set(
    eventIds(
      db,
      `SELECT event_id FROM events WHERE event_id IN (SELECT value FROM json_each(?)) AND redacted_by IS NOT NULL`,
      JSON.stringify(ids)
    )
  )
