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

// One row per moment worth showing; `rank` orders a session's start before and its end after
// anything else that happened in the same millisecond.
const TIMELINE = `
  SELECT at, kind, session_id AS sessionId, detail FROM (
    SELECT started_at AS at, 0 AS rank, 0 AS seq, 'session started' AS kind, session_id,
           json_object('source', source, 'project', project_path) AS detail
      FROM sessions
    UNION ALL
    SELECT created_at, 1, id, 'observation', session_id,
           json_object('id', id, 'type', type, 'tool', tool_name, 'input', input_summary,
                       'content', substr(content, 1, 400))
      FROM observations
    UNION ALL
    SELECT r.started_at, 1, 0, 'loop started', r.session_id,
           json_object('loop', r.loop_id, 'goal', r.goal, 'driver', r.driver)
      FROM loop_runs r
    UNION ALL
    SELECT i.started_at, 1, i.iteration, 'loop iteration started', r.session_id,
           json_object('loop', i.loop_id, 'iteration', i.iteration)
      FROM loop_iterations i JOIN loop_runs r USING (loop_id)
    UNION ALL
    SELECT i.completed_at, 1, i.iteration, 'loop iteration completed', r.session_id,
           json_object('loop', i.loop_id, 'iteration', i.iteration,
                       'passed', json(CASE i.passed WHEN 1 THEN 'true' ELSE 'false' END))
      FROM loop_iterations i JOIN loop_runs r USING (loop_id) WHERE i.completed_at IS NOT NULL
    UNION ALL
    SELECT r.ended_at, 1, 0, 'loop ' || r.status, r.session_id, json_object('loop', r.loop_id, 'reason', r.end_reason)
      FROM loop_runs r WHERE r.ended_at IS NOT NULL
    UNION ALL
    SELECT ended_at, 2, 0, 'session ended', session_id, json_object('reason', end_reason, 'summary', summary)
      FROM sessions WHERE ended_at IS NOT NULL
  )
  WHERE (@session IS NULL OR session_id = @session) AND at >= @since
  ORDER BY at, rank, seq
  LIMIT @limit`

/** Timeline entries in time order: of one session or all (null), from `since`, at most `limit` (-1: all). */
export const historyEntries = (
  db: SqliteDatabase,
  options: { readonly sessionId: string | null; readonly since: number; readonly limit: number }
): Array<HistoryEntry> =>
  (db.prepare(TIMELINE).all({ session: options.sessionId, since: options.since, limit: options.limit }) as Array<
    Omit<HistoryEntry, "detail"> & { detail: string }
  >).map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }))
