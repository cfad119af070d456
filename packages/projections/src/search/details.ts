/**
 * Layers 2 and 3 of the search: each hit with the observations just before and after it in its session, and
 * complete observations (content, metadata, files) by id.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import type { IndexHit } from "./hits.ts"
import { statement, values } from "./statements.ts"
import { estimateTokens } from "./tokens.ts"

export interface ObservationDetail {
  readonly id: string
  readonly position: number
  readonly sessionId: string | null
  readonly type: string
  readonly toolName: string | null
  readonly inputSummary: string | null
  readonly content: string
  readonly errorMessage: string | null
  readonly files: ReadonlyArray<string>
  readonly metadata: Record<string, unknown>
  readonly createdAt: number
  readonly tokens: number
}

const DETAIL_COLUMNS = `event_id AS id, id AS position, session_id AS sessionId, type, tool_name AS toolName,
  input_summary AS inputSummary, content, error_message AS errorMessage, files, metadata, created_at AS createdAt`

type DetailRow = Omit<ObservationDetail, "files" | "metadata" | "tokens"> & { files: string; metadata: string }

const toDetail = (row: DetailRow): ObservationDetail => {
  const detail = {
    ...row,
    files: JSON.parse(row.files) as Array<string>,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>
  }
  return { ...detail, tokens: estimateTokens(JSON.stringify(detail)) }
}

/**
 * Layer 3: complete observations by event id, or by the short id injected text shows (`@12`, the event's
 * position in the log; `#12` and `12` too). Unknown ids are left out.
 */
export const fullDetails = (db: SqliteDatabase, ids: ReadonlyArray<string>): ReadonlyArray<ObservationDetail> =>
  (statement(
    db,
    // Positions first, then the rows: an OR of the event id and the position would scan every observation.
    `SELECT ${DETAIL_COLUMNS} FROM observations
     WHERE id IN (SELECT position FROM events WHERE event_id IN (SELECT value FROM json_each(@ids))
                  UNION SELECT value FROM json_each(@positions))
     ORDER BY id`
  ).all({
    ids: JSON.stringify(ids),
    positions: JSON.stringify(ids.flatMap((id) => positionOfRef(id) ?? []))
  }) as Array<DetailRow>).map(toDetail)

/** The position a short id names, if it is one: `@12` as injected text shows it, `#12` as audit prints it, `12`. */
export const positionOfRef = (id: string): number | undefined => {
  const digits = /^[@#]?(\d{1,15})$/.exec(id.trim())?.[1]
  return digits === undefined ? undefined : Number(digits)
}

export interface TimelineEntry {
  readonly hit: IndexHit
  /** Observations of the same session just before the hit, oldest first. */
  readonly before: ReadonlyArray<ObservationDetail>
  readonly after: ReadonlyArray<ObservationDetail>
  readonly tokens: number
}

/** Layer 2: each hit with its neighbours in time within its session. */
export const timelineOf = (
  db: SqliteDatabase,
  hits: ReadonlyArray<IndexHit>,
  around = 2
): ReadonlyArray<TimelineEntry> => {
  const columns = `SELECT ${DETAIL_COLUMNS} FROM observations`
  const before = statement(db, `${columns} WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`)
  const after = statement(db, `${columns} WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`)
  const positionOf = values(db, "SELECT id FROM observations WHERE event_id = ?")
  return hits.map((hit) => {
    // A session summary's neighbours are its session's last observations.
    const position = hit.kind === "observation" ? (positionOf.get(hit.id) as number) : Number.MAX_SAFE_INTEGER
    const earlier = hit.sessionId === null
      ? []
      : (before.all(hit.sessionId, position, around) as Array<DetailRow>).map(toDetail).reverse()
    const later = hit.sessionId === null || hit.kind === "session"
      ? []
      : (after.all(hit.sessionId, position, around) as Array<DetailRow>).map(toDetail)
    const tokens = hit.tokens + [...earlier, ...later].reduce((sum, d) => sum + Math.min(d.tokens, 100), 0)
    return { hit, before: earlier, after: later, tokens }
  })
}
