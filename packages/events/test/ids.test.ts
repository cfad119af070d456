import { describe, expect, it } from "vitest"
import { monotonicUlid } from "../src/index.ts"

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{26}$/

describe("event ids", () => {
  it("are 26-character Crockford ULIDs whose first 10 characters encode the time", () => {
    const id = monotonicUlid()(Date.parse("2026-11-22T00:00:00Z"))
    expect(id).toMatch(CROCKFORD)
    const time = [...id.slice(0, 10)].reduce((t, c) => t * 32 + "0123456789ABCDEFGHJKMNPQRSTVWXYZ".indexOf(c), 0)
    expect(time).toBe(Date.parse("2026-11-22T00:00:00Z"))
  })

  it("sort in the order they were made, within one millisecond and across a clock going backwards", () => {
    const next = monotonicUlid()
    const ids = [
      ...Array.from({ length: 1000 }, () => next(1_800_000_000_000)),
      next(1_799_999_999_000),
      next(1_800_000_000_001)
    ]
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("differ between generators in the same millisecond", () => {
    const ids = Array.from({ length: 200 }, () => monotonicUlid()(1_800_000_000_000))
    expect(new Set(ids).size).toBe(200)
  })
})
