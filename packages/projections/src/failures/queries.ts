/**
 * Reads over `failures`: a project's failed runs, each with the passing run that resolved it (if any), and
 * what happened in between (read from the observations and decisions of the project).
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import type { RecognisedFailure } from "./identity.ts"

export interface Resolution {
  readonly position: number
  readonly eventId: string
  readonly at: number
}

/** A failure, with what it is recognised and told by (kept with its row: see recogniseFailure). */
export interface FailureRecord extends RecognisedFailure {
  readonly position: number
  readonly eventId: string
  readonly sessionId: string | null
  readonly family: string
  readonly command: string
  readonly failedAt: number
  readonly resolution: Resolution | null
}

interface FailureRow extends Omit<FailureRecord, "terms" | "resolution"> {
  readonly terms: string
  readonly resolvedBy: number | null
}

/**
 * The first passing run after a failure, in its project, with one of its resolving keys. Per key, the
 * primary key's order finds it at once however often the command has passed.
 */
const RESOLVED_BY = `(SELECT min((
    SELECT p.position FROM pass_rows p LEFT JOIN observation_rows o ON o.id = p.position
    WHERE p.command_key = k.value AND p.position > f.position
      AND coalesce(p.project_path, o.project_path) = f.project_path
    ORDER BY p.position LIMIT 1))
  FROM json_each(f.resolving_keys) k)`

/**
 * A failure row with its event's id and time, and the position of the run that resolved it. Read from the rows
 * and the log's own columns, never from a payload: a recall must not unpack a packed event to tell it. With a
 * family, its failures are found by the index of (project, family, position): a condition that may be true
 * whatever the family (`@family IS NULL OR ...`) would leave that index unused.
 */
const FAILURES = (byFamily: boolean) =>
  `SELECT f.position, e.event_id AS eventId, f.session_id AS sessionId, f.family, f.command, f.digest, f.terms,
          f.headline, e.occurred_at AS failedAt, f.resolvedBy
   FROM (SELECT f.*, ${RESOLVED_BY} AS resolvedBy FROM failure_rows f
         WHERE f.project_path = @project${byFamily ? " AND f.family = @family" : ""}) f
   JOIN events e ON e.position = f.position
   WHERE @resolvedOnly = 0 OR f.resolvedBy IS NOT NULL
   ORDER BY f.position DESC, f.part LIMIT @limit`

/** A project's failures, newest first; `family` keeps those of one family, `resolvedOnly` those resolved. */
export const projectFailures = (
  db: SqliteDatabase,
  options: {
    readonly project: string
    readonly family?: string
    readonly resolvedOnly?: boolean
    readonly limit: number
  }
): Array<FailureRecord> => {
  const { family } = options
  const rows = db.prepare(FAILURES(family !== undefined)).all({
    project: options.project,
    ...(family === undefined ? {} : { family }),
    resolvedOnly: options.resolvedOnly === true ? 1 : 0,
    limit: options.limit
  }) as Array<FailureRow>
  const resolution = db.prepare(
    `SELECT position, event_id AS eventId, occurred_at AS at FROM events WHERE position = ?`
  )
  return rows.map(({ resolvedBy, terms, ...row }) => ({
    ...row,
    terms: JSON.parse(terms) as Array<string>,
    resolution: resolvedBy === null ? null : (resolution.get(resolvedBy) as Resolution)
  }))
}

export interface ActivityItem {
  readonly position: number
  readonly eventId: string
  readonly text: string
  /** An edit's recorded change (`- old` / `+ new`, its start): what the fix was, not only where. */
  readonly change?: string
}

/** How much of an edit's recorded change is read: enough for the lines a lesson shows. */
const CHANGE_CHARS = 2000

/** What happened between a failure and the run that resolved it, the latest first: what fixed it is usually last. */
export interface Activity {
  readonly edits: ReadonlyArray<ActivityItem>
  readonly commands: ReadonlyArray<ActivityItem>
  readonly notes: ReadonlyArray<ActivityItem>
  readonly decisions: ReadonlyArray<ActivityItem>
}

const EDIT_TOOLS = `('Edit', 'Write', 'MultiEdit', 'NotebookEdit')`

export const activityBetween = (
  db: SqliteDatabase,
  range: { readonly project: string; readonly after: number; readonly before: number; readonly limit: number }
): Activity => {
  const params = { ...range }
  const edits = db
    .prepare(
      `SELECT id AS position, event_id AS eventId, coalesce(files ->> '$[0]', input_summary) AS text,
              substr(content, 1, ${CHANGE_CHARS}) AS change FROM observations
       WHERE project_path = @project AND id > @after AND id < @before AND tool_name IN ${EDIT_TOOLS} AND type != 'error'
       ORDER BY id DESC LIMIT 50`
    )
    .all(params) as Array<ActivityItem>
  const seen = new Set<string>()
  const commands = db
    .prepare(
      `SELECT id AS position, event_id AS eventId, input_summary AS text FROM observations
       WHERE project_path = @project AND id > @after AND id < @before
         AND tool_name = 'Bash' AND input_summary IS NOT NULL
       ORDER BY id DESC LIMIT @limit`
    )
    .all(params) as Array<ActivityItem>
  const notes = db
    .prepare(
      `SELECT id AS position, event_id AS eventId, content AS text FROM observations
       WHERE project_path = @project AND id > @after AND id < @before AND type = 'note' ORDER BY id DESC LIMIT @limit`
    )
    .all(params) as Array<ActivityItem>
  const decisions = db
    .prepare(
      `SELECT id AS position, event_id AS eventId, decision AS text FROM decisions
       WHERE project_path = @project AND id > @after AND id < @before ORDER BY id DESC LIMIT @limit`
    )
    .all(params) as Array<ActivityItem>
  return {
    // One line per file, its latest edit.
    edits: edits.filter((e) => !seen.has(e.text) && seen.add(e.text)).slice(0, range.limit),
    commands,
    notes,
    decisions
  }
}
