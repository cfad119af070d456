import { describe, expect, it } from "vitest"
import { estimateTokens } from "../../src/search/tokens.ts"

describe("estimateTokens", () => {
  it("is 0 for empty text and at least 1 for any other", () => {
    expect(estimateTokens("")).toBe(0)
    expect(estimateTokens("a")).toBe(1)
    expect(estimateTokens(" ")).toBe(1)
    expect(estimateTokens("😀")).toBe(1)
  })

  it("counts about four Latin characters per token, rounding up", () => {
    expect(estimateTokens("abcd")).toBe(1)
    expect(estimateTokens("abcde")).toBe(2)
    expect(estimateTokens("x".repeat(4_000))).toBe(1_000)
  })

  it("counts each Hangul, CJK and kana character as one token", () => {
    expect(estimateTokens("인증")).toBe(2)
    expect(estimateTokens("認証エラー")).toBe(5)
    expect(estimateTokens("ㅋㅋ")).toBe(2)
  })

  it("adds both rates for mixed text", () => {
    // 3 Hangul syllables + 8 other characters (" failed!") = 3 + 2.
    expect(estimateTokens("로그인 failed!")).toBe(5)
  })

  it("rates Korean text far denser than English text of the same length", () => {
    const korean = "인증 토큰이 만료되어 로그인에 실패했습니다"
    expect(estimateTokens(korean)).toBeGreaterThan(2 * estimateTokens("x".repeat(korean.length)))
  })
})
