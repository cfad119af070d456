/** `ralph-mem replay`: rebuild the read models from the event log, atomically. */
import { resummarizeSessions } from "@ralph-mem/hooks"
import { replay as rebuild } from "@ralph-mem/projections"
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson } from "../output.ts"
import { progress } from "../progress.ts"

export const replay = Command.make(
  "replay",
  {
    db: flags.db,
    json: flags.json,
    projection: Flag.String("projection").pipe(Flag.withDescription("Rebuild only this projection"), Flag.optional)
  },
  ({ db, json, projection }) =>
    withExistingStore(db, (memory) =>
      Effect.gen(function*() {
        const bar = progress({ label: "replaying", unit: "events" })
        const report = yield* rebuild(memory, {
          ...(Option.isSome(projection) ? { projection: projection.value } : {}),
          onProgress: ({ done, total }) => bar.update(done, total)
        })
        bar.finish()
        // A new summariser summarises the sessions an older one did: new events, on the rebuilt read models.
        const summaries = yield* resummarizeSessions(memory, { home: process.env["HOME"], writer: "replay" })
        // The process's peak resident set: a replay's memory does not grow with the log.
        if (json) {
          return yield* printJson({
            ...report,
            summaries,
            peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024)
          })
        }
        yield* Console.log(
          `Replayed ${report.events} events into ${
            report.projections.join(", ")
          } in ${report.ms} ms (${report.eventsPerSecond} events/s${report.threads === 2 ? ", on two threads" : ""}).${
            summaries.summarized === 0
              ? ""
              : ` Summarised ${summaries.summarized} session(s) again with ${summaries.summarizer}.`
          }`
        )
      }))
).pipe(
  Command.withDescription(
    "Rebuild the read models from the event log (atomically: readers never see a half-built state)"
  )
)
