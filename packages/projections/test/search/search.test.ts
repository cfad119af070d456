/** The three modules together against a real FTS5 table, indexed as original + "\n" + searchableText(original). */
import { afterEach, describe, expect, it } from "vitest"
import { buildMatchQuery } from "../../src/search/query.ts"
import { type SearchIndex, searchIndex } from "./fts.ts"

let index: SearchIndex | undefined

const indexed = (rows: Readonly<Record<number, string>>): SearchIndex => {
  index = searchIndex(rows)
  return index
}

afterEach(() => index?.close())

const searchFor = (search: SearchIndex, text: string): ReadonlyArray<number> => {
  const match = buildMatchQuery(text)
  if (match === undefined) throw new Error(`no query for ${JSON.stringify(text)}`)
  return search.search(match)
}

/** Unrelated rows, so the terms under test are rare and bm25 weighs them. */
const filler = Object.fromEntries(
  Array.from({ length: 20 }, (_, i) => [100 + i, `npm install finished in ${i} seconds`])
)

describe("searching observations", () => {
  it("finds an identifier by its parts", () => {
    const search = indexed({
      ...filler,
      1: "Uncaught TokenExpiredError: jwt expired at verify()",
      2: "token refreshed"
    })
    expect(searchFor(search, "token expired")).toEqual([1, 2])
    expect(searchFor(search, "TokenExpiredError")).toEqual([1, 2])
    expect(searchFor(search, "expired error")).toEqual([1])
  })

  it("finds acronyms and snake_case parts", () => {
    const search = indexed({ ...filler, 1: "HTTPServerError in parseJSON", 2: "rename snake_case_name to camelCase" })
    expect(searchFor(search, "server")).toEqual([1])
    expect(searchFor(search, "json")).toEqual([1])
    expect(searchFor(search, "case")).toEqual([2])
  })

  it("finds Hangul words whatever particle they carry", () => {
    const search = indexed({ ...filler, 1: "인증을 다시 시도했다", 2: "인증에서 오류가 났다", 3: "인터넷 연결 끊김" })
    expect(searchFor(search, "인증")).toEqual([1, 2])
    expect(searchFor(search, "인증이")).toEqual([1, 2])
    expect(searchFor(search, "오류를")).toEqual([2])
  })

  it("finds rows for mixed Korean and English queries", () => {
    const search = indexed({
      ...filler,
      1: "로그인 중 TokenExpiredError 발생",
      2: "로그인에 성공했다",
      3: "TokenExpiredError thrown by middleware"
    })
    const found = searchFor(search, "로그인 TokenExpiredError")
    expect(found[0]).toBe(1)
    expect([...found].sort()).toEqual([1, 2, 3])
  })

  it("matches any term and ranks rows that match more terms higher", () => {
    const search = indexed({
      ...filler,
      1: "database connection refused",
      2: "database migrated",
      3: "connection reset",
      4: "unrelated"
    })
    const found = searchFor(search, "database connection")
    expect(found[0]).toBe(1)
    expect([...found].sort()).toEqual([1, 2, 3])
  })

  it("matches prefixes of longer Latin terms only", () => {
    const search = indexed({ ...filler, 1: "authentication failed", 2: "logger started", 3: "log rotated" })
    expect(searchFor(search, "auth")).toEqual([1])
    expect(searchFor(search, "log")).toEqual([3])
  })

  it("matches diacritics either way", () => {
    const search = indexed({ ...filler, 1: "café order failed" })
    expect(searchFor(search, "cafe")).toEqual([1])
    expect(searchFor(search, "CAFÉ")).toEqual([1])
  })
})
