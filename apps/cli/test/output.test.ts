/** The columns a terminal draws for a text, which tables pad by. */
import { describe, expect, it } from "vitest"
import { displayWidth, padToWidth } from "../src/output.ts"

describe("displayWidth", () => {
  it("counts a narrow character as one column and a wide one (Hangul, CJK, full-width) as two", () => {
    expect(displayWidth("")).toBe(0)
    expect(displayWidth("stack")).toBe(5)
    expect(displayWidth("스택")).toBe(4)
    expect(displayWidth("漢字かな")).toBe(8)
    expect(displayWidth("ＡＢ")).toBe(4)
  })

  it("counts an emoji drawn as one (emoji presentation) as two columns, however many code points make it", () => {
    for (
      const emoji of [
        "\u2705", // ✅
        "\u274C", // ❌
        "\u{1F680}", // 🚀
        "\u{1F1F0}\u{1F1F7}", // 🇰🇷, two regional indicators
        "\u{1F469}\u200D\u{1F4BB}", // 👩‍💻, joined by a zero-width joiner
        "\u{1F3F3}\uFE0F\u200D\u{1F308}", // 🏳️‍🌈
        "\u{1F44D}\u{1F3FD}", // 👍🏽, with a skin tone
        "\u2764\uFE0F", // ❤️, a text-default pictograph asked for as emoji
        "1\uFE0F\u20E3" // 1️⃣, a keycap
      ]
    ) expect(displayWidth(emoji), JSON.stringify(emoji)).toBe(2)
    expect(displayWidth("done \u2705 \u{1F680}")).toBe(10)
  })

  it("counts a pictograph shown as text (no variation selector) as one column", () => {
    expect(displayWidth("\u2764")).toBe(1) // ❤
    expect(displayWidth("\u2122")).toBe(1) // ™
  })

  it("counts joiners, variation selectors and combining marks as no column", () => {
    expect(displayWidth("e\u0301")).toBe(1) // é as e and a combining acute
    expect(displayWidth("\u200D")).toBe(0)
    expect(displayWidth("\uFE0F")).toBe(0)
    expect(displayWidth("a\u200Db")).toBe(2)
    expect(displayWidth("\u1112\u1161\u11AB")).toBe(2) // 한 as conjoining jamo
  })
})

describe("padToWidth", () => {
  it("pads an emoji as the two columns it takes", () => {
    expect(padToWidth("\u2705", 4)).toBe("\u2705  ")
    expect(padToWidth("\u{1F469}\u200D\u{1F4BB} x", 6)).toBe("\u{1F469}\u200D\u{1F4BB} x  ")
  })
})
