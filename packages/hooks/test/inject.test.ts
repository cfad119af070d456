import { estimateTokens } from "@ralph-mem/projections"
import { describe, expect, it } from "vitest"
import { fitToBudget, type InjectionItem } from "../src/inject.ts"

const item = (n: number, size = 200): InjectionItem => ({
  section: n % 2 === 0 ? "Even" : "Odd",
  full: `- item ${n} ${"detail ".repeat(size / 7)}`,
  compact: `- item ${n}`,
  source: `event-${n}`
})

describe("fitting memory to the injection budget", () => {
  const items = Array.from({ length: 6 }, (_, n) => item(n))

  it("uses the full layer when it fits, grouped by section, naming every source", () => {
    const injection = fitToBudget(items, 10_000)!
    expect(injection.layer).toBe("full")
    expect(injection.text).toMatch(/^# ralph-mem: .*\n\n## Even\n- item 0 detail/)
    expect(injection.sources).toEqual(items.map((i) => i.source))
    expect(injection.tokens).toBe(estimateTokens(injection.text))
  })

  it("falls back to the compact layer when the full one is over budget", () => {
    const injection = fitToBudget(items, 80)!
    expect(injection.layer).toBe("compact")
    expect(injection.text).toContain("- item 5")
    expect(injection.tokens).toBeLessThanOrEqual(80)
  })

  it("drops the least important items when even the compact layer is over, never exceeding the budget", () => {
    for (const budget of [15, 20, 25, 30, 40]) {
      const injection = fitToBudget(items, budget)
      if (injection !== undefined) {
        expect(injection.tokens).toBeLessThanOrEqual(budget)
        expect(injection.text).toContain("- item 0")
      }
    }
    expect(fitToBudget(items, 22)!.sources.length).toBeLessThan(items.length)
  })

  it("injects nothing when there is nothing, or nothing fits", () => {
    expect(fitToBudget([], 10_000)).toBeUndefined()
    expect(fitToBudget(items, 1)).toBeUndefined()
  })
})
