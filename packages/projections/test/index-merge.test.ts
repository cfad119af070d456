/**
 * Merging the full-text indexes' segments (index-merge.ts), on a real SQLite file: appends one at a time pile up
 * segments as hooks do; a merge leaves few, finds the same, passes verify, and a second merge has nothing to do.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { mergeFullTextIndexes, verify } from "../src/index.ts"
import { searchIndex } from "../src/search/index.ts"
import { observation, started } from "./events.ts"
import { append, open } from "./spec.ts"

const WORDS = ["gateway", "timeout", "ledger", "invoice", "parser", "cache", "token", "refresh", "queue", "worker"]

/** Segments of an index, as its page index knows them (each segment has at least one entry). */
const segments = (memory: ReturnType<typeof open>, index: string) =>
  memory.db.prepare(`SELECT count(DISTINCT segid) FROM ${index}_idx`).pluck().get() as number

describe("merging the full-text indexes", () => {
  it("leaves about one segment a level of what appends piled up; the search finds the same", () => {
    const memory = open()
    append(memory, [["session:a", started("a")]])
    // One append a transaction, as hooks append: each commit flushes a segment.
    for (let i = 0; i < 120; i++) {
      const a = WORDS[i % WORDS.length]!
      const b = WORDS[(i * 7 + 3) % WORDS.length]!
      append(memory, [["session:a", observation("a", `FAIL src/${a}/${b}.test.ts: ${a} ${b} case ${i}`)]])
    }
    const before = segments(memory, "observations_fts")
    expect(before).toBeGreaterThan(4)
    const search = (query: string) =>
      searchIndex(memory.db, { query, limit: 10, now: 0 }).hits.map((hit) => [hit.id, hit.score])
    const found = WORDS.map(search)

    const report = mergeFullTextIndexes(memory.db)
    expect(report.merged).toContain("observations_fts")
    expect(report.steps).toBeGreaterThan(0)
    expect(segments(memory, "observations_fts")).toBeLessThanOrEqual(2)
    expect(WORDS.map(search)).toEqual(found)
    expect(Effect.runSync(verify(memory)).ok).toBe(true)

    // Nothing is left to merge; appends after it are indexed and found as before.
    expect(mergeFullTextIndexes(memory.db)).toEqual({ steps: 0, merged: [] })
    append(memory, [["session:a", observation("a", "ZANZIBAR-7731 came after the merge")]])
    expect(searchIndex(memory.db, { query: "ZANZIBAR-7731", limit: 10 }).hits).toHaveLength(1)
  })
})
