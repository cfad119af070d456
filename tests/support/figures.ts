/**
 * Figures the README's reliability section quotes, written by the tests that measure them to
 * `test-results/reliability/<name>.json` as `{"name", "figures": {label: number}}`. Several test files
 * add to one file, in parallel workers: each merges its labels into what is there under a lock file (one
 * left by a killed run is taken over after 10 s).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const folder = join(import.meta.dirname, "..", "..", "test-results", "reliability")

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

export const writeFigures = (name: string, figures: Readonly<Record<string, number>>): void => {
  mkdirSync(folder, { recursive: true })
  const path = join(folder, `${name}.json`)
  const lock = `${path}.lock`
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
      existing = (JSON.parse(readFileSync(path, "utf8")) as { figures: Record<string, number> }).figures
    } catch {
      // First to write.
    }
    const temporary = `${path}.${process.pid}`
    writeFileSync(temporary, `${JSON.stringify({ name, figures: { ...existing, ...figures } }, null, 2)}\n`)
    renameSync(temporary, path)
  } finally {
    rmSync(lock, { force: true })
  }
}
