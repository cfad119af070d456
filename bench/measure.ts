/** Small measuring helpers shared by the benchmarks. */
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"

export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

export const summarize = (samplesMs: Array<number>) => {
  const sorted = [...samplesMs].sort((a, b) => a - b)
  return { p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)), samples: sorted.length }
}

export const round = (n: number, digits = 4): number => Number(n.toFixed(digits))

export const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6

/** Runs `body` with a fresh folder that is removed afterwards. */
export const withTempFolder = <A>(body: (folder: string) => A): A => {
  const folder = mkdtempSync(join(tmpdir(), "ralph-mem-bench-"))
  try {
    return body(folder)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

export const machine = () => ({
  cpu: cpus()[0]?.model ?? "unknown",
  cores: cpus().length,
  node: process.versions.node,
  platform: `${process.platform}-${process.arch}`
})
