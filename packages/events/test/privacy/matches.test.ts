import { describe, expect, it } from "vitest"
import { forEachMatch, withPlainLoops } from "../../src/privacy/matches.ts"
import { SECRET_RULES } from "../../src/privacy/secret-rules.ts"

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

describe("withPlainLoops", () => {
  it.each([
    [String.raw`sk-ant-[\w-]{20,}`, String.raw`sk-ant-[\w-]{20}[\w-]*`],
    [String.raw`[\x2d\s\S]{64,}?KEY`, String.raw`[\x2d\s\S]{64}[\x2d\s\S]*?KEY`],
    [String.raw`ops_eyJ[a-z\x2b]{250,}={0,3}`, String.raw`ops_eyJ[a-z\x2b]{250}[a-z\x2b]*={0,3}`],
    [String.raw`\\{20,}\d{32,}`, String.raw`\\{20}\\*\d{32}\d*`],
    // Left: a short minimum, a maximum, a group, an escaped brace, a brace inside a class.
    [String.raw`a{3,}b{4,9}(?:ab){5,}c\{20,}[x{20,}]`, String.raw`a{3,}b{4,9}(?:ab){5,}c\{20,}[x{20,}]`]
  ])("writes %s as %s", (source, plain) => {
    expect(withPlainLoops(source)).toBe(plain)
  })

  it("leaves nothing to write in the filter's own rules", () => {
    for (const rule of SECRET_RULES) expect(withPlainLoops(rule.pattern.source), rule.kind).toBe(rule.pattern.source)
  })
})
