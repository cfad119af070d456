/**
 * Progress for work SQLite does in one call (VACUUM, a schema migration's copy of the log): the main thread
 * is inside SQLite until it returns, so a small thread watches the files grow (the WAL takes every page
 * written) and writes the progress itself, estimated against the bytes the work is expected to write.
 */
import { statSync } from "node:fs"
import { Worker } from "node:worker_threads"
import { lineInterval, renderProgress } from "./progress.ts"

const WATCHER = `
const { workerData } = require("node:worker_threads")
const fs = require("node:fs")
const render = new Function("return (" + workerData.render + ")")()
const size = () =>
  workerData.files.reduce((sum, f) => { try { return sum + fs.statSync(f).size } catch { return sum } }, 0)
const ended = new Int32Array(workerData.ended)
setInterval(() => {
  if (Atomics.load(ended, 0) === 1) return
  // Never 100% before the work says it is done: the expected size is an estimate.
  const mb = Math.min((size() - workerData.initial) / 1048576, workerData.expectedMb * 0.99)
  const shown = Math.max(0, Math.round(mb * 10) / 10)
  const elapsed = Date.now() - workerData.started
  fs.writeSync(2, render(workerData.label, "MB", shown, workerData.expectedMb, elapsed, workerData.tty))
}, workerData.everyMs)
`

const sizeOf = (files: ReadonlyArray<string>) =>
  files.reduce((sum, f) => sum + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0)

/** Starts watching `files` grow; `stop` prints the last state, when the work was long enough to show any. */
export const startGrowthProgress = (
  options: { readonly label: string; readonly files: ReadonlyArray<string>; readonly expectedBytes: number }
) => {
  const tty = process.stderr.isTTY === true
  const every = tty ? 200 : lineInterval()
  const started = Date.now()
  const initial = sizeOf(options.files)
  const expectedMb = Math.max(0.1, Math.round((options.expectedBytes / 1_048_576) * 10) / 10)
  // Set when the work returns: the watcher writes nothing after the final line.
  const ended = new SharedArrayBuffer(4)
  const worker = new Worker(WATCHER, {
    eval: true,
    workerData: {
      files: options.files,
      initial,
      expectedMb,
      label: options.label,
      tty,
      started,
      everyMs: every,
      render: renderProgress.toString(),
      ended
    }
  })
  worker.unref()
  return {
    stop: () => {
      Atomics.store(new Int32Array(ended), 0, 1)
      void worker.terminate()
      const elapsed = Date.now() - started
      if (elapsed >= every) {
        process.stderr.write(
          renderProgress(options.label, "MB", expectedMb, expectedMb, elapsed, tty) + (tty ? "\n" : "")
        )
      }
    }
  }
}

/** Runs `work` with the watcher on. */
export const withGrowthProgress = <A>(options: Parameters<typeof startGrowthProgress>[0], work: () => A): A => {
  const watcher = startGrowthProgress(options)
  try {
    return work()
  } finally {
    watcher.stop()
  }
}
