/** The table of every setting ralph-mem knows, in the order `ralph-mem config` lists them. */
import * as Schema from "effect/Schema"
import { successCriteriaSpec } from "./criteria.ts"
import { durationExpected, durationMs, fraction, intAtLeast, leaf, limit, type SettingSpec } from "./spec.ts"

/** The four budget shares, which together may not exceed the whole window. */
export const shareKeys = ["memory.system", "memory.injected_memory", "memory.task", "memory.response"] as const

const buildSpecs = (): ReadonlyArray<SettingSpec> => {
  const shareExpected = "a number between 0 and 1"
  return [
    limit(leaf("memory.context_window", "an integer >= 1000 (tokens)", () => intAtLeast(1_000))),
    // The injected memory's share is what memory may add to every prompt: a limit. The others divide the rest.
    ...shareKeys.map((key) => {
      const share = leaf(key, shareExpected, fraction)
      return key === "memory.injected_memory" ? limit(share) : share
    }),
    limit(leaf("memory.max_observation_chars", "an integer >= 200", () => intAtLeast(200))),
    limit(leaf("memory.max_prompt_chars", "an integer >= 200", () => intAtLeast(200))),
    limit(leaf("memory.tool_result_tokens", "an integer >= 200 (tokens)", () => intAtLeast(200))),
    leaf(
      "memory.search.recency_half_life_days",
      "a number > 0 (days)",
      () => Schema.Finite.check(Schema.isGreaterThan(0))
    ),
    leaf("memory.search.recency_weight", shareExpected, fraction),
    limit(leaf("loop.max_iterations", "an integer >= 1", () => intAtLeast(1))),
    limit(
      leaf("loop.max_duration", `${durationExpected}, or null for no limit`, () => Schema.NullOr(durationMs()), [
        "loop",
        "maxDurationMs"
      ])
    ),
    limit(
      leaf("loop.max_tokens", "an integer >= 1 (tokens), or null for no limit", () => Schema.NullOr(intAtLeast(1)))
    ),
    limit(
      leaf(
        "loop.max_cost_usd",
        "a number > 0 (US dollars), or null for no limit",
        () => Schema.NullOr(Schema.Finite.check(Schema.isGreaterThan(0)))
      )
    ),
    limit(leaf("loop.no_progress_threshold", "an integer >= 1", () => intAtLeast(1))),
    leaf("loop.cooldown_ms", "an integer >= 0 (milliseconds)", () => intAtLeast(0)),
    limit(leaf("loop.context_budget", shareExpected, fraction)),
    successCriteriaSpec(),
    limit(leaf("backup.keep", "an integer >= 1", () => intAtLeast(1))),
    // Backups more often than the user's interval cost each session's end a copy of the memory.
    limit(
      leaf("backup.interval", durationExpected, durationMs, ["backup", "intervalMs"]),
      (value, below) => (value as number) < (below as number)
    )
  ]
}

// The table is built on first use: a hook with no config file and no RALPH_MEM_* variable never needs it.
let specs: ReadonlyArray<SettingSpec> | undefined
let specsByKey: ReadonlyMap<string, SettingSpec> | undefined

export const settingSpecs = (): ReadonlyArray<SettingSpec> => (specs ??= buildSpecs())

export const findSpec = (key: string): SettingSpec | undefined =>
  (specsByKey ??= new Map(settingSpecs().map((spec) => [spec.key, spec]))).get(key)
