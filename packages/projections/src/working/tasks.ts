/**
 * `tasks`, `task_steps` and `task_findings`: the working state of each task of a project, folded from
 * its stream. Rows are keyed by the stream, so a task's later events find it by the stream alone; they
 * change nothing when the task's start was forgotten.
 */
import { type Projection, sql } from "../projection.ts"

const touch = (streamId: string, position: number, at: number) =>
  sql(`UPDATE tasks SET last_position = ?, updated_at = ? WHERE stream_id = ?`, position, at, streamId)

export const tasks: Projection = {
  name: "tasks",
  version: 1,
  create: `
    CREATE TABLE tasks (
      stream_id          TEXT PRIMARY KEY,
      task_id            TEXT NOT NULL,
      project_path       TEXT NOT NULL,
      title              TEXT NOT NULL,
      event_id           TEXT NOT NULL,
      status             TEXT NOT NULL CHECK (status IN ('open', 'done')),
      -- Positions bound the observations that happened during the task; the last one says which task is current.
      started_position   INTEGER NOT NULL,
      last_position      INTEGER NOT NULL,
      completed_position INTEGER,
      started_at         INTEGER NOT NULL,
      updated_at         INTEGER NOT NULL,
      completed_at       INTEGER,
      handoff            TEXT,
      handoff_event_id   TEXT,
      handoff_at         INTEGER,
      UNIQUE (project_path, task_id)
    ) STRICT;
    CREATE TABLE task_steps (
      stream_id  TEXT NOT NULL,
      step       INTEGER NOT NULL,
      text       TEXT NOT NULL,
      status     TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'done')),
      event_id   TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (stream_id, step)
    ) STRICT;
    CREATE TABLE task_findings (
      id         INTEGER PRIMARY KEY,
      event_id   TEXT NOT NULL,
      stream_id  TEXT NOT NULL,
      finding    TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT;
  `,
  finish: `
    CREATE INDEX tasks_by_project ON tasks (project_path, status, last_position);
    CREATE INDEX task_findings_by_stream ON task_findings (stream_id, id);
  `,
  tables: [
    { name: "tasks", orderBy: "stream_id" },
    { name: "task_steps", orderBy: "stream_id, step" },
    { name: "task_findings", orderBy: "id" }
  ],
  indexes: [],
  apply: ({ event, position, eventId, streamId, occurredAt }) => {
    switch (event._tag) {
      case "TaskStarted":
        return [
          sql(
            `INSERT INTO tasks (stream_id, task_id, project_path, title, event_id, status, started_position,
                                last_position, started_at, updated_at)
             VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?)`,
            streamId,
            event.taskId,
            event.projectPath,
            event.title,
            eventId,
            position,
            position,
            occurredAt,
            occurredAt
          )
        ]
      case "TaskStepsPlanned":
        return [
          touch(streamId, position, occurredAt),
          ...event.steps.map((text, index) =>
            sql(
              `INSERT INTO task_steps (stream_id, step, text, status, event_id, updated_at)
               SELECT ?, ?, ?, 'pending', ?, ? WHERE EXISTS (SELECT 1 FROM tasks WHERE stream_id = ?)`,
              streamId,
              event.firstStep + index,
              text,
              eventId,
              occurredAt,
              streamId
            )
          )
        ]
      case "TaskStepChanged":
        return [
          touch(streamId, position, occurredAt),
          sql(
            `UPDATE task_steps SET status = ?, updated_at = ? WHERE stream_id = ? AND step = ?`,
            event.status,
            occurredAt,
            streamId,
            event.step
          )
        ]
      case "TaskFindingRecorded":
        return [
          touch(streamId, position, occurredAt),
          sql(
            `INSERT INTO task_findings (id, event_id, stream_id, finding, created_at)
             SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM tasks WHERE stream_id = ?)`,
            position,
            eventId,
            streamId,
            event.finding,
            occurredAt,
            streamId
          )
        ]
      case "TaskHandoffWritten":
        return [
          touch(streamId, position, occurredAt),
          sql(
            `UPDATE tasks SET handoff = ?, handoff_event_id = ?, handoff_at = ? WHERE stream_id = ?`,
            event.note,
            eventId,
            occurredAt,
            streamId
          )
        ]
      case "TaskCompleted":
        return [
          touch(streamId, position, occurredAt),
          sql(
            `UPDATE tasks SET status = 'done', completed_position = ?, completed_at = ? WHERE stream_id = ?`,
            position,
            occurredAt,
            streamId
          )
        ]
      default:
        return []
    }
  },
  clearStream: (streamId) => [
    sql(`DELETE FROM task_findings WHERE stream_id = ?`, streamId),
    sql(`DELETE FROM task_steps WHERE stream_id = ?`, streamId),
    sql(`DELETE FROM tasks WHERE stream_id = ?`, streamId)
  ]
}
