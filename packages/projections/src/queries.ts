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

export const recentSessionSummaries = (db: SqliteDatabase, project: string, limit: number): Array<SessionSummary> =>
  db
    .prepare(
      `SELECT session_id AS sessionId, started_at AS startedAt, ended_at AS endedAt, summary FROM sessions
       WHERE project_path = ? AND summary IS NOT NULL ORDER BY started_at DESC LIMIT ?`
    )
    .all(project, limit) as Array<SessionSummary>

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
    .all({ project: options.project, types: JSON.stringify(options.types), limit: options.limit }) as Array<ObservationHit>

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
    .prepare(`SELECT loop_id FROM loop_runs WHERE session_id = ? AND status = 'running' AND mode = 'plan' ORDER BY started_at DESC LIMIT 1`)
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
}

/**
 * Restores the user has not been told about: newer than the last SessionStart injection, which is how
 * they are told (once).
 */
export const unannouncedRestores = (db: SqliteDatabase): Array<RestoreNotice> =>
  db
    .prepare(
      `SELECT occurred_at AS at, json_extract(payload, '$.reason') AS reason, json_extract(payload, '$.backup') AS backup,
              json_extract(payload, '$.damagedCopy') AS damagedCopy, json_extract(payload, '$.salvaged') AS salvaged,
              json_extract(payload, '$.unreadable') AS unreadable
       FROM events WHERE type = 'DatabaseRestored' AND redacted_by IS NULL AND position > coalesce(
         (SELECT max(position) FROM events WHERE type = 'ContextInjected' AND json_extract(payload, '$.hookEvent') = 'SessionStart'), 0)
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
