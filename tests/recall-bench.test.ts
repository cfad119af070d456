/**
 * A small part of the recall benchmark (bench/recall), so the harness and the corpus cannot rot: three
 * scenarios (one in Korean) through the real hooks, measured for every system.
 */
import { describe, expect, it } from "vitest"
import { corpus } from "../bench/recall/corpus.ts"
import { runScenario, SYSTEMS, totals } from "../bench/recall/harness.ts"

const chosen = ["jwt-expiry", "decision-queue", "ko-db-pool"]

describe("the recall benchmark", () => {
  it("has at least 30 scenarios, some in Korean, each with items a memory can bring", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30)
    expect(corpus.filter((s) => s.language === "ko").length).toBeGreaterThanOrEqual(5)
    expect(new Set(corpus.map((s) => s.id)).size).toBe(corpus.length)
    for (const scenario of corpus) expect(scenario.expected.length).toBeGreaterThan(0)
  })

  it("measures ralph-mem, newest-50 and no memory on the same scenarios", { timeout: 600_000 }, async () => {
    const results = []
    for (const id of chosen) results.push(await runScenario(corpus.find((s) => s.id === id)!))
    for (const result of results) {
      // Routine work puts more observations in the project than the baseline shows.
      expect(result.observations).toBeGreaterThan(50)
      expect(result.texts["no memory"]).toBe("")
      expect(result.systems["no memory"]).toMatchObject({ recall: 0, tokens: 0 })
      expect(result.texts["newest-50"].split("\n").filter((l) => l.startsWith("- ["))).toHaveLength(50)
      expect(result.texts["ralph-mem"]).toContain("# ralph-mem: what this project's memory holds")
      for (const system of SYSTEMS) {
        const measure = result.systems[system]
        expect(measure.found.length + measure.missed.length).toBe(
          corpus.find((s) => s.id === result.id)!.expected.length
        )
        expect(measure.recall).toBeGreaterThanOrEqual(0)
        expect(measure.recall).toBeLessThanOrEqual(1)
        expect(measure.homeShown).toBe(false)
      }
    }
    expect(totals(results, "ralph-mem").scenarios).toBe(3)
    expect(totals(results, "ralph-mem", "ko").scenarios).toBe(1)
  })
})
