/** Property-style: whatever users type, the query either is undefined or MATCHes a real FTS5 table without error. */
import { afterAll, describe, expect, it } from "vitest"
import { buildMatchQuery } from "../../src/search/query.ts"
import { searchIndex } from "./fts.ts"

/** A small seeded generator, so a failing seed can be replayed. */
const generator = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** FTS5 syntax, words, scripts and code points that have broken naive query builders. */
const PIECES = [
  ...`"*-+:^(){}[],.;'\\/_|&!?<>=\`~@#$%`,
  "AND",
  "OR",
  "NOT",
  "NEAR",
  "NEAR(",
  "NEAR/2",
  "col:",
  "title:",
  "{title body}:",
  "^start",
  "prefix*",
  "\"\"",
  "' OR 1=1 --",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\u0000",
  "\u0007",
  "\u001b[31m",
  "\u007f",
  "\u00a0",
  "\u200b",
  "\ufeff",
  "token",
  "TokenExpiredError",
  "HTTPServer",
  "snake_case",
  "a",
  "x1",
  "550e8400",
  "ÉCOLE",
  "e\u0301",
  "인증",
  "인증을",
  "에서",
  "ㅋㅋ",
  "로그인이",
  "認証",
  "エラー",
  "Ελληνικά",
  "русский",
  "עברית",
  "العربية",
  "😀",
  "👨‍👩‍👧",
  "🇰🇷",
  "\ud800",
  "\udfff",
  "\u{10ffff}",
  "\ue000"
]

const randomText = (random: () => number): string => {
  const length = Math.floor(random() * 12)
  let text = ""
  for (let i = 0; i < length; i++) {
    text += random() < 0.2
      ? String.fromCodePoint(Math.floor(random() * 0x3_0000))
      : PIECES[Math.floor(random() * PIECES.length)]
  }
  return text
}

const index = searchIndex({ 1: "TokenExpiredError 인증을 실패", 2: "snake_case_name NEAR AND OR", 3: "école 認証 😀" })
afterAll(() => index.close())

describe("buildMatchQuery on any input", () => {
  it.each([[`"`], ["*"], ["-"], [":"], ["("], [")"]])(
    "%j holds no word: no query at all (nothing to search, nothing to break)",
    (text) => {
      expect(buildMatchQuery(text)).toBeUndefined()
    }
  )

  it.each([
    ["NEAR", `"near"*`],
    ["AND", `"and"`],
    ["OR", `"or"`],
    ["NOT", `"not"`],
    ["(token", `"token"*`],
    [`token"`, `"token"*`],
    [`"token`, `"token"*`],
    ["col:term", `"col" OR "term"*`],
    ["^start", `"start"*`],
    ["a OR b AND NOT c", `"a" OR "or" OR "b" OR "and" OR "not" OR "c"`],
    ["NEAR(a b, 2)", `"near"* OR "a" OR "b" OR "2"`],
    ["😀 token", `"token"*`],
    ["\u0000token\u0007", `"token"*`],
    ["\ud800인증", `"인증"*`]
  ])("%j becomes quoted terms (%s) that MATCH without error", (text, expected) => {
    const match = buildMatchQuery(text)
    expect(match).toBe(expected)
    expect(() => index.search(match!)).not.toThrow()
  })

  it("stays valid and bounded for a 10 KB string", () => {
    const text = Array.from({ length: 1_000 }, (_, i) => `w${i}"(:*`).join(" ").slice(0, 10_000)
    const match = buildMatchQuery(text)
    expect(match?.split(" OR ")).toHaveLength(32)
    expect(() => index.search(match ?? "")).not.toThrow()
    const oneWord = buildMatchQuery("x".repeat(10_000))
    expect(() => index.search(oneWord ?? "")).not.toThrow()
  })

  it("2,000 random strings: each query is well-formed and MATCHes without throwing", () => {
    const random = generator(20_261_105)
    let queries = 0
    for (let i = 0; i < 2_000; i++) {
      const text = randomText(random)
      const match = buildMatchQuery(text)
      if (match === undefined) continue
      queries++
      const terms = match.split(" OR ")
      expect(terms.length).toBeLessThanOrEqual(32)
      for (const term of terms) expect(term).toMatch(/^"(?:[^"]|"")+"\*?$/)
      try {
        index.search(match)
      } catch (error) {
        throw new Error(`input ${JSON.stringify(text)} -> ${match}: ${String(error)}`)
      }
    }
    // Most inputs hold a word, so the loop really exercised FTS5.
    expect(queries).toBeGreaterThan(1_000)
  })
})
