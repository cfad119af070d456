/**
 * The filter over realistic files (corpus/): every marked secret is masked, and every line that holds
 * no secret comes back unchanged, so the filter is measured for what it keeps as well as what it hides.
 * The figures go to test-results/reliability/secrets.json for the README's reliability section.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { writeFigures } from "../../../../tests/support/figures.ts"
import { catalogueSource } from "../../src/privacy/catalogue.ts"
import { redactText } from "../../src/privacy/index.ts"

const CORPUS = join(import.meta.dirname, "corpus")
const SECRET = /⟦([^⟧]*)⟧/g

interface LineResult {
  readonly line: string
  readonly secrets: ReadonlyArray<string>
}

/** A corpus file without its marks, and for each line the secrets it holds. */
const load = (file: string): { readonly text: string; readonly lines: ReadonlyArray<LineResult> } => {
  const raw = readFileSync(join(CORPUS, file), "utf8")
  const lines = raw.split("\n").map((line) => ({
    line: line.replace(SECRET, "$1"),
    secrets: [...line.matchAll(SECRET)].map((m) => m[1]!)
  }))
  return { text: lines.map((l) => l.line).join("\n"), lines }
}

const files = readdirSync(CORPUS).filter((file) => file.endsWith(".txt")).sort()
const figures = {
  "corpus files": files.length,
  "secrets in corpus": 0,
  "secrets masked": 0,
  "ordinary lines": 0,
  "ordinary lines unchanged": 0
}

describe("the privacy corpus", () => {
  it.each(files)("%s: every secret masked, every ordinary line unchanged", (file) => {
    const { text, lines } = load(file)
    // The whole file at once, as a tool's output would be: a private key spans lines (and becomes one marker).
    const output = redactText(text).text
    const outputLines = new Set(output.split("\n"))
    const leaks: Array<string> = []
    const changed: Array<string> = []
    for (const { line, secrets } of lines) {
      if (secrets.length === 0) {
        if (line.trim() === "") continue
        figures["ordinary lines"]++
        if (outputLines.has(line)) figures["ordinary lines unchanged"]++
        else changed.push(line)
        continue
      }
      for (const secret of secrets) {
        figures["secrets in corpus"]++
        if (output.includes(secret)) leaks.push(`${secret} (line: ${line})`)
        else figures["secrets masked"]++
      }
    }
    expect(leaks, "secrets left readable").toEqual([])
    expect(changed, "ordinary lines changed").toEqual([])
  })
})

afterAll(() => writeFigures("secrets", { ...figures, "catalogue rules": catalogueSource().rules }))
