/** `loop_runs` and `loop_iterations`: every Ralph loop and each of its iterations, folded from its stream. */
import type { SqliteDatabase } from "@ralph-mem/events"
import { json, type Projection, sql } from "./projection.ts"

const ended = (loopId: string, status: string, at: number, reason: string | null) =>
  sql(`UPDATE loop_runs SET status = ?, ended_at = ?, end_reason = ? WHERE loop_id = ?`, status, at, reason, loopId)

export const loopRuns: Projection = {
  name: "loop_runs",
  version: 4,
  create: `
    CREATE TABLE loop_runs (
      loop_id          TEXT PRIMARY KEY,
      stream_id        TEXT NOT NULL,
      session_id       TEXT,
      project_path     TEXT NOT NULL,
      goal             TEXT NOT NULL,
      driver           TEXT NOT NULL,
      -- build: work until the checks pass; prd: one story per iteration; plan: a plan, edits blocked.
      mode             TEXT NOT NULL CHECK (mode IN ('build', 'prd', 'plan')),
      stories_total    INTEGER NOT NULL DEFAULT 0,
      stories_passed   INTEGER NOT NULL DEFAULT 0,
      plan_path        TEXT,
      status           TEXT NOT NULL CHECK (status IN ('running', 'success', 'failed', 'stopped')),
      iterations       INTEGER NOT NULL DEFAULT 0,
      config           TEXT NOT NULL,
      criteria_results TEXT NOT NULL DEFAULT '[]',
      snapshot_refs    TEXT NOT NULL DEFAULT '[]',
      started_at       INTEGER NOT NULL,
      ended_at         INTEGER,
      end_reason       TEXT
    ) STRICT;
    CREATE TABLE loop_iterations (
      loop_id       TEXT NOT NULL,
      iteration     INTEGER NOT NULL,
      stream_id     TEXT NOT NULL,
      started_at    INTEGER NOT NULL,
      completed_at  INTEGER,
      passed        INTEGER,
      criteria      TEXT NOT NULL DEFAULT '[]',
      files_changed TEXT NOT NULL DEFAULT '[]',
      snapshot_ref  TEXT,
      -- What the agent reported: {inputTokens, outputTokens, cacheReadTokens, cacheCreationTokens, costUsd?};
      -- NULL: not reported.
      usage         TEXT,
      PRIMARY KEY (loop_id, iteration)
    ) STRICT;
  `,
  finish: `
    CREATE INDEX loop_runs_by_status ON loop_runs (status, started_at);
    CREATE INDEX loop_runs_by_session ON loop_runs (session_id);
  `,
  tables: [
    { name: "loop_runs", orderBy: "loop_id" },
    { name: "loop_iterations", orderBy: "loop_id, iteration" }
  ],
  indexes: [],
  apply: ({ event, streamId, occurredAt }) => {
    switch (event._tag) {
      case "LoopStarted":
        return [
          sql(
            `INSERT INTO loop_runs (loop_id, stream_id, session_id, project_path, goal, driver, mode, stories_total,
                                    stories_passed, plan_path, status, config, snapshot_refs, started_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
            event.loopId,
            streamId,
            event.sessionId ?? null,
            event.projectPath,
            event.goal,
            event.driver,
            event.prd !== undefined ? "prd" : event.plan !== undefined ? "plan" : "build",
            event.prd?.stories.length ?? 0,
            event.prd?.stories.filter((s) => s.passes).length ?? 0,
            event.plan?.path ?? null,
            json(event.config),
            json(event.snapshotRef === undefined ? [] : [event.snapshotRef]),
            occurredAt
          )
        ]
      case "LoopIterationStarted":
        return [
          sql(`UPDATE loop_runs SET iterations = max(iterations, ?) WHERE loop_id = ?`, event.iteration, event.loopId),
          sql(
            `INSERT INTO loop_iterations (loop_id, iteration, stream_id, started_at) VALUES (?, ?, ?, ?)`,
            event.loopId,
            event.iteration,
            streamId,
            occurredAt
          )
        ]
      case "LoopCriteriaEvaluated":
        return [
          sql(`UPDATE loop_runs SET criteria_results = ? WHERE loop_id = ?`, json(event.results), event.loopId),
          sql(
            `UPDATE loop_iterations SET criteria = ? WHERE loop_id = ? AND iteration = ?`,
            json(event.results),
            event.loopId,
            event.iteration
          )
        ]
      case "LoopIterationCompleted":
        return [
          sql(
            `UPDATE loop_iterations SET completed_at = ?, passed = ?, files_changed = ?, snapshot_ref = ?, usage = ?
             WHERE loop_id = ? AND iteration = ?`,
            occurredAt,
            event.passed ? 1 : 0,
            json(event.filesChanged),
            event.snapshotRef ?? null,
            event.usage === undefined ? null : json(event.usage),
            event.loopId,
            event.iteration
          ),
          ...(event.snapshotRef === undefined
            ? []
            : [
              sql(
                `UPDATE loop_runs SET snapshot_refs = json_insert(snapshot_refs, '$[#]', ?) WHERE loop_id = ?`,
                event.snapshotRef,
                event.loopId
              )
            ])
        ]
      case "LoopRolledBack":
        return [
          sql(
            `UPDATE loop_runs SET snapshot_refs = json_insert(snapshot_refs, '$[#]', ?) WHERE loop_id = ?`,
            event.rescueSnapshotRef,
            event.loopId
          )
        ]
      case "LoopStoryPassed":
        return [sql(`UPDATE loop_runs SET stories_passed = stories_passed + 1 WHERE loop_id = ?`, event.loopId)]
      case "LoopPlanSaved":
        return [sql(`UPDATE loop_runs SET plan_path = ? WHERE loop_id = ?`, event.path, event.loopId)]
      // A resumed loop runs under whichever driver picked it up.
      case "LoopResumed":
        return [sql(`UPDATE loop_runs SET driver = ? WHERE loop_id = ?`, event.driver, event.loopId)]
      case "LoopConfigChanged":
        return [sql(`UPDATE loop_runs SET config = ? WHERE loop_id = ?`, json(event.config), event.loopId)]
      case "LoopSucceeded":
        return [ended(event.loopId, "success", occurredAt, null)]
      case "LoopFailed":
        return [ended(event.loopId, "failed", occurredAt, event.reason)]
      case "LoopStopped":
        return [ended(event.loopId, "stopped", occurredAt, event.reason)]
      default:
        return []
    }
  },
  clearStream: (streamId) => [
    sql(`DELETE FROM loop_iterations WHERE stream_id = ?`, streamId),
    sql(`DELETE FROM loop_runs WHERE stream_id = ?`, streamId)
  ]
}

export interface LoopRunRow {
  readonly loopId: string
  readonly sessionId: string | null
  readonly goal: string
  readonly driver: string
  readonly mode: string
  readonly status: string
  readonly iterations: number
  readonly maxIterations: number
  readonly startedAt: number
  readonly endedAt: number | null
  readonly endReason: string | null
}

/** Loops, newest first. */
export const listLoopRuns = (db: SqliteDatabase, limit: number): Array<LoopRunRow> =>
  db
    .prepare(
      `SELECT loop_id AS loopId, session_id AS sessionId, goal, driver, mode, status, iterations,
              json_extract(config, '$.maxIterations') AS maxIterations, started_at AS startedAt, ended_at AS endedAt,
              end_reason AS endReason
       FROM loop_runs ORDER BY started_at DESC LIMIT ?`
    )
    .all(limit) as Array<LoopRunRow>

/** The running loop bound to a session, if any: a loop never bleeds into another session. */
export const activeLoopForSession = (db: SqliteDatabase, sessionId: string): string | undefined =>
  db
    .prepare(
      "SELECT loop_id FROM loop_runs WHERE session_id = ? AND status = 'running' ORDER BY started_at DESC LIMIT 1"
    )
    .pluck()
    .get(sessionId) as string | undefined

/** The most recent loop of a project (running first), for commands that name none. */
export const latestLoop = (db: SqliteDatabase, projectPath: string): string | undefined =>
  db
    .prepare(
      `SELECT loop_id FROM loop_runs WHERE project_path = ?
       ORDER BY status = 'running' DESC, started_at DESC LIMIT 1`
    )
    .pluck()
    .get(projectPath) as string | undefined

/** Every running loop, newest first (`ralph-mem status`). */
export const runningLoops = (db: SqliteDatabase) =>
  db
    .prepare(
      `SELECT loop_id AS loopId, goal, iterations, json_extract(config, '$.maxIterations') AS maxIterations,
              session_id AS sessionId
       FROM loop_runs WHERE status = 'running' ORDER BY started_at DESC`
    )
    .all() as Array<
      { loopId: string; goal: string; iterations: number; maxIterations: number; sessionId: string | null }
    >
