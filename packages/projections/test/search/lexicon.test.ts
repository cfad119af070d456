/**
 * The lexicon's data (src/search/lexicon/*.tsv) and what a query expands to: every entry well-formed, and no
 * query, however ordinary or long, explodes into more terms than the caps allow.
 */
import { describe, expect, it } from "vitest"
import {
  expansionsOf,
  lexiconEntries,
  MAX_EXPANSIONS,
  MAX_EXPANSIONS_PER_PHRASE,
  phraseOf,
  phraseTerm
} from "../../src/search/lexicon.ts"
import { buildMatchQuery, matchTerms } from "../../src/search/query.ts"
import { searchIndex } from "./fts.ts"

const HANGUL = /[\uAC00-\uD7A3]/
const files = ["bridge.tsv", "errors.tsv", "synonyms.tsv"] as const

describe("the lexicon's data", () => {
  it("holds at least 1,500 Korean-English pairs, each a Korean phrase and an English one", () => {
    const pairs = lexiconEntries("bridge.tsv")
    expect(pairs.length).toBeGreaterThanOrEqual(1500)
    expect(pairs.filter((p) => p.length !== 2)).toEqual([])
    expect(pairs.filter(([korean]) => !HANGUL.test(korean!)).map((p) => p.join(" | "))).toEqual([])
    expect(pairs.filter(([, english]) => HANGUL.test(english!)).map((p) => p.join(" | "))).toEqual([])
  })

  it("has no empty side, no pair or group member twice, and no phrase linked to itself", () => {
    for (const file of files) {
      const entries = lexiconEntries(file)
      expect(entries.filter((e) => e.some((field) => field.trim() === "")), file).toEqual([])
      const lines = entries.map((e) => e.join("\t"))
      expect(lines.filter((line, i) => lines.indexOf(line) !== i), file).toEqual([])
      expect(entries.filter((e) => new Set(e).size !== e.length).map((e) => e.join(" | ")), file).toEqual([])
    }
    expect(lexiconEntries("errors.tsv").length).toBeGreaterThanOrEqual(100)
    expect([...lexiconEntries("errors.tsv"), ...lexiconEntries("synonyms.tsv")].filter((g) => g.length < 2)).toEqual([])
  })

  it("stores every phrase as the search splits it: lower case, NFC, its words one space apart", () => {
    for (const file of files) {
      const misfits = lexiconEntries(file).flat().filter((phrase) => phraseOf(phrase) !== phrase)
      expect(misfits, file).toEqual([])
    }
  })

  it("knows the error codes and loanwords the issue names, both ways", () => {
    const linked = (query: string) => expansionsOf(query, matchTerms(query)).map((e) => e.term)
    expect(linked("ENOSPC")).toEqual(expect.arrayContaining(["\"no space left on device\"*", "\"disk full\"*"]))
    expect(linked("디스크 공간 부족")).toEqual(expect.arrayContaining(["\"enospc\"*"]))
    expect(linked("포트 충돌")).toEqual(expect.arrayContaining(["\"eaddrinuse\"*", "\"port is already allocated\"*"]))
    expect(linked("exit code 137")).toEqual(expect.arrayContaining(["\"oomkilled\"*"]))
    expect(linked("깃 푸시 거절")).toEqual(
      expect.arrayContaining(["\"git\"*", "\"push rejected\"*", "\"non fast forward\"*"])
    )
    expect(linked("websocket")).toEqual(expect.arrayContaining(["\"웹소켓\"*"]))
    for (
      const [korean, english] of [
        ["레디스", "\"redis\"*"],
        ["쿠버네티스", "\"kubernetes\"*"],
        ["파드", "\"pod\"*"],
        ["캐시", "\"cache\"*"],
        ["커밋", "\"commit\"*"],
        ["도커", "\"docker\"*"]
      ] as const
    ) {
      expect(linked(korean), korean).toContain(english)
    }
  })
})

describe("expanding a query", () => {
  it("adds at most 16 terms to a query, however many of its words the lexicon knows", () => {
    const ordinary =
      "error test build deploy server client cache token session login user file log port database query index"
      + " push commit merge"
    expect(expansionsOf(ordinary, matchTerms(ordinary)).length).toBe(MAX_EXPANSIONS)
    const korean =
      "오류 테스트 빌드 배포 서버 클라이언트 캐시 토큰 세션 로그인 사용자 파일 로그 포트 데이터베이스 쿼리 인덱스 푸시 커밋 병합"
    expect(expansionsOf(korean, matchTerms(korean)).length).toBe(MAX_EXPANSIONS)
    // A pasted page: only its first words are looked up (the time is not asserted; it is what keeps it small).
    const huge = Array.from(
      { length: 20_000 },
      (_, i) => ["오류가", "errors", "포트를", "timeout", "디스크", "공간이"][i % 6]
    ).join(" ")
    expect(expansionsOf(huge, matchTerms(huge)).length).toBeLessThanOrEqual(MAX_EXPANSIONS)
  })

  it("adds at most 6 terms for one word, and spreads the rest over the query's other words", () => {
    const perSource = new Map<string, number>()
    for (const { sources } of expansionsOf("오류 배포 캐시", [])) {
      perSource.set(sources.join(" "), (perSource.get(sources.join(" ")) ?? 0) + 1)
    }
    expect(Math.max(...perSource.values())).toBeLessThanOrEqual(MAX_EXPANSIONS_PER_PHRASE)
    expect([...perSource.keys()].sort()).toEqual(["\"배포\"*", "\"오류\"*", "\"캐시\"*"].sort())
  })

  it("never repeats a term the query already asks for, and expands nothing it does not know", () => {
    const query = "port 포트"
    expect(expansionsOf(query, matchTerms(query)).map((e) => e.term)).not.toContain("\"port\"*")
    expect(expansionsOf("qwzx", ["qwzx"])).toEqual([])
    expect(expansionsOf("", [])).toEqual([])
    expect(expansionsOf("?!", [])).toEqual([])
  })

  it("finds Hangul words with particles and endings, and English word forms", () => {
    const terms = (query: string) => expansionsOf(query, matchTerms(query)).map((e) => e.term)
    expect(terms("파드가 계속 재시작됨")).toEqual(expect.arrayContaining(["\"crashloopbackoff\"*"]))
    expect(terms("연결이 거부됨")).toEqual(expect.arrayContaining(["\"connection refused\"*"]))
    expect(terms("token expires")).toEqual(expect.arrayContaining(["\"expir\"*"]))
    expect(terms("tests")).toEqual(expect.arrayContaining(["\"test\""]))
  })

  it("makes every term a valid MATCH expression that finds what it names", () => {
    const index = searchIndex({
      1: "Bind for 0.0.0.0:5432 failed: port is already allocated",
      2: "디스크 공간이 부족합니다",
      3: "API rate limited by GitHub",
      4: "nothing of the sort"
    })
    try {
      expect(index.search(phraseTerm("port is already allocated"))).toEqual([1])
      expect(index.search(phraseTerm("디스크 공간 부족"))).toEqual([2])
      expect(index.search(phraseTerm("rate limit"))).toEqual([3])
      for (
        const query of [
          "포트 충돌",
          "ENOSPC",
          "throttling 429",
          "파드가 계속 재시작됨",
          "\"quoted\" NEAR( * ^",
          "a\"b OR c"
        ]
      ) {
        for (const { term } of expansionsOf(query, matchTerms(query))) {
          expect(() => index.search(term), term).not.toThrow()
        }
      }
      expect(buildMatchQuery("포트")).toBeDefined()
    } finally {
      index.close()
    }
  })
})
