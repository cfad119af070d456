/**
 * Where the last session stopped: the current task with its step and handoff note, and that session's
 * errors and summary. What `ralph-mem resume` prints and a resumed session is told.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import type { ObservationHit } from "../queries.ts"
import { currentTaskId, findTask, type TaskDetail } from "./read.ts"

export interface LastSession {
  readonly sessionId: string
  readonly startedAt: number
  readonly lastEventAt: number
  readonly endedAt: number | null
  readonly summary: string | null
  /** Its last errors, oldest first. */
  readonly errors: ReadonlyArray<ObservationHit>
}

export interface ResumeBrief {
  readonly task: TaskDetail | null
  readonly lastSession: LastSession | null
}

const ERRORS = 5

export interface BriefOptions {
  /** The session being resumed: it is the last session when the project has it. */
  readonly sessionId?: string
  /** A session that is not the last one (the one asking, which has only just begun). */
  readonly excludeSessionId?: string
}

const lastSessionOf = (db: SqliteDatabase, project: string, options: BriefOptions): LastSession | null => {
  const session = db
    .prepare(
      `SELECT session_id AS sessionId, started_at AS startedAt, last_event_at AS lastEventAt, ended_at AS endedAt,
              summary
       FROM sessions
       WHERE project_path = @project AND (@exclude IS NULL OR session_id != @exclude)
       ORDER BY session_id = @session DESC, last_event_at DESC, id DESC LIMIT 1`
    )
    .get({ project, session: options.sessionId ?? null, exclude: options.excludeSessionId ?? null }) as
      | Omit<LastSession, "errors">
      | undefined
  if (session === undefined) return null
  const errors = db
    .prepare(
      `SELECT id, event_id AS eventId, session_id AS sessionId, type, tool_name AS toolName,
              input_summary AS inputSummary, content, error_message AS errorMessage, created_at AS createdAt
       FROM observations WHERE session_id = ? AND type = 'error' ORDER BY id DESC LIMIT ?`
    )
    .all(session.sessionId, ERRORS) as Array<ObservationHit>
  return { ...session, errors: errors.reverse() }
}

export const resumeBrief = (db: SqliteDatabase, project: string, options: BriefOptions = {}): ResumeBrief => {
  const taskId = currentTaskId(db, project)
  return {
    task: taskId === undefined ? null : findTask(db, project, taskId) ?? null,
    lastSession: lastSessionOf(db, project, options)
  }
}
