/** `ralph-mem status`: what the memory database holds, and how the hooks are doing. */
import { findProjectRoot, LATEST_SCHEMA_VERSION, type SqliteDatabase } from "@ralph-mem/events"
import { spillPath, spillState } from "@ralph-mem/hooks"
import { listBackups, loadSettings, pendingErasure } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { existsSync, statSync } from "node:fs"
import * as flags from "../flags.ts"
import { printFields, printJson } from "../output.ts"
import { withExistingStore } from "../command-memory.ts"

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0)

/**
 * Every hook invocation that worked wrote its events under one correlation id; every one that failed
 * (and could still reach the database) wrote a HookFailed event, under the same id when its events
 * were recorded late from the spill file. Those still in the spill file are failures too.
 */
const hookStats = (db: SqliteDatabase, spilled: number) => {
  const { succeeded, failures } = db
    .prepare(
      `WITH failed AS (SELECT json_extract(metadata, '$.correlationId') AS id FROM events WHERE type = 'HookFailed')
       SELECT
         (SELECT count(DISTINCT json_extract(metadata, '$.correlationId')) FROM events
          WHERE json_extract(metadata, '$.writer') LIKE 'hook:%' AND type != 'HookFailed'
            AND json_extract(metadata, '$.correlationId') NOT IN (SELECT id FROM failed WHERE id IS NOT NULL)
         ) AS succeeded,
         (SELECT count(*) FROM failed) AS failures`
    )
    .get() as { succeeded: number; failures: number }
  const invocations = succeeded + failures + spilled
  const successRate = invocations === 0 ? 1 : succeeded / invocations
  return { invocations, failures: failures + spilled, notYetRecorded: spilled, successRate }
}

/** From observation_rows, not the observations view: counting needs no join with the log. */
const observationsByType = (db: SqliteDatabase) =>
  Object.fromEntries(
    (db.prepare("SELECT type, count(*) AS n FROM observation_rows GROUP BY type ORDER BY type").all() as Array<{ type: string; n: number }>).map(
      (r) => [r.type, r.n]
    )
  ) as Record<string, number>

const lastInjection = (db: SqliteDatabase) => {
  const row = db
    .prepare(
      `SELECT occurred_at AS at, json_extract(payload, '$.hookEvent') AS hook, json_extract(payload, '$.tokens') AS tokens,
              json_extract(payload, '$.reason') AS reason, json_array_length(json_extract(payload, '$.sources')) AS sources
       FROM events WHERE type = 'ContextInjected' AND redacted_by IS NULL ORDER BY position DESC LIMIT 1`
    )
    .get() as { at: number; hook: string; tokens: number; reason: string; sources: number } | undefined
  return row === undefined ? null : { ...row, at: new Date(row.at).toISOString() }
}

const activeLoops = (db: SqliteDatabase) =>
  db
    .prepare(
      `SELECT loop_id AS loopId, goal, iterations, json_extract(config, '$.maxIterations') AS maxIterations, session_id AS sessionId
       FROM loop_runs WHERE status = 'running' ORDER BY started_at DESC`
    )
    .all() as Array<{ loopId: string; goal: string; iterations: number; maxIterations: number; sessionId: string | null }>

const configFindings = (): ReadonlyArray<string> => {
  const { untrusted, problems } = loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env })
  return [...untrusted, ...problems]
}

export const status = Command.make("status", { db: flags.db, json: flags.json }, ({ db, json }) =>
  withExistingStore(db, ({ log, db: sqlite, path }) =>
    Effect.gen(function*() {
      const head = yield* log.headPosition
      const counts = sqlite.prepare("SELECT count(*) AS events, count(DISTINCT stream_id) AS streams FROM events").get() as {
        events: number
        streams: number
      }
      const sessions = sqlite.prepare("SELECT count(*) FROM sessions").pluck().get() as number
      const spilled = spillState(path)
      const report = {
        database: path,
        sizeBytes: fileSize(path) + fileSize(`${path}-wal`),
        schemaVersion: LATEST_SCHEMA_VERSION,
        events: counts.events,
        streams: counts.streams,
        sessions,
        headPosition: head,
        observations: observationsByType(sqlite),
        lastInjection: lastInjection(sqlite),
        activeLoops: activeLoops(sqlite),
        lastBackup: listBackups(path)[0] === undefined ? null : new Date(listBackups(path)[0]!.takenAt).toISOString(),
        hooks: hookStats(sqlite, spilled.kept + spilled.counted + spilled.unreadable),
        /** Since when a forget's text waits to be erased from the file (a reader held it), or null. */
        erasurePendingSince: pendingErasure(path)?.since ?? null,
        // Settings ignored: commands in a project's file not accepted yet (`config trust`), invalid values.
        config: configFindings()
      }
      if (json) return yield* printJson(report)
      yield* printFields([
        ["database", report.database],
        ["size", `${report.sizeBytes} bytes`],
        ["schema version", report.schemaVersion],
        ["events", report.events],
        ["streams", report.streams],
        ["sessions", report.sessions],
        ["head position", report.headPosition],
        [
          "observations",
          Object.entries(report.observations).map(([type, n]) => `${n} ${type}`).join(", ") || "none"
        ],
        [
          "last injection",
          report.lastInjection === null
            ? "never"
            : `${report.lastInjection.at}, ${report.lastInjection.hook}, ~${report.lastInjection.tokens} tokens from ${report.lastInjection.sources} memories`
        ],
        [
          "active loops",
          report.activeLoops.map((l) => `${l.goal} (iteration ${l.iterations}/${l.maxIterations})`).join("; ") || "none"
        ],
        ["last backup", report.lastBackup ?? "never"],
        [
          "hooks",
          `${report.hooks.invocations} invocations, ${report.hooks.failures} failed ` +
          `(${(report.hooks.successRate * 100).toFixed(1)}% ok)` +
          (report.hooks.notYetRecorded === 0
            ? ""
            : `; ${report.hooks.notYetRecorded} could not record and wait in ${spillPath(path)} ` +
              "(the next process that can write records them)")
        ],
        ...(report.erasurePendingSince === null ? [] : [[
          "forget",
          `NOT YET ERASED: the text forgotten at ${report.erasurePendingSince} is still in the file while another ` +
          "process reads it; the next hook or command erases it"
        ] as const]),
        ["config", report.config.length === 0 ? "ok" : report.config.join("\n")]
      ])
    })
  )
).pipe(Command.withDescription("Show what the memory database holds, and how the hooks are doing"))
