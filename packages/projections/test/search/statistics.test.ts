/**
 * Term statistics are kept per connection while the memory's observations are unchanged: a write that indexes an
 * observation, through the same connection or another one, is seen by the next search; one that indexes none
 * (a session's start, a memory tool's call) keeps them.
 */
import { describe, expect, it } from "vitest"
import { searchIndex } from "../../src/search/index.ts"
import { termStatistics } from "../../src/search/terms.ts"
import { observation, started } from "../events.ts"
import { append, open, T0 } from "../spec.ts"

const ok = (session: string, n: number) =>
  Array.from({ length: n }, (_, i) => [`session:${session}`, observation(session, `auth ok ${i}`)] as const)

/** A memory holding `authentication` once, and whether a search for `auth` finds it. */
const authMemory = () => {
  const memory = open()
  append(memory, [["session:a", started("a")], [
    "session:a",
    observation("a", "authentication failed for the admin user")
  ]])
  const findsLongerWord = () =>
    searchIndex(memory.db, { query: "auth", now: T0, limit: 200 }).hits.some((h) => h.title.includes("authentication"))
  // While fewer than 100 rows hold `auth`, it is a prefix and finds `authentication`; from then on, as written.
  expect(findsLongerWord()).toBe(true)
  return { memory, findsLongerWord }
}

describe("kept term statistics", () => {
  it("are judged again once this connection wrote", () => {
    const { memory, findsLongerWord } = authMemory()
    append(memory, [["session:b", started("b")], ...ok("b", 120)], T0 + 60_000)
    expect(findsLongerWord()).toBe(false)
  })

  it("are judged again once another connection wrote", () => {
    const { memory, findsLongerWord } = authMemory()
    append(open(memory.db.name), [["session:c", started("c")], ...ok("c", 120)], T0 + 60_000)
    expect(findsLongerWord()).toBe(false)
  })

  it("are kept across writes that index no observation, and judged again after one that does", () => {
    const { memory } = authMemory()
    const kept = termStatistics(memory.db)
    append(memory, [["session:d", started("d")]], T0 + 60_000)
    append(open(memory.db.name), [["session:e", started("e")]], T0 + 61_000)
    expect(termStatistics(memory.db)).toBe(kept)
    append(memory, [["session:d", observation("d", "auth ok")]], T0 + 62_000)
    expect(termStatistics(memory.db)).not.toBe(kept)
  })

  it("are judged afresh once they hold too many row ids, however few entries: a bound on a server's memory", () => {
    const { memory } = authMemory()
    append(memory, [["session:f", started("f")], ...ok("f", 150)], T0 + 60_000)
    const limits = { entries: 10_000, rowIds: 300 }
    const kept = termStatistics(memory.db, limits)
    expect(kept.newest("\"ok\"", 100)).toHaveLength(100)
    // 200 ids: the read and the list kept from it. Under the bound, the same statistics.
    expect(termStatistics(memory.db, limits)).toBe(kept)
    kept.newest("\"auth\"", 100)
    const renewed = termStatistics(memory.db, limits)
    expect(renewed).not.toBe(kept)
    expect(termStatistics(memory.db, limits)).toBe(renewed)
  })
})
