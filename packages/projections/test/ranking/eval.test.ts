/**
 * The search evaluation (bench/search-eval/) on its small memory, with the targets as assertions so they
 * cannot rot: top-3 >= 85% overall and >= 80% in every group. The buried runs (5,000 and 50,000 later
 * observations) are `node bench/search-eval.ts`: too slow for a unit test.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { buildEvalMemory, corpusProblems, GROUPS, runEval } from "../../../../bench/search-eval/evaluate.ts"

describe("the search evaluation on a small memory", () => {
  it("is well-formed: every query names a memory of the corpus, at least 60 queries", () => {
    expect(corpusProblems()).toEqual([])
  })

  it("finds each query's memory in the top 3 for >= 85% of the queries and >= 80% of each group", () => {
    const folder = mkdtempSync(join(tmpdir(), "ralph-mem-eval-"))
    try {
      const db = buildEvalMemory(join(folder, "eval.db"), 0)
      const report = runEval(db, 0)
      db.memory.db.close()
      const misses = report.outcomes.filter((o) => o.rank === undefined || o.rank > 3).map((o) =>
        `[${o.group}] ${o.query} -> ${o.expect}: ${o.rank ?? "-"}`
      )
      expect(report.outcomes.length).toBeGreaterThanOrEqual(60)
      expect(report.overall.top3, misses.join("\n")).toBeGreaterThanOrEqual(0.85)
      for (const group of GROUPS) {
        expect(report.groups[group].top3, `${group}\n${misses.join("\n")}`).toBeGreaterThanOrEqual(0.8)
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
