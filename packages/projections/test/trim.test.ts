import { describe, expect, it } from "vitest"
import { budgetShares, byRecency, byRelevance, type Candidate, compress, estimateTokens, selective } from "../src/index.ts"

const c = (id: string, type: string, score: number, createdAt: number, text = `memory ${id} `.repeat(10), sessionId = "s1"): Candidate => ({
  id,
  type,
  sessionId,
  score,
  createdAt,
  text
})

const memories = [c("a", "tool_use", 0.2, 1), c("b", "error", 0.9, 2), c("c", "success", 0.5, 3), c("d", "note", 0.7, 4), c("e", "error", 0.1, 5)]
const cost = estimateTokens(memories[0]!.text)
const ids = (kept: ReadonlyArray<Candidate>) => kept.map((k) => k.id)
const total = (kept: ReadonlyArray<Candidate>) => kept.reduce((sum, k) => sum + estimateTokens(k.text), 0)

describe("trimming to a budget", () => {
  it("recency: the oldest go first", () => {
    expect(ids(byRecency(memories, cost * 3))).toEqual(["e", "d", "c"])
  })

  it("relevance: the lowest scores go first", () => {
    expect(ids(byRelevance(memories, cost * 3))).toEqual(["b", "d", "c"])
  })

  it("selective: during a loop only decisive successes and failures stay, newest first", () => {
    expect(ids(selective(memories, cost * 10))).toEqual(["e", "c", "b"])
    expect(ids(selective(memories, cost * 2))).toEqual(["e", "c"])
  })

  it("never exceeds the budget, skipping what does not fit for what does", () => {
    const mixed = [c("big", "error", 1, 9, "x".repeat(4000)), ...memories]
    for (const budget of [0, cost, cost * 2 + 1, 500, 5000]) {
      for (const strategy of [byRecency, byRelevance, selective]) expect(total(strategy(mixed, budget))).toBeLessThanOrEqual(budget)
    }
    expect(ids(byRelevance(mixed, cost * 2))).toEqual(["b", "d"])
  })

  it("compression: past the threshold, a session's observations of one kind merge into one line", () => {
    const trace = (file: string) => `TypeError at ${file}: cannot read properties of undefined\n${"    at frame (node_modules/lib.js:1:2)\n".repeat(6)}`
    const many = [c("1", "error", 0.3, 1, trace("a.ts")), c("2", "error", 0.8, 2, trace("b.ts")), c("3", "success", 0.4, 3, "PASS"), c("4", "error", 0.5, 4, "ENOENT", "s2")]
    expect(compress(many, 10)).toEqual(many)
    const compressed = compress(many, 3)
    expect(compressed).toHaveLength(3)
    expect(compressed[0]).toMatchObject({ id: "2,1", type: "error", score: 0.8, createdAt: 2 })
    expect(compressed[0]!.text).toMatch(/^2 error\(s\) in session s1: TypeError at b\.ts: cannot read .*…; TypeError at a\.ts: cannot read .*…$/)
    expect(compressed.slice(1)).toEqual([many[2], many[3]])
    expect(total(compressed)).toBeLessThan(total(many))
  })
})

describe("budget shares", () => {
  it("splits the context window by the configured shares", () => {
    expect(budgetShares(200_000, { system: 0.1, injectedMemory: 0.15, task: 0.35, response: 0.4 })).toEqual({
      system: 20_000,
      injectedMemory: 30_000,
      task: 70_000,
      response: 80_000
    })
  })
})
