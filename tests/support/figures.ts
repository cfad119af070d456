/** Figures a test establishes, for the README's reliability section: test-results/reliability/<name>.json. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const folder = join(import.meta.dirname, "..", "..", "test-results", "reliability")

/** Merges `figures` into the file's figures (several test files may add to one name). */
export const recordFigures = (name: string, figures: Readonly<Record<string, number>>): void => {
  const file = join(folder, `${name}.json`)
  let existing: Record<string, number> = {}
  try {
    existing = (JSON.parse(readFileSync(file, "utf8")) as { figures: Record<string, number> }).figures
  } catch {
    // First figures of this run.
  }
  mkdirSync(folder, { recursive: true })
  writeFileSync(file, `${JSON.stringify({ name, figures: { ...existing, ...figures } }, null, 2)}\n`)
}
