/** Reads over the projections that memory injection and the commands share. */
import type { SqliteDatabase } from "@ralph-mem/events"

export interface ObservationHit {
  readonly id: number
  readonly eventId: string
  readonly sessionId: string | null
  readonly type: string
  readonly toolName: string | null
  readonly inputSummary: string | null
  readonly content: string
  readonly errorMessage: string | null
  readonly createdAt: number
}

export interface SessionSummary {
  /** The position of the session's first event: how injected text and `ralph-mem show` name it. */
  readonly id: number
  readonly sessionId: string
  readonly startedAt: number
  readonly endedAt: number | null
  readonly summary: string
}

export interface OpenLoop {
  readonly loopId: string
  readonly goal: string
  readonly iterations: number
  readonly maxIterations: number
  readonly sessionId: string | null
  readonly criteriaResults: string
  readonly mode: "build" | "prd" | "plan"
  readonly storiesTotal: number
  readonly storiesPassed: number
}

const OBSERVATION_COLUMNS = `o.id, o.event_id AS eventId, o.session_id AS sessionId, o.type, o.tool_name AS toolName,
  o.input_summary AS inputSummary, o.content, o.error_message AS errorMessage, o.created_at AS createdAt`

/** Observations of a project (notes carry it; tool observations take it from their session). */
const IN_PROJECT = `o.project_path = @project`

/** A prompt that only runs one of ralph-mem's own slash commands. */
const MEMORY_PROMPT = `ltrim(e.payload ->> '$.prompt') LIKE '/ralph-mem:%'`

/** A tool call that only reads or writes memory: ralph-mem's MCP tools, or its CLI run from Bash. */
const MEMORY_TOOL = `(o.tool_name LIKE 'mcp\\_\\_plugin\\_ralph-mem\\_%' ESCAPE '\\' OR (o.tool_name = 'Bash' AND (
  o.input_summary LIKE 'ralph-mem %' OR o.input_summary LIKE 'npx ralph-mem %'
  OR o.input_summary LIKE '%/ralph-mem.mjs %' OR o.input_summary LIKE '%/bin/ralph-mem %')))`

/**
 * The summaries of a project's latest sessions that did work: a session whose prompts were all ralph-mem
 * commands and whose tool calls all read or wrote memory is not one.
 */
export const recentWorkSessions = (db: SqliteDatabase, project: string, limit: number): Array<SessionSummary> =>
  db
    .prepare(
      `SELECT s.id, s.session_id AS sessionId, s.started_at AS startedAt, s.ended_at AS endedAt, s.summary
       FROM sessions s
       WHERE s.project_path = ? AND s.summary IS NOT NULL AND s.memory_only = 0 AND (
         EXISTS (SELECT 1 FROM observations o
                 WHERE o.session_id = s.session_id AND o.type != 'note' AND NOT ${MEMORY_TOOL})
         OR EXISTS (SELECT 1 FROM events e
                    WHERE e.stream_id = s.stream_id AND e.type = 'PromptSubmitted' AND NOT ${MEMORY_PROMPT}))
       ORDER BY s.started_at DESC LIMIT ?`
    )
    .all(project, limit) as Array<SessionSummary>

/**
 * What a session has been told since its context last started afresh (a compaction or a clear: SessionStart
 * with that source), each source with the hooks whose injections named it.
 */
export const toldInSession = (db: SqliteDatabase, sessionId: string): Map<string, Set<string>> => {
  const rows = db
    .prepare(
      `SELECT e.payload ->> '$.hookEvent' AS hook, e.payload ->> '$.sources' AS sources FROM events e
       WHERE e.stream_id = @stream AND e.type = 'ContextInjected'
         AND e.position > coalesce((SELECT max(c.position) FROM events c
                                    WHERE c.stream_id = @stream AND c.type = 'SessionStarted'
                                      AND c.payload ->> '$.source' IN ('compact', 'clear')), 0)`
    )
    .all({ stream: `session:${sessionId}` }) as Array<{ readonly hook: string; readonly sources: string }>
  const told = new Map<string, Set<string>>()
  for (const { hook, sources } of rows) {
    for (const source of JSON.parse(sources) as Array<string>) {
      told.set(source, (told.get(source) ?? new Set()).add(hook))
    }
  }
  return told
}

/** The log positions of events, and of sessions (their first event's), by event id or session id. */
export const positionsOf = (db: SqliteDatabase, ids: ReadonlyArray<string>): Map<string, number> => {
  const rows = db
    .prepare(
      `SELECT event_id AS id, position FROM events WHERE event_id IN (SELECT value FROM json_each(@ids))
       UNION ALL SELECT session_id, id FROM sessions WHERE session_id IN (SELECT value FROM json_each(@ids))`
    )
    .all({ ids: JSON.stringify(ids) }) as Array<{ readonly id: string; readonly position: number }>
  return new Map(rows.map((r) => [r.id, r.position]))
}

/** What an injected search hit can show: an observation's tool, input and text, or (tool and input null) a summary. */
export interface HitBody {
  readonly toolName: string | null
  readonly inputSummary: string | null
  readonly text: string
}

/** The bodies of search hits by their ids (an observation's event id, a session's id), each text read to `chars`. */
export const hitBodies = (db: SqliteDatabase, ids: ReadonlyArray<string>, chars: number): Map<string, HitBody> => {
  const rows = db
    .prepare(
      `SELECT event_id AS id, tool_name AS toolName, input_summary AS inputSummary, substr(content, 1, @chars) AS text
       FROM observations WHERE event_id IN (SELECT value FROM json_each(@ids))
       UNION ALL SELECT session_id, NULL, NULL, substr(summary, 1, @chars) FROM sessions
       WHERE session_id IN (SELECT value FROM json_each(@ids)) AND summary IS NOT NULL`
    )
    .all({ ids: JSON.stringify(ids), chars }) as Array<HitBody & { readonly id: string }>
  return new Map(rows.map(({ id, ...body }) => [id, { ...body, text: body.text ?? "" }]))
}

export const recentObservations = (
  db: SqliteDatabase,
  options: { readonly project: string; readonly types: ReadonlyArray<string>; readonly limit: number }
): Array<ObservationHit> =>
  db
    .prepare(
      `SELECT ${OBSERVATION_COLUMNS} FROM observations o
       WHERE o.type IN (SELECT value FROM json_each(@types)) AND ${IN_PROJECT}
       ORDER BY o.id DESC LIMIT @limit`
    )
    .all({ project: options.project, types: JSON.stringify(options.types), limit: options.limit }) as Array<
      ObservationHit
    >

export const openLoops = (db: SqliteDatabase, project: string): Array<OpenLoop> =>
  db
    .prepare(
      `SELECT loop_id AS loopId, goal, iterations, json_extract(config, '$.maxIterations') AS maxIterations,
              session_id AS sessionId, criteria_results AS criteriaResults, mode,
              stories_total AS storiesTotal, stories_passed AS storiesPassed
       FROM loop_runs WHERE project_path = ? AND status = 'running' ORDER BY started_at DESC`
    )
    .all(project) as Array<OpenLoop>

/** The plan loop running in a session, if any: while it runs, the session's edits are blocked. */
export const activePlanLoop = (db: SqliteDatabase, sessionId: string): string | undefined =>
  db
    .prepare(
      `SELECT loop_id FROM loop_runs WHERE session_id = ? AND status = 'running' AND mode = 'plan'
       ORDER BY started_at DESC LIMIT 1`
    )
    .pluck()
    .get(sessionId) as string | undefined

export interface RestoreNotice {
  readonly at: number
  readonly reason: string
  readonly backup: string | null
  readonly damagedCopy: string
  /** Events read back from the damaged file, and those that could not be (null before salvage was recorded). */
  readonly salvaged?: number | null
  readonly unreadable?: number | null
  /** Why the damaged file's events were not read back, when they were not. */
  readonly notSalvaged?: string | null
}

/**
 * Restores the user has not been told about: newer than the last SessionStart injection, which is how
 * they are told (once).
 */
export const unannouncedRestores = (db: SqliteDatabase): Array<RestoreNotice> =>
  db
    .prepare(
      `SELECT occurred_at AS at, json_extract(payload, '$.reason') AS reason,
              json_extract(payload, '$.backup') AS backup, json_extract(payload, '$.damagedCopy') AS damagedCopy,
              json_extract(payload, '$.salvaged') AS salvaged, json_extract(payload, '$.unreadable') AS unreadable,
              json_extract(payload, '$.notSalvaged') AS notSalvaged
       FROM events WHERE type = 'DatabaseRestored' AND redacted_by IS NULL AND position > coalesce(
         (SELECT max(position) FROM events
          WHERE type = 'ContextInjected' AND json_extract(payload, '$.hookEvent') = 'SessionStart'), 0)
       ORDER BY position`
    )
    .all() as Array<RestoreNotice>

export interface ProjectSession {
  readonly sessionId: string
  readonly startedAt: number
  readonly endedAt: number | null
  readonly endReason: string | null
  readonly prompts: number
  readonly summary: string | null
}

/** Every session of a project, oldest first (what `export` writes). */
export const projectSessions = (db: SqliteDatabase, project: string): Array<ProjectSession> =>
  db
    .prepare(
      `SELECT session_id AS sessionId, started_at AS startedAt, ended_at AS endedAt, end_reason AS endReason, prompts,
              summary
       FROM sessions WHERE project_path = ? ORDER BY started_at, id`
    )
    .all(project) as Array<ProjectSession>

export interface ProjectNote {
  readonly eventId: string
  readonly noteType: string
  readonly text: string
  readonly createdAt: number
}

/** Every note of a project, oldest first (what `export` writes). */
export const projectNotes = (db: SqliteDatabase, project: string): Array<ProjectNote> =>
  db
    .prepare(
      `SELECT o.event_id AS eventId, coalesce(o.metadata ->> '$.noteType', 'note') AS noteType, o.content AS text,
              o.created_at AS createdAt
       FROM observations o WHERE o.type = 'note' AND ${IN_PROJECT} ORDER BY o.id`
    )
    .all({ project }) as Array<ProjectNote>

export interface ProjectLoop {
  readonly loopId: string
  readonly goal: string
  readonly mode: "build" | "prd" | "plan"
  readonly status: string
  readonly iterations: number
  readonly startedAt: number
  readonly endedAt: number | null
  readonly endReason: string | null
}

/** Every Ralph loop of a project, oldest first (what `export` writes). */
export const projectLoops = (db: SqliteDatabase, project: string): Array<ProjectLoop> =>
  db
    .prepare(
      `SELECT loop_id AS loopId, goal, mode, status, iterations, started_at AS startedAt, ended_at AS endedAt,
              end_reason AS endReason
       FROM loop_runs WHERE project_path = ? ORDER BY started_at, loop_id`
    )
    .all(project) as Array<ProjectLoop>

/** The prompt a session submitted last, as recorded (privacy-filtered); a slash command reads its arguments here. */
export const lastPrompt = (db: SqliteDatabase, sessionId: string): string | undefined =>
  db
    .prepare(
      `SELECT json_extract(payload, '$.prompt') FROM events
       WHERE stream_id = ? AND type = 'PromptSubmitted' AND redacted_by IS NULL ORDER BY position DESC LIMIT 1`
    )
    .pluck()
    .get(`session:${sessionId}`) as string | undefined

/** What `ralph-mem timeline` lists: sessions, observations and loop moments, across their read models. */
export interface HistoryEntry {
  readonly at: number
  readonly kind: string
  readonly sessionId: string | null
  readonly detail: Record<string, unknown>
}

/** Which timeline entries: those of one session or of all (null), from `since` on. */
export interface HistoryFilter {
  readonly sessionId: string | null
  readonly since: number
}

/**
 * One kind of moment worth showing, from one read model: `at` is when it happened and `session` its session (SQL
 * over `from`). Entries are in order of `at`, then `rank` (a session's start before and its end after anything
 * else in the same millisecond), `seq`, the source's place in `HISTORY_SOURCES` and `tie` (what tells two of a
 * source's moments apart): one order, whatever part of it is read.
 */
interface HistorySource {
  readonly kind: string
  readonly rank: number
  readonly at: string
  readonly seq: string
  readonly tie: string
  readonly session: string
  readonly detail: string
  readonly from: string
  readonly where?: string
  /** The view whose rows, by `id`, give `detail`: `from` chooses the rows without reading their text. */
  readonly detailFrom?: string
}

const HISTORY_SOURCES: ReadonlyArray<HistorySource> = [
  {
    kind: "'session started'",
    rank: 0,
    at: "started_at",
    seq: "0",
    tie: "session_id",
    session: "session_id",
    detail: "json_object('source', source, 'project', project_path)",
    from: "sessions"
  },
  {
    kind: "'observation'",
    rank: 1,
    at: "created_at",
    seq: "id",
    tie: "0",
    session: "session_id",
    detail: `json_object('id', id, 'type', type, 'tool', tool_name, 'input', input_summary,
                         'content', substr(content, 1, 400))`,
    from: "observation_rows",
    detailFrom: "observations"
  },
  {
    kind: "'loop started'",
    rank: 1,
    at: "r.started_at",
    seq: "0",
    tie: "r.loop_id",
    session: "r.session_id",
    detail: "json_object('loop', r.loop_id, 'goal', r.goal, 'driver', r.driver)",
    from: "loop_runs r"
  },
  {
    kind: "'loop iteration started'",
    rank: 1,
    at: "i.started_at",
    seq: "i.iteration",
    tie: "i.loop_id",
    session: "r.session_id",
    detail: "json_object('loop', i.loop_id, 'iteration', i.iteration)",
    from: "loop_iterations i JOIN loop_runs r USING (loop_id)"
  },
  {
    kind: "'loop iteration completed'",
    rank: 1,
    at: "i.completed_at",
    seq: "i.iteration",
    tie: "i.loop_id",
    session: "r.session_id",
    detail: `json_object('loop', i.loop_id, 'iteration', i.iteration,
                         'passed', json(CASE i.passed WHEN 1 THEN 'true' ELSE 'false' END))`,
    from: "loop_iterations i JOIN loop_runs r USING (loop_id)",
    where: "i.completed_at IS NOT NULL"
  },
  {
    kind: "'loop ' || r.status",
    rank: 1,
    at: "r.ended_at",
    seq: "0",
    tie: "r.loop_id",
    session: "r.session_id",
    detail: "json_object('loop', r.loop_id, 'reason', r.end_reason)",
    from: "loop_runs r",
    where: "r.ended_at IS NOT NULL"
  },
  {
    kind: "'session ended'",
    rank: 2,
    at: "ended_at",
    seq: "0",
    tie: "session_id",
    session: "session_id",
    detail: "json_object('reason', end_reason, 'summary', summary)",
    from: "sessions",
    where: "ended_at IS NOT NULL"
  }
]

/** A source's rows the filter keeps; the session's condition only when there is one, so its index is used. */
const historyWhere = (source: HistorySource, filter: HistoryFilter): string =>
  [
    source.where,
    filter.sessionId === null ? undefined : `${source.session} = @session`,
    `${source.at} >= @since`
  ].filter(Boolean).join(" AND ")

/**
 * The timeline's newest `@limit` moments, newest first. Limited, each source gives its own newest `@limit` first:
 * so no read model is read for more rows than are shown, and an observation's text (its event) only for the
 * observations kept. Unlimited, every moment the filter keeps, oldest first.
 */
const historySql = (filter: HistoryFilter, limited: boolean): string => {
  const sources = HISTORY_SOURCES.map((source, place) => {
    const columns = `${source.at} AS at, ${source.rank} AS rank, ${source.seq} AS seq, ${place} AS place, ` +
      `${source.tie} AS tie, ${source.kind} AS kind, ${source.session} AS sessionId, ${source.detail} AS detail`
    const where = historyWhere(source, filter)
    if (!limited) return `SELECT ${columns} FROM ${source.detailFrom ?? source.from} WHERE ${where}`
    // A number in ORDER BY names a result column: a source's constant is left out (it orders nothing).
    const order = [source.at, source.seq, source.tie].filter((term) => !/^\d+$/.test(term)).map((t) => `${t} DESC`)
    const newest = `FROM ${source.from} WHERE ${where} ORDER BY ${order.join(", ")} LIMIT @limit`
    return source.detailFrom === undefined
      ? `SELECT * FROM (SELECT ${columns} ${newest})`
      : `SELECT ${columns} FROM ${source.detailFrom} WHERE id IN (SELECT id ${newest})`
  })
  const order = ["at", "rank", "seq", "place", "tie"].map((column) => `${column} ${limited ? "DESC" : "ASC"}`)
  return `SELECT at, kind, sessionId, detail FROM (${sources.join("\n UNION ALL ")})
          ORDER BY ${order.join(", ")}${limited ? " LIMIT @limit" : ""}`
}

const historyParameters = (filter: HistoryFilter) => ({
  ...(filter.sessionId === null ? {} : { session: filter.sessionId }),
  since: filter.since
})

type HistoryRow = Omit<HistoryEntry, "detail"> & { readonly detail: string }

const historyEntry = (row: HistoryRow): HistoryEntry => ({
  ...row,
  detail: JSON.parse(row.detail) as Record<string, unknown>
})

/** The newest `limit` timeline entries the filter keeps, in time order. Each read model is read for no more rows. */
export const historyEntries = (
  db: SqliteDatabase,
  options: HistoryFilter & { readonly limit: number }
): Array<HistoryEntry> =>
  (db.prepare(historySql(options, true)).all({ ...historyParameters(options), limit: options.limit }) as Array<
    HistoryRow
  >).map(historyEntry).reverse()

/**
 * Every timeline entry the filter keeps, in time order, read one at a time: a whole timeline never sits in memory (a
 * large memory's is hundreds of megabytes of entries). The connection runs no other statement until the last is read.
 */
export function* eachHistoryEntry(db: SqliteDatabase, filter: HistoryFilter): Generator<HistoryEntry> {
  for (const row of db.prepare(historySql(filter, false)).iterate(historyParameters(filter))) {
    yield historyEntry(row as HistoryRow)
  }
}

/** How many timeline entries the filter keeps: counted, none of them read. */
export const historyCount = (db: SqliteDatabase, filter: HistoryFilter): number =>
  db
    .prepare(
      `SELECT ${
        HISTORY_SOURCES.map((source) => `(SELECT count(*) FROM ${source.from} WHERE ${historyWhere(source, filter)})`)
          .join(" + ")
      }`
    )
    .pluck()
    .get(historyParameters(filter)) as number
