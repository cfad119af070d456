import { describe, expect, it } from "vitest"
import { searchableText } from "../../src/search/text.ts"

const parts = (text: string) => searchableText(text).split(" ").filter((part) => part !== "")

describe("searchableText", () => {
  it.each([
    ["TokenExpiredError", ["token", "expired", "error"]],
    ["HTTPServerError", ["http", "server", "error"]],
    ["parseJSON", ["parse", "json"]],
    ["getHTTPResponseCode", ["get", "http", "response", "code"]],
    ["sha256sum", ["sha", "256", "sum"]],
    ["로그인TokenExpiredError", ["로그인", "token", "expired", "error"]]
  ])("splits %s into its parts", (text, expected) => {
    expect(parts(text)).toEqual(expected)
  })

  it("leaves snake_case, kebab-case and paths alone: unicode61 already splits them there", () => {
    expect(searchableText("snake_case_name src/auth/token-store.ts")).toBe("")
    expect(parts("src/auth/TokenStore.ts")).toEqual(["token", "store"])
  })

  it("emits nothing for plain words, Hangul words and hex ids", () => {
    expect(searchableText("the token expired")).toBe("")
    expect(searchableText("인증을 다시 시도했다")).toBe("")
    expect(searchableText("commit 9f86d081884c7d65 uuid 550e8400-e29b-41d4")).toBe("")
  })

  it("emits only parts that are not already words, each once, lower-cased", () => {
    expect(parts("token TokenStore TokenStore tokenStore")).toEqual(["store"])
  })

  it("drops single-letter and single-digit parts", () => {
    expect(parts("OAuth2Client iPhone v2Api")).toEqual(["auth", "client", "phone", "api"])
  })

  it("skips words too long to be identifiers", () => {
    expect(searchableText(`${"AbcDef".repeat(20)} ok`)).toBe("")
  })

  it("is empty for empty or punctuation-only text", () => {
    expect(searchableText("")).toBe("")
    expect(searchableText("()[]{}!?")).toBe("")
  })

  it("returns less than 1.5 times the text it was given", () => {
    for (
      const text of ["aB", "aBcD", "abCdEfGh", "HTTPServer", "iPhoneXs", "AbCdEf".repeat(16), "x1y2z3w4 ".repeat(50)]
    ) {
      expect(searchableText(text).length).toBeLessThan(1.5 * text.length)
    }
  })

  // Linear takes a few milliseconds; a quadratic split of 100 KB would take tens of seconds.
  it("handles 100 KB of identifiers in linear time", () => {
    const text = Array.from({ length: 6_000 }, (_, i) => `handleUser${i}Request_${i.toString(36)}`).join(" ").slice(
      0,
      100_000
    )
    const started = performance.now()
    const extra = searchableText(text)
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(extra.length).toBeLessThan(1.5 * text.length)
    expect(extra.split(" ")).toEqual(expect.arrayContaining(["handle", "user", "request"]))
  })
})
