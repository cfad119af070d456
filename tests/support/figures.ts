/**
 * Figures the README's reliability section quotes, written by the tests that measure them to
 * `test-results/reliability/<name>.json` as `{"name", "figures": {label: number}}`. Several test files
 * add to one file: each merges its labels into what is there.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const folder = join(import.meta.dirname, "..", "..", "test-results", "reliability")

export const writeFigures = (name: string, figures: Record<string, number>): void => {
  mkdirSync(folder, { recursive: true })
  const path = join(folder, `${name}.json`)
  let existing: Record<string, number> = {}
  try {
    existing = (JSON.parse(readFileSync(path, "utf8")) as { figures: Record<string, number> }).figures
  } catch {
    // First to write.
  }
  const temporary = `${path}.${process.pid}`
  writeFileSync(temporary, `${JSON.stringify({ name, figures: { ...existing, ...figures } }, null, 2)}\n`)
  renameSync(temporary, path)
}
