/** Figures a test establishes, for the README's reliability section: test-results/reliability/<name>.json. */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const folder = join(import.meta.dirname, "..", "..", "test-results", "reliability")

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Merges `figures` into the file's figures. Test files run in parallel workers and several add to one
 * name, so the read-merge-write holds a lock file (one left by a killed run is taken over after 10 s).
 */
export const recordFigures = (name: string, figures: Readonly<Record<string, number>>): void => {
  mkdirSync(folder, { recursive: true })
  const file = join(folder, `${name}.json`)
  const lock = `${file}.lock`
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" })
      break
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > 10_000) rmSync(lock, { force: true })
      else pause(10)
    }
  }
  try {
    let existing: Record<string, number> = {}
    try {
      existing = (JSON.parse(readFileSync(file, "utf8")) as { figures: Record<string, number> }).figures
    } catch {
      // First figures of this run.
    }
    writeFileSync(`${file}.tmp`, `${JSON.stringify({ name, figures: { ...existing, ...figures } }, null, 2)}\n`)
    renameSync(`${file}.tmp`, file)
  } finally {
    rmSync(lock, { force: true })
  }
}
