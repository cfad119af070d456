import { describe, expect, it } from "vitest"
import { splitArguments } from "../src/slash.ts"

describe("splitArguments (slash-command text)", () => {
  it("leaves a shell's special characters alone", () => {
    expect(splitArguments("Don't use yarn here (pnpm only)")).toEqual([
      "Don't",
      "use",
      "yarn",
      "here",
      "(pnpm",
      "only)"
    ])
    expect(splitArguments("$HOME `id` $(whoami) a\\b; x && y | z > f")).toEqual([
      "$HOME",
      "`id`",
      "$(whoami)",
      "a\\b;",
      "x",
      "&&",
      "y",
      "|",
      "z",
      ">",
      "f"
    ])
  })

  it("keeps newlines inside their argument, so joined with spaces the text comes back as typed", () => {
    const text = "first line\nsecond line\n\nthird ```js``` 5'10\""
    expect(splitArguments(text).join(" ")).toBe(text)
  })

  it("groups with a quote that opens an argument or follows = and closes one", () => {
    expect(splitArguments(`"Use FTS5" --why 'substring search' --criteria custom="npm test"`)).toEqual([
      "Use FTS5",
      "--why",
      "substring search",
      "--criteria",
      "custom=npm test"
    ])
    expect(splitArguments(`say "hi there" now`)).toEqual(["say", "hi there", "now"])
    expect(splitArguments(`""`)).toEqual([""])
  })

  it("takes any other quote as text: unclosed, inside a word, or closed inside a word", () => {
    expect(splitArguments(`"unclosed quote here`)).toEqual([`"unclosed`, "quote", "here"])
    expect(splitArguments(`it's Bob's`)).toEqual(["it's", "Bob's"])
    expect(splitArguments(`'a'b c`)).toEqual(["'a'b", "c"])
  })

  it("splits on runs of spaces and tabs only", () => {
    expect(splitArguments("  a \t b  ")).toEqual(["a", "b"])
    expect(splitArguments("")).toEqual([])
  })
})
