/**
 * README.ko.md stays in step with README.md: they link each other, name the same commands (every
 * `ralph-mem <command>` and `/ralph-mem:<command>` in code of one is in code of the other) and hold the
 * same code blocks (commands, flags and examples are copied, not translated).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "..")
const english = readFileSync(join(ROOT, "README.md"), "utf8")
const korean = readFileSync(join(ROOT, "README.ko.md"), "utf8")

const FENCE = /^```[^\n]*\n[\s\S]*?^```$/gm

/** The fenced code blocks, in order. */
const codeBlocks = (markdown: string): Array<string> => [...markdown.matchAll(FENCE)].map((m) => m[0])

/** Everything in code: fenced blocks and inline code spans. */
const code = (markdown: string): Array<string> => [
  ...codeBlocks(markdown),
  ...[...markdown.replace(FENCE, "").matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)
]

/** `ralph-mem <command> [<subcommand>]` and `/ralph-mem:<command>` named in code. */
const commands = (markdown: string): Array<string> => {
  const found = new Set<string>()
  for (const text of code(markdown)) {
    for (const m of text.matchAll(/(?<![\w/:-])ralph-mem ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
      found.add(`ralph-mem ${m[1]}`)
      if (["ralph", "task", "belief"].includes(m[1]!) && m[2] !== undefined) found.add(`ralph-mem ${m[1]} ${m[2]}`)
    }
    for (const m of text.matchAll(/\/ralph-mem:([a-z][a-z-]*)/g)) found.add(`/ralph-mem:${m[1]}`)
  }
  return [...found].sort()
}

describe("README.ko.md", () => {
  it("and README.md link each other at the top", () => {
    expect(english.split("\n").slice(0, 5).join("\n")).toContain("(README.ko.md)")
    expect(korean.split("\n").slice(0, 5).join("\n")).toContain("(README.md)")
  })

  it("names the same commands as README.md", () => {
    const named = commands(english)
    expect(named.length).toBeGreaterThan(30)
    expect(commands(korean)).toEqual(named)
  })

  it("holds README.md's code blocks, unchanged and in order", () => {
    expect(codeBlocks(english).length).toBeGreaterThan(5)
    expect(codeBlocks(korean)).toEqual(codeBlocks(english))
  })

  it("is in Korean", () => {
    const hangul = korean.match(/[\uac00-\ud7a3]/g)?.length ?? 0
    expect(hangul).toBeGreaterThan(3000)
  })
})
