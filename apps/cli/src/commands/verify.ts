/** `ralph-mem verify`: check the database, the log's invariants, and the projections against a replay. */
import { verify as check } from "@ralph-mem/projections"
import { Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { failWith } from "../flags.ts"
import { printJson } from "../output.ts"
import { progress } from "../progress.ts"

export const verify = Command.make(
  "verify",
  { db: flags.db, json: flags.json },
  ({ db, json }) =>
    withExistingStore(db, (memory) =>
      Effect.gen(function*() {
        const bar = progress({ label: "verifying", unit: "checks" })
        const report = yield* check(memory, { onProgress: bar.update })
        bar.finish()
        if (json) yield* printJson(report)
        else {
          for (const name of report.checks) {
            const skipped = report.skipped.filter((s) => s.check === name)
            const findings = report.findings.filter((f) => f.check === name)
            const outcome = skipped.length > 0 ? "skip" : findings.length === 0 ? "ok  " : "FAIL"
            yield* Console.log(`${outcome}  ${name}`)
            for (const note of [...skipped, ...findings]) yield* Console.log(`      ${note.detail}`)
          }
          yield* Console.log(
            `${report.events} events checked, ${report.findings.length} problem(s) found` +
              (report.skipped.length === 0 ? "." : `, ${report.skipped.length} check(s) skipped.`)
          )
        }
        if (!report.ok) return yield* failWith(`verify found ${report.findings.length} problem(s)`)
      }))
).pipe(
  Command.withDescription(
    "Check integrity, the log's invariants, and that the read models equal a fresh replay; exits 1 on any problem"
  )
)
