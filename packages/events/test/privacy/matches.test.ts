import { describe, expect, it } from "vitest"
import { forEachMatch } from "../../src/privacy/matches.ts"

describe("forEachMatch", () => {
  it("finds each match in order, and says every one was found", () => {
    const found: Array<string> = []
    expect(forEachMatch("a1 b2 c3", /[a-z]\d/g, (match) => found.push(match[0]))).toBe(-1)
    expect(found).toEqual(["a1", "b2", "c3"])
  })

  it("stops where a search the engine cannot finish started: a loop of alternatives over 12 MB", () => {
    const found: Array<string> = []
    const pattern = /(?:a|b)+c/g
    expect(forEachMatch("abc xx " + "a".repeat(12_000_000), pattern, (match) => found.push(match[0]))).toBe(3)
    expect(found).toEqual(["abc"])
    // Left ready for its next text.
    expect(pattern.lastIndex).toBe(0)
  })
})
