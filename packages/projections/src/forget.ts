/**
 * What a forget removes. The user chooses memories (one by id, a whole session, or what a query finds);
 * the forget also takes what was derived from them and still holds their text: the context injections
 * that quoted them (each injection records its sources) and the summaries of their sessions.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { searchIndex } from "./search/engine.ts"

export type ForgetSelection =
  | { readonly by: "id"; readonly ids: ReadonlyArray<string> }
  | { readonly by: "session"; readonly sessionId: string }
  | { readonly by: "query"; readonly query: string; readonly project?: string }

export interface ForgetPlan {
  /** The events the user chose. */
  readonly chosen: ReadonlyArray<{ readonly eventId: string; readonly type: string; readonly preview: string }>
  /** Events derived from them that also hold their text. */
  readonly derived: ReadonlyArray<{ readonly eventId: string; readonly type: string }>
  /** Ids that matched nothing (for `by: "id"`). */
  readonly unknown: ReadonlyArray<string>
  /** How the user chose, for the MemoryForgotten event: never the content itself. */
  readonly selector: string
}

/** The fields that hold an event's text, in the order a preview looks for one. */
const TEXT_FIELDS = ["content", "text", "prompt", "message", "summary", "goal", "decision", "value", "title", "finding", "note", "steps"]

const preview = (payload: string) => {
  const value = JSON.parse(payload) as Record<string, unknown>
  const text = TEXT_FIELDS.map((field) => value[field]).map((v) => (Array.isArray(v) ? v.join("; ") : v)).find((v) => typeof v === "string")
  return typeof text === "string" ? text.replace(/\s+/g, " ").slice(0, 100) : ""
}

interface EventRow {
  readonly eventId: string
  readonly type: string
  readonly payload: string
  readonly streamId: string
}

const liveEvents = (db: SqliteDatabase, where: string, ...params: ReadonlyArray<string>) =>
  db
    .prepare(`SELECT event_id AS eventId, type, payload, stream_id AS streamId FROM events WHERE redacted_by IS NULL AND type != 'MemoryForgotten' AND ${where} ORDER BY position`)
    .all(...params) as Array<EventRow>

export const planForget = (db: SqliteDatabase, selection: ForgetSelection): ForgetPlan => {
  let chosen: Array<EventRow>
  let unknown: Array<string> = []
  let selector: string
  if (selection.by === "id") {
    chosen = liveEvents(db, "event_id IN (SELECT value FROM json_each(?))", JSON.stringify(selection.ids))
    unknown = selection.ids.filter((id) => !chosen.some((e) => e.eventId === id))
    selector = `${selection.ids.length} id(s)`
  } else if (selection.by === "session") {
    chosen = liveEvents(db, "stream_id = ?", `session:${selection.sessionId}`)
    selector = `session ${selection.sessionId}`
  } else {
    // The words as given, never what they may also mean: a forget selects only what its query names.
    const project = selection.project === undefined ? {} : { project: selection.project }
    const { hits } = searchIndex(db, { query: selection.query, limit: 1000, standIns: false, ...project })
    const ids = hits.filter((h) => h.kind === "observation").map((h) => h.id)
    chosen = liveEvents(db, "event_id IN (SELECT value FROM json_each(?))", JSON.stringify(ids))
    selector = `query (${chosen.length} match(es))`
  }
  const chosenIds = new Set(chosen.map((e) => e.eventId))
  const sessions = [...new Set(chosen.filter((e) => e.streamId.startsWith("session:")).map((e) => e.streamId))]
  const derived = [
    ...liveEvents(
      db,
      "type = 'ContextInjected' AND EXISTS (SELECT 1 FROM json_each(json_extract(payload, '$.sources')) WHERE value IN (SELECT value FROM json_each(?)))",
      JSON.stringify([...chosenIds])
    ),
    ...liveEvents(db, "type = 'SessionSummarized' AND stream_id IN (SELECT value FROM json_each(?))", JSON.stringify(sessions))
  ].filter((e, i, all) => !chosenIds.has(e.eventId) && all.findIndex((o) => o.eventId === e.eventId) === i)
  return {
    chosen: chosen.map((e) => ({ eventId: e.eventId, type: e.type, preview: preview(e.payload) })),
    derived: derived.map((e) => ({ eventId: e.eventId, type: e.type })),
    unknown,
    selector
  }
}

/**
 * After a forget commits: move every page out of the WAL into the database file and truncate the
 * WAL, so no copy of the forgotten text stays readable in the WAL (secure_delete and the FTS
 * secure-delete option have already zeroed it in the database file).
 */
export const scrubAfterForget = (db: SqliteDatabase): void => {
  db.pragma("wal_checkpoint(TRUNCATE)")
}
