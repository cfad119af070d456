/** `ralph-mem status`: what the memory database holds, and how the hooks are doing. */
import { LATEST_SCHEMA_VERSION, type SqliteDatabase } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { existsSync, statSync } from "node:fs"
import * as flags from "../flags.ts"
import { printFields, printJson } from "../output.ts"
import { withStore } from "../store.ts"

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0)

/**
 * Every hook invocation that worked wrote its events under one correlation id; every one that failed
 * (and could still reach the database) wrote a HookFailed event. Failures that could not reach the
 * database are only in hooks.log.
 */
const hookStats = (db: SqliteDatabase) => {
  const { succeeded, failures } = db
    .prepare(
      `SELECT
         (SELECT count(DISTINCT json_extract(metadata, '$.correlationId')) FROM events
          WHERE json_extract(metadata, '$.writer') LIKE 'hook:%' AND type != 'HookFailed') AS succeeded,
         (SELECT count(*) FROM events WHERE type = 'HookFailed') AS failures`
    )
    .get() as { succeeded: number; failures: number }
  const invocations = succeeded + failures
  return { invocations, failures, successRate: invocations === 0 ? 1 : succeeded / invocations }
}

export const status = Command.make("status", { db: flags.db, json: flags.json }, ({ db, json }) =>
  withStore(db, ({ log, db: sqlite, path }) =>
    Effect.gen(function*() {
      const head = yield* log.headPosition
      const counts = sqlite.prepare("SELECT count(*) AS events, count(DISTINCT stream_id) AS streams FROM events").get() as {
        events: number
        streams: number
      }
      const sessions = sqlite.prepare("SELECT count(*) FROM sessions").pluck().get() as number
      const report = {
        database: path,
        sizeBytes: fileSize(path) + fileSize(`${path}-wal`),
        schemaVersion: LATEST_SCHEMA_VERSION,
        events: counts.events,
        streams: counts.streams,
        sessions,
        headPosition: head,
        hooks: hookStats(sqlite)
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
          "hooks",
          `${report.hooks.invocations} invocations, ${report.hooks.failures} failed (${(report.hooks.successRate * 100).toFixed(1)}% ok)`
        ]
      ])
    })
  )
).pipe(Command.withDescription("Show what the memory database holds, and how the hooks are doing"))
