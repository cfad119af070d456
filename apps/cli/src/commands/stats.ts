/** `ralph-mem stats`: the product's four success metrics, each printed with how it is measured. */
import { type Metric, successMetrics } from "@ralph-mem/projections"
import { Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson } from "../output.ts"

const LABELS: Record<string, string> = {
  injectionUse: "injection use",
  hookSuccess: "hook success",
  loopSuccess: "loop success",
  meanIterations: "mean iterations of a successful loop"
}

const formatValue = (metric: Metric) =>
  metric.value === null
    ? "nothing to measure yet"
    : metric.name === "meanIterations"
    ? `${metric.value.toFixed(2)} (${metric.numerator} iterations over ${metric.denominator} loops)`
    : `${(metric.value * 100).toFixed(1)}% (${metric.numerator} of ${metric.denominator})`

const verdict = (metric: Metric) => (metric.met === null ? "" : metric.met ? "  met" : "  not met")

export const stats = Command.make(
  "stats",
  { db: flags.db, json: flags.json, since: flags.since },
  (input) =>
    Effect.gen(function*() {
      const since = (yield* flags.parseTime("since", Option.orElse(input.since, () => Option.some("30d")))) ?? 0
      yield* withExistingStore(input.db, (memory) =>
        Effect.gen(function*() {
          const metrics = successMetrics(memory.db, since)
          if (input.json) return yield* printJson({ ...metrics, since: new Date(since).toISOString() })
          const lines = [`Success metrics since ${new Date(since).toISOString()}:`, ""]
          for (
            const metric of [metrics.injectionUse, metrics.hookSuccess, metrics.loopSuccess, metrics.meanIterations]
          ) {
            lines.push(`${LABELS[metric.name]}: ${formatValue(metric)}, target ${metric.target}${verdict(metric)}`)
            lines.push(`  ${metric.definition}`)
          }
          yield* Console.log(lines.join("\n"))
        }))
    })
).pipe(
  Command.withDescription(
    "The four success metrics (injection use, hook success, loop success, iterations per successful loop), " +
      "with their definitions"
  )
)
