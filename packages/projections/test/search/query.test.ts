import { describe, expect, it } from "vitest"
import { buildMatchQuery, matchTerms, termsByWord } from "../../src/search/query.ts"

describe("buildMatchQuery", () => {
  it("quotes every term and joins them with OR, never as one phrase", () => {
    expect(buildMatchQuery("token expired")).toBe(`"token"* OR "expired"*`)
  })

  it("keeps Latin terms shorter than 4 characters exact, and longer ones as prefixes", () => {
    expect(buildMatchQuery("npm log auth")).toBe(`"npm" OR "log" OR "auth"*`)
  })

  it("adds the parts of an identifier after the identifier itself", () => {
    expect(buildMatchQuery("TokenExpiredError")).toBe(`"tokenexpirederror"* OR "token"* OR "expired"* OR "error"*`)
    expect(buildMatchQuery("parseJSON")).toBe(`"parsejson"* OR "parse"* OR "json"*`)
  })

  it("splits snake_case, kebab-case and paths at their punctuation", () => {
    expect(buildMatchQuery("snake_case_name")).toBe(`"snake"* OR "case"* OR "name"*`)
    expect(buildMatchQuery("src/auth/token-store.ts")).toBe(`"src" OR "auth"* OR "token"* OR "store"* OR "ts"`)
  })

  it("makes Hangul terms prefixes of their stem", () => {
    expect(buildMatchQuery("인증")).toBe(`"인증"*`)
    expect(buildMatchQuery("인증을")).toBe(`"인증"*`)
    expect(buildMatchQuery("인증에서는 서버로")).toBe(`"인증"* OR "서버"*`)
    expect(buildMatchQuery("로그인이 실패")).toBe(`"로그인"* OR "실패"*`)
  })

  it("keeps a particle-like ending when the stem would be a single syllable", () => {
    expect(buildMatchQuery("사이")).toBe(`"사이"*`)
    expect(buildMatchQuery("집에")).toBe(`"집에"*`)
  })

  it("handles Korean and English together", () => {
    expect(buildMatchQuery("로그인 TokenExpiredError")).toBe(
      `"로그인"* OR "tokenexpirederror"* OR "token"* OR "expired"* OR "error"*`
    )
    expect(buildMatchQuery("Token이")).toBe(`"token"*`)
  })

  it("lower-cases and deduplicates terms", () => {
    expect(buildMatchQuery("Token TOKEN token")).toBe(`"token"*`)
  })

  it("treats FTS5 operators and syntax as plain words or separators", () => {
    expect(buildMatchQuery("NEAR AND OR NOT")).toBe(`"near"* OR "and" OR "or" OR "not"`)
    expect(buildMatchQuery(`title:token ^start "a phrase" -x (y)`)).toBe(
      `"title"* OR "token"* OR "start"* OR "a" OR "phrase"* OR "x" OR "y"`
    )
  })

  it.each([[""], ["   "], [`"`], ["*"], ["-"], [":"], ["()"], ["^"], ["😀🔥"], ["\u0000\u0007\u001b"], ["\ud800"]])(
    "returns undefined when %j has no searchable word",
    (text) => {
      expect(buildMatchQuery(text)).toBeUndefined()
    }
  )

  it("caps the number of terms at 32", () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ")
    expect(buildMatchQuery(words)?.split(" OR ")).toHaveLength(32)
  })
})

describe("termsByWord", () => {
  it("gives each word with its terms, the word's own first", () => {
    expect(termsByWord("TokenExpiredError 인증을")).toEqual([
      ["TokenExpiredError", [`"tokenexpirederror"*`, `"token"*`, `"expired"*`, `"error"*`]],
      ["인증을", [`"인증"*`]]
    ])
  })

  it("stops at the words whose terms the search asks for: a pasted page is weighed no further than searched", () => {
    const words = Array.from({ length: 5000 }, (_, i) => `word${i}`).join(" ")
    const byWord = termsByWord(words)
    expect(byWord.length).toBeLessThanOrEqual(32)
    const terms = new Set(byWord.flatMap(([, of]) => of))
    expect(matchTerms(words).every((term) => terms.has(term))).toBe(true)
    // The last word taken holds the 32nd term: its other terms may be past the cap, no further word is.
    expect(terms.size - byWord.at(-1)![1].length).toBeLessThan(32)
  })
})
