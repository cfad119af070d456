/**
 * What a forget removes. The user chooses memories (one by id, a whole session, or what a query finds);
 * the forget also takes what was derived from them and still holds their text: the summaries of their
 * sessions, and the context injections that quoted any of these (each injection records its sources).
 */
import { type SqliteDatabase, streams } from "@ralph-mem/events"
import { positionOfRef } from "./search/details.ts"
import { searchIndex } from "./search/hits.ts"

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
const TEXT_FIELDS = [
  "content",
  "text",
  "prompt",
  "message",
  "summary",
  "goal",
  "decision",
  "value",
  "title",
  "finding",
  "note",
  "steps"
]
/** Every field whose text a forget must find wherever it was copied (files beside the database). */
const COPIED_FIELDS = new Set([
  ...TEXT_FIELDS,
  "inputSummary",
  "errorMessage",
  "rationale",
  "option",
  "rejectedBecause",
  "plan"
])

const preview = (payload: string) => {
  const value = JSON.parse(payload) as Record<string, unknown>
  const text = TEXT_FIELDS.map((field) => value[field])
    .map((v) => (Array.isArray(v) ? v.join("; ") : v))
    .find((v) => typeof v === "string")
  return typeof text === "string" ? text.replace(/\s+/g, " ").slice(0, 100) : ""
}

/** The text of an event's payload: the strings of its text fields, at any depth (alternatives hold objects). */
export const payloadTexts = (payload: string): Array<string> => {
  const texts: Array<string> = []
  const walk = (value: unknown, field: string | undefined): void => {
    if (typeof value === "string") {
      if (field !== undefined && COPIED_FIELDS.has(field)) texts.push(value)
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, field)
    } else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) walk(inner, key)
    }
  }
  walk(JSON.parse(payload), undefined)
  return texts
}

interface EventRow {
  readonly position: number
  readonly eventId: string
  readonly type: string
  readonly payload: string
  readonly streamId: string
}

const liveEvents = (db: SqliteDatabase, where: string, ...params: ReadonlyArray<string>) =>
  db
    .prepare(
      `SELECT position, event_id AS eventId, type, payload, stream_id AS streamId FROM events
       WHERE redacted_by IS NULL AND type != 'MemoryForgotten' AND ${where} ORDER BY position`
    )
    .all(...params) as Array<EventRow>

/**
 * The event types whose text a query is matched against in the log (search indexes only some of them):
 * session memory and working memory. Loop events are left to `forget <id>`: a running loop needs them.
 */
const QUERIED_TYPES = [
  "ObservationRecorded",
  "PromptSubmitted",
  "AssistantReplied",
  "SessionSummarized",
  "NoteInjected",
  "ContextInjected",
  "DecisionRecorded",
  "BeliefSet",
  "TaskStarted",
  "TaskStepsPlanned",
  "TaskFindingRecorded",
  "TaskHandoffWritten"
]

/**
 * The events of the log whose text holds every word of the query (case-insensitively), whatever their
 * project: prompts, Claude's replies and observations recorded without a project are not in the search
 * results, and a forget must find them too.
 */
const eventsHoldingEveryWord = (db: SqliteDatabase, query: string): Array<EventRow> => {
  const words = [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))]
  if (words.length === 0) return []
  const found: Array<EventRow> = []
  const page = db.prepare(
    `SELECT position, event_id AS eventId, type, payload, stream_id AS streamId FROM events
     WHERE position > ? AND redacted_by IS NULL AND type IN (SELECT value FROM json_each(?))
     ORDER BY position LIMIT 1000`
  )
  for (let after = 0;;) {
    const rows = page.all(after, JSON.stringify(QUERIED_TYPES)) as Array<EventRow>
    if (rows.length === 0) return found
    for (const row of rows) {
      const text = payloadTexts(row.payload).join("\n").toLowerCase()
      if (words.every((word) => text.includes(word))) found.push(row)
    }
    after = rows.at(-1)!.position
  }
}

/** The SessionSummarized events of these sessions that still hold their text. */
const summariesOf = (db: SqliteDatabase, sessionStreams: ReadonlyArray<string>) =>
  liveEvents(
    db,
    "type = 'SessionSummarized' AND stream_id IN (SELECT value FROM json_each(?))",
    JSON.stringify(sessionStreams)
  )

/** A piece of a text long enough to find where the text was quoted, whitespace collapsed as injections write it. */
const quotedSnippet = (text: string): string | undefined => {
  const flat = text.replace(/\s+/g, " ").trim().slice(0, 48)
  return flat.length >= 20 ? flat : undefined
}

/**
 * The injections that quoted any of these events: by their sources (event ids; before sources named a
 * summary by its event, an injection named it by its session id, or not at all), or, for those older
 * injections, by a piece of the quoted text found in theirs.
 */
const injectionsQuoting = (db: SqliteDatabase, quoted: ReadonlyArray<EventRow>): Array<EventRow> => {
  const ids = quoted.map((e) => e.eventId)
  const summarizedSessions = quoted
    .filter((e) => e.type === "SessionSummarized")
    .map((e) => e.streamId.slice("session:".length))
  const snippets = quoted.flatMap((e) => payloadTexts(e.payload).flatMap((t) => quotedSnippet(t) ?? []))
  return liveEvents(
    db,
    `type = 'ContextInjected' AND (
       EXISTS (SELECT 1 FROM json_each(json_extract(payload, '$.sources'))
               WHERE value IN (SELECT value FROM json_each(?)))
       OR EXISTS (SELECT 1 FROM json_each(?) s WHERE instr(
            replace(replace(json_extract(payload, '$.text'), char(10), ' '), char(9), ' '), s.value) > 0))`,
    JSON.stringify([...ids, ...summarizedSessions]),
    JSON.stringify(snippets)
  )
}

const unique = (rows: ReadonlyArray<EventRow>, except: ReadonlySet<string> = new Set()) =>
  rows.filter((e, i, all) => !except.has(e.eventId) && all.findIndex((o) => o.eventId === e.eventId) === i)

/** What the user chose, and how to say so in the MemoryForgotten event. */
const choose = (db: SqliteDatabase, selection: ForgetSelection) => {
  if (selection.by === "id") {
    // An event id, or its position as show takes it (`@12`, `#12`); positions first, then the rows, as an OR
    // of the event id and the position would scan the log.
    const chosen = liveEvents(
      db,
      `position IN (SELECT position FROM events WHERE event_id IN (SELECT value FROM json_each(?))
                    UNION SELECT value FROM json_each(?))`,
      JSON.stringify(selection.ids),
      JSON.stringify(selection.ids.flatMap((id) => positionOfRef(id) ?? []))
    )
    return {
      chosen,
      unknown: selection.ids.filter((id) => !chosen.some((e) => e.eventId === id || e.position === positionOfRef(id))),
      selector: `${selection.ids.length} id(s)`
    }
  }
  if (selection.by === "session") {
    return {
      chosen: liveEvents(db, "stream_id = ?", streams.session(selection.sessionId)),
      unknown: [],
      selector: `session ${selection.sessionId}`
    }
  }
  // What search finds (observations and session summaries of the project) for the words as given, never
  // what they may also mean (a forget selects only what its query names), and whatever else in the log
  // holds every word of the query.
  const { hits } = searchIndex(db, {
    query: selection.query,
    limit: 1000,
    standIns: false,
    ...(selection.project === undefined ? {} : { project: selection.project })
  })
  const observations = liveEvents(
    db,
    "event_id IN (SELECT value FROM json_each(?))",
    JSON.stringify(hits.filter((h) => h.kind === "observation").map((h) => h.id))
  )
  const summaries = summariesOf(
    db,
    hits.filter((h) => h.kind === "session").map((h) => streams.session(h.id))
  )
  const chosen = unique([...observations, ...summaries, ...eventsHoldingEveryWord(db, selection.query)])
  return { chosen, unknown: [], selector: `query (${chosen.length} match(es))` }
}

export const planForget = (
  db: SqliteDatabase,
  selection: ForgetSelection
): ForgetPlan & { readonly texts: ReadonlyArray<string> } => {
  const { chosen, unknown, selector } = choose(db, selection)
  const chosenIds = new Set(chosen.map((e) => e.eventId))
  const sessions = [...new Set(chosen.filter((e) => e.streamId.startsWith("session:")).map((e) => e.streamId))]
  const summaries = unique(summariesOf(db, sessions), chosenIds)
  const derived = unique([...summaries, ...injectionsQuoting(db, [...chosen, ...summaries])], chosenIds)
  return {
    chosen: chosen.map((e) => ({ eventId: e.eventId, type: e.type, preview: preview(e.payload) })),
    derived: derived.map((e) => ({ eventId: e.eventId, type: e.type })),
    unknown,
    selector,
    texts: [...new Set([...chosen, ...derived].flatMap((e) => payloadTexts(e.payload)))]
  }
}

/**
 * Injection items name a session summary by its session (search hits and summaries are keyed by
 * session): the injection records the summary's event instead, so a forget finds it. Other sources
 * are event ids already.
 */
export const sourceEventIds = (db: SqliteDatabase, sources: ReadonlyArray<string>): Array<string> => {
  if (sources.length === 0) return []
  const resolved = db
    .prepare(
      `SELECT coalesce(
         (SELECT event_id FROM events WHERE event_id = s.value),
         (SELECT event_id FROM events
          WHERE stream_id = 'session:' || s.value AND type = 'SessionSummarized' AND redacted_by IS NULL
          ORDER BY position DESC LIMIT 1),
         s.value) FROM json_each(?) s ORDER BY s.key`
    )
    .pluck()
    .all(JSON.stringify(sources)) as Array<string>
  return [...new Set(resolved)]
}
