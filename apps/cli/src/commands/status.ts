/** `ralph-mem status`: what the memory database holds. */
import { LATEST_SCHEMA_VERSION } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { statSync } from "node:fs"
import * as flags from "../flags.ts"
import { printFields, printJson } from "../output.ts"
import { withStore } from "../store.ts"

export const status = Command.make("status", { db: flags.db, json: flags.json }, ({ db, json }) =>
  withStore(db, ({ log, db: sqlite, path }) =>
    Effect.gen(function*() {
      const head = yield* log.headPosition
      const counts = sqlite.prepare("SELECT count(*) AS events, count(DISTINCT stream_id) AS streams FROM events").get() as {
        events: number
        streams: number
      }
      const report = {
        database: path,
        sizeBytes: statSync(path).size,
        schemaVersion: LATEST_SCHEMA_VERSION,
        events: counts.events,
        streams: counts.streams,
        headPosition: head
      }
      if (json) return yield* printJson(report)
      yield* printFields([
        ["database", report.database],
        ["size", `${report.sizeBytes} bytes`],
        ["schema version", report.schemaVersion],
        ["events", report.events],
        ["streams", report.streams],
        ["head position", report.headPosition]
      ])
    })
  )
).pipe(Command.withDescription("Show what the memory database holds"))
