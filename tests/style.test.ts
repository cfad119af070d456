/**
 * The source's style, as `npm run lint` checks it (scripts/lint.ts): the formatter would change nothing, the
 * linter finds nothing, no source line is over 120 characters. Each check is also shown to fail on a folder
 * that breaks it, so a green run means the tree passed, not that the check could not see.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { wrappedString } from "../scripts/import-gitleaks.ts"
import { CHECKS, MAX_WIDTH, wideLines } from "../scripts/lint.ts"

const ROOT = join(import.meta.dirname, "..")
// The type-aware linter reads every file's types: room for a busy 2-core machine.
const SLOW = 180_000
const check = (name: string) => CHECKS.find((c) => c.name === name)!

const temporary: Array<string> = []
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A folder with this repository's style configs and node_modules, holding `files`. */
const project = (files: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), "ralph-mem-style-"))
  temporary.push(dir)
  for (const config of ["dprint.json", ".oxlintrc.json", "tsconfig.base.json"]) {
    copyFileSync(join(ROOT, config), join(dir, config))
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"))
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "./tsconfig.base.json", include: ["src"] }))
  writeFileSync(join(dir, ".gitignore"), "node_modules\nignored/\n")
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  expect(spawnSync("git", ["init", "-q"], { cwd: dir }).status).toBe(0)
  return dir
}

describe("the repository", () => {
  for (const { name, run } of CHECKS) {
    it(`passes the ${name} check (npm run lint)`, () => {
      const result = run()
      expect(result.ok, result.output).toBe(true)
    }, SLOW)
  }
})

describe("the format check", () => {
  it("fails on code that is not in Effect's style, naming the file, and passes once it is", () => {
    const dir = project({
      "src/bad.ts": "export const greeting = 'hello';\n",
      "src/good.ts": "export const x = \"x\"\n"
    })
    const bad = check("format").run(dir)
    expect(bad.ok).toBe(false)
    expect(bad.output).toContain("bad.ts")
    expect(bad.output).not.toContain("good.ts")
    writeFileSync(join(dir, "src", "bad.ts"), "export const greeting = \"hello\"\n")
    expect(check("format").run(dir)).toMatchObject({ ok: true })
  }, SLOW)
})

describe("the lint check", () => {
  it("fails on an unused variable and a floating promise, and passes on clean code", () => {
    const dir = project({
      "src/bad.ts": [
        "const unused = 1",
        "const later = async (): Promise<number> => 2",
        "export const run = (): void => {",
        "  later()",
        "}",
        ""
      ].join("\n")
    })
    const bad = check("lint").run(dir)
    expect(bad.ok).toBe(false)
    expect(bad.output).toContain("no-unused-vars")
    expect(bad.output).toContain("no-floating-promises")
    writeFileSync(join(dir, "src", "bad.ts"), "export const run = async (): Promise<number> => 2\n")
    const clean = check("lint").run(dir)
    expect(clean.ok, clean.output).toBe(true)
  }, SLOW)
})

describe("the width check", () => {
  it("lists each source line over 120 characters (counted in characters, not bytes)", () => {
    const wide = `// ${"x".repeat(MAX_WIDTH - 2)}`
    const dir = project({
      "src/wide.ts": `export const a = 1\n${wide}\n`,
      // 120 Hangul syllables: 360 bytes, 120 characters.
      "src/hangul.ts": `${"가".repeat(MAX_WIDTH)}\n`,
      "scripts/run.sh": `echo ${"y".repeat(MAX_WIDTH)}\n`,
      "README.md": `${"z".repeat(200)}\n`,
      "dist/bundle.mjs": `${"b".repeat(200)}\n`,
      "ignored/file.ts": `${"i".repeat(200)}\n`
    })
    expect(wideLines(dir)).toEqual(["scripts/run.sh:1: 125 characters", `src/wide.ts:2: ${MAX_WIDTH + 1} characters`])
    expect(check("width").run(dir).ok).toBe(false)
  })
})

describe("the generated secret catalogue (scripts/import-gitleaks.ts)", () => {
  it("writes a long string as literals joined with +, each line within 120 characters, joined back unchanged", () => {
    const values = [
      "",
      "short",
      "x".repeat(1000),
      "\\\"".repeat(400), // every character escaped: a cut inside an escape would break the literal
      "가😀\n\t\u0001,".repeat(150),
      JSON.stringify({ id: "rule", regex: "(?:[aA][bB]),\\x2b".repeat(60), keywords: ["a", "b"] })
    ]
    for (const value of values) {
      const source = wrappedString(value, "  ", ",")
      for (const line of source.split("\n")) expect([...line].length).toBeLessThanOrEqual(MAX_WIDTH)
      expect(source.endsWith(",")).toBe(true)
      // Each line is one JSON string literal (which JavaScript reads the same), after `+ ` but the first.
      const pieces = source.slice(0, -1).split("\n").map((line, index) => {
        expect(line.startsWith(index === 0 ? "  \"" : "  + \"")).toBe(true)
        return JSON.parse(line.slice(index === 0 ? 2 : 4)) as string
      })
      expect(pieces.join("")).toBe(value)
    }
    expect(wrappedString("x".repeat(1000), "  ").split("\n").length).toBeGreaterThan(8)
  })
})
