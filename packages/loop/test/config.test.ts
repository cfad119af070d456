/** Typed loop limits and settings: what `ralph start/run/plan` flags and `ralph config` accept or refuse. */
import type { LoopConfig } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import {
  changeLoopSetting,
  LoopConfigInvalid,
  loopConfigProblem,
  loopSettings,
  parseLoopLimits
} from "../src/config.ts"

const config: LoopConfig = {
  maxIterations: 3,
  noProgressThreshold: 2,
  cooldownMs: 0,
  contextBudget: 0.6,
  successCriteria: []
}

const refusal = (
  value: unknown
) => (value instanceof LoopConfigInvalid ? value.message : `accepted ${JSON.stringify(value)}`)

describe("typed loop limits", () => {
  it("turns every valid limit into an override", () => {
    expect(
      parseLoopLimits({
        maxIterations: 4,
        maxDuration: "1h30m",
        maxTokens: 1000,
        maxCost: "$2.50",
        criteria: ["test_pass", "custom=make check"]
      })
    )
      .toEqual({
        maxIterations: 4,
        maxDurationMs: 5_400_000,
        maxTokens: 1000,
        maxCostUsd: 2.5,
        criteria: [{ kind: "test_pass" }, { kind: "custom", command: ["make", "check"] }]
      })
  })

  it("leaves absent limits to the settings", () => expect(parseLoopLimits({})).toEqual({ criteria: [] }))

  it("refuses fewer than one iteration", () =>
    expect(refusal(parseLoopLimits({ maxIterations: 0 }))).toBe("--max-iterations must be at least 1"))

  it("refuses a token limit below one", () =>
    expect(refusal(parseLoopLimits({ maxTokens: 0 }))).toBe("--max-tokens must be at least 1"))

  it("refuses a duration without a unit", () =>
    expect(refusal(parseLoopLimits({ maxDuration: "30" }))).toMatch(
      /^--max-duration "30" is not a duration; use 0, 90s/
    ))

  it("refuses a cost that is not a positive amount", () => {
    expect(refusal(parseLoopLimits({ maxCost: "-1" }))).toBe(
      "--max-cost -1: use an amount of US dollars like 5 or 2.50"
    )
    expect(refusal(parseLoopLimits({ maxCost: "five" }))).toMatch(/^--max-cost five:/)
  })

  it("refuses an unknown criterion, naming the value", () =>
    expect(refusal(parseLoopLimits({ criteria: ["tests"] }))).toMatch(/^--criteria tests: unknown criterion "tests"/))

  it("reports the first problem in flag order", () =>
    expect(refusal(parseLoopLimits({ maxIterations: 0, maxTokens: 0 }))).toBe("--max-iterations must be at least 1"))
})

describe("changing one loop setting", () => {
  it("changes a duration", () =>
    expect(changeLoopSetting(config, "max_duration", "2h")).toEqual({ ...config, maxDurationMs: 7_200_000 }))

  it("changes a whole number", () =>
    expect(changeLoopSetting(config, "max_iterations", "7")).toEqual({ ...config, maxIterations: 7 }))

  it("allows a cooldown of zero but no iteration limit of zero", () => {
    expect(changeLoopSetting(config, "cooldown_ms", "0")).toEqual({ ...config, cooldownMs: 0 })
    expect(refusal(changeLoopSetting(config, "max_iterations", "0"))).toBe(
      "max_iterations must be a whole number >= 1, got 0"
    )
  })

  it("refuses a fraction where a whole number belongs", () =>
    expect(refusal(changeLoopSetting(config, "max_tokens", "1.5"))).toBe(
      "max_tokens must be a whole number >= 1, got 1.5"
    ))

  it("refuses a context budget outside (0, 1]", () =>
    expect(refusal(changeLoopSetting(config, "context_budget", "0"))).toBe(
      "context_budget must be between 0 and 1, got 0"
    ))

  it("refuses a cost of nothing", () =>
    expect(refusal(changeLoopSetting(config, "max_cost_usd", "0"))).toBe(
      "max_cost_usd must be an amount of US dollars > 0, got 0"
    ))

  it("shows the settings by their file names, null for no limit", () =>
    expect(loopSettings({ ...config, maxDurationMs: 90_000 })).toEqual({
      max_iterations: 3,
      max_duration: "90s",
      max_tokens: null,
      max_cost_usd: null,
      no_progress_threshold: 2,
      cooldown_ms: 0,
      context_budget: 0.6
    }))

  it("every value a setting accepts passes the config rule the decider applies", () => {
    for (
      const [key, raw] of [["max_duration", "0s"], ["max_tokens", "1"], ["no_progress_threshold", "1"], [
        "context_budget",
        "1"
      ]] as const
    ) {
      const next = changeLoopSetting(config, key, raw)
      expect(next).not.toBeInstanceOf(LoopConfigInvalid)
      expect(loopConfigProblem(next as LoopConfig)).toBeUndefined()
    }
  })
})
