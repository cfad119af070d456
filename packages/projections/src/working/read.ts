/** Reads over the working memory: beliefs, decisions (listed and searched) and tasks with their files. */
import type { Alternative, DecisionImpact, SqliteDatabase, TaskStepStatus } from "@ralph-mem/events"
import { relative, sep } from "node:path"
import { matchTerms } from "../search/query.ts"

export interface Belief {
  readonly key: string
  readonly value: string
  /** The event that set the value: forget it by this id. */
  readonly eventId: string
  readonly updatedAt: number
}

/** A project's beliefs, the most recently set first. */
export const listBeliefs = (db: SqliteDatabase, project: string): Array<Belief> =>
  db
    .prepare(
      `SELECT key, value, event_id AS eventId, updated_at AS updatedAt FROM beliefs WHERE project_path = ?
       ORDER BY position DESC`
    )
    .all(project) as Array<Belief>

export interface Decision {
  /** The event id: what `forget` takes. */
  readonly id: string
  readonly decisionId: string
  readonly decision: string
  readonly rationale: string
  readonly alternatives: ReadonlyArray<Alternative>
  readonly impact: DecisionImpact
  readonly taskId: string | null
  readonly createdAt: number
}

const DECISION_COLUMNS =
  `d.event_id AS id, d.decision_id AS decisionId, d.decision, d.rationale, d.alternatives, d.impact,
  d.task_id AS taskId, d.created_at AS createdAt`

type DecisionRow = Omit<Decision, "alternatives"> & { readonly alternatives: string }

const toDecision = ({ alternatives, ...row }: DecisionRow): Decision => ({
  ...row,
  alternatives: JSON.parse(alternatives) as Array<Alternative>
})

/** A project's decisions (of one task, if given), oldest first. */
export const listDecisions = (
  db: SqliteDatabase,
  options: { readonly project: string; readonly taskId?: string }
): Array<Decision> =>
  (db
    .prepare(
      `SELECT ${DECISION_COLUMNS} FROM decisions d
       WHERE d.project_path = @project AND (@task IS NULL OR d.task_id = @task) ORDER BY d.id`
    )
    .all({ project: options.project, task: options.taskId ?? null }) as Array<DecisionRow>).map(toDecision)

/**
 * The decisions that match free text, best first (bm25 with the decision weighted over its rationale and
 * alternatives; ties go to the newer). Any text is safe: every term is quoted by the query builder.
 */
export const searchDecisions = (
  db: SqliteDatabase,
  options: { readonly query: string; readonly project: string; readonly limit: number }
): Array<Decision> => {
  const terms = matchTerms(options.query)
  if (terms.length === 0) return []
  return (db
    .prepare(
      `SELECT ${DECISION_COLUMNS} FROM decisions_fts JOIN decisions d ON d.id = decisions_fts.rowid
       WHERE decisions_fts MATCH @match AND d.project_path = @project
       ORDER BY bm25(decisions_fts, 3.0, 1.0, 1.0, 0.5), d.id DESC LIMIT @limit`
    )
    .all({ match: terms.join(" OR "), project: options.project, limit: options.limit }) as Array<DecisionRow>).map(
      toDecision
    )
}

export interface TaskStep {
  readonly step: number
  readonly text: string
  readonly status: TaskStepStatus
  readonly eventId: string
}

export interface TaskFinding {
  readonly id: string
  readonly finding: string
  readonly createdAt: number
}

export interface TaskDetail {
  readonly taskId: string
  readonly title: string
  readonly status: "open" | "done"
  /** The event that started the task. */
  readonly eventId: string
  readonly startedAt: number
  readonly updatedAt: number
  readonly completedAt: number | null
  readonly steps: ReadonlyArray<TaskStep>
  readonly currentStep: TaskStep | null
  readonly findings: ReadonlyArray<TaskFinding>
  readonly handoff: { readonly note: string; readonly at: number; readonly eventId: string } | null
  /** From the observations made since the task started (until it was done), relative to the project. */
  readonly files: { readonly read: ReadonlyArray<string>; readonly modified: ReadonlyArray<string> }
}

/** The step being worked on: the first in progress, else the first still pending. */
export const currentStepOf = (steps: ReadonlyArray<TaskStep>): TaskStep | null =>
  steps.find((s) => s.status === "in_progress") ?? steps.find((s) => s.status === "pending") ?? null

const READ_TOOLS = ["Read", "Grep", "Glob"] as const
const MODIFY_TOOLS = ["Edit", "Write", "MultiEdit", "NotebookEdit"] as const

interface TaskRow {
  readonly streamId: string
  readonly taskId: string
  readonly title: string
  readonly status: "open" | "done"
  readonly eventId: string
  readonly startedPosition: number
  readonly completedPosition: number | null
  readonly startedAt: number
  readonly updatedAt: number
  readonly completedAt: number | null
  readonly handoff: string | null
  readonly handoffEventId: string | null
  readonly handoffAt: number | null
}

const TASK_COLUMNS =
  `stream_id AS streamId, task_id AS taskId, title, status, event_id AS eventId, started_position AS startedPosition,
  completed_position AS completedPosition, started_at AS startedAt, updated_at AS updatedAt,
  completed_at AS completedAt, handoff, handoff_event_id AS handoffEventId, handoff_at AS handoffAt`

/** A path under the project as a relative one; anything else as it is. */
const fromProject = (project: string, path: string): string =>
  path.startsWith(project + sep) ? relative(project, path) : path

/** The files successful reads and edits named while the task was open. */
const filesOf = (db: SqliteDatabase, project: string, task: TaskRow) => {
  const touched = (tools: ReadonlyArray<string>) =>
    (db
      .prepare(
        `SELECT DISTINCT f.value FROM observations o, json_each(o.files) f
         WHERE o.project_path = @project AND o.id > @from AND o.id < @until AND o.type != 'error'
           AND o.tool_name IN (SELECT value FROM json_each(@tools))
         ORDER BY f.value`
      )
      .pluck()
      .all({
        project,
        from: task.startedPosition,
        until: task.completedPosition ?? Number.MAX_SAFE_INTEGER,
        tools: JSON.stringify(tools)
      }) as Array<string>)
      .map((path) => fromProject(project, path))
  return { read: touched(READ_TOOLS), modified: touched(MODIFY_TOOLS) }
}

const detailOf = (db: SqliteDatabase, project: string, row: TaskRow): TaskDetail => {
  const steps = db
    .prepare(`SELECT step, text, status, event_id AS eventId FROM task_steps WHERE stream_id = ? ORDER BY step`)
    .all(row.streamId) as Array<TaskStep>
  const findings = db
    .prepare(
      `SELECT event_id AS id, finding, created_at AS createdAt FROM task_findings WHERE stream_id = ? ORDER BY id`
    )
    .all(row.streamId) as Array<TaskFinding>
  return {
    taskId: row.taskId,
    title: row.title,
    status: row.status,
    eventId: row.eventId,
    startedAt: row.startedAt,
    updatedAt: row.updatedAt,
    completedAt: row.completedAt,
    steps,
    currentStep: currentStepOf(steps),
    findings,
    handoff: row.handoff === null ? null : { note: row.handoff, at: row.handoffAt!, eventId: row.handoffEventId! },
    files: filesOf(db, project, row)
  }
}

/** One task of a project, in full. */
export const findTask = (db: SqliteDatabase, project: string, taskId: string): TaskDetail | undefined => {
  const row = db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE project_path = ? AND task_id = ?`).get(
    project,
    taskId
  ) as TaskRow | undefined
  return row === undefined ? undefined : detailOf(db, project, row)
}

/** Every task of a project in full: open ones first, then the most recently worked on first. */
export const listTasks = (db: SqliteDatabase, project: string): Array<TaskDetail> =>
  (db
    .prepare(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE project_path = ? ORDER BY status = 'open' DESC, last_position DESC`
    )
    .all(project) as Array<TaskRow>).map((row) => detailOf(db, project, row))

/** The task being worked on: the open task most recently changed. */
export const currentTaskId = (db: SqliteDatabase, project: string): string | undefined =>
  db
    .prepare(`SELECT task_id FROM tasks WHERE project_path = ? AND status = 'open' ORDER BY last_position DESC LIMIT 1`)
    .pluck()
    .get(project) as string | undefined

/** The ids of a project's tasks (to pick a new one that is free). */
export const taskIds = (db: SqliteDatabase, project: string): Set<string> =>
  new Set(db.prepare(`SELECT task_id FROM tasks WHERE project_path = ?`).pluck().all(project) as Array<string>)
