/**
 * Progress of long work (replay, compaction, a vacuum, a schema migration, the benchmarks) on stderr, so
 * stdout stays clean for --json: on a terminal one bar, redrawn at most ten times a second; elsewhere (a
 * log, CI) a plain line every few seconds. Both say what is done, the rate and the time left.
 */

/**
 * One progress line (with its bar on a terminal). Self-contained, no outside names: a watcher thread runs it
 * from its source (growth-watcher.ts), since the main thread is busy inside SQLite while it reports.
 */
export function renderProgress(
  label: string,
  unit: string,
  done: number,
  total: number,
  elapsedMs: number,
  tty: boolean
): string {
  const duration = (ms: number) => {
    if (!Number.isFinite(ms)) return "?"
    const s = Math.max(0, Math.round(ms / 1000))
    return s >= 3600
      ? `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
      : s >= 60
      ? `${Math.floor(s / 60)}m ${s % 60}s`
      : `${s}s`
  }
  const count = (n: number) => (Number.isInteger(n) ? n.toLocaleString("en-US") : n.toFixed(1))
  const share = total <= 0 ? 1 : Math.min(1, done / total)
  const rate = elapsedMs > 0 ? (done / elapsedMs) * 1000 : 0
  const left = rate > 0 ? ((total - done) / rate) * 1000 : Number.POSITIVE_INFINITY
  const text =
    `${label} ${count(done)}/${count(total)} ${unit} (${Math.floor(share * 100)}%), ${
      count(Math.round(rate))
    } ${unit}/s, ` +
    (done >= total ? `done in ${duration(elapsedMs)}` : `${duration(left)} left`)
  if (!tty) return `${text}\n`
  const width = 24
  const filled = Math.round(share * width)
  return `\r\u001b[2K[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${text}`
}

export interface Progress {
  /** `done` of `total` units so far. */
  readonly update: (done: number, total: number) => void
  /** The work ended: the last state is printed and the bar's line is closed. */
  readonly finish: () => void
}

export interface ProgressOptions {
  /** `replaying`, `packing`, ... */
  readonly label: string
  /** `events`, `streams`, `MB`, ... */
  readonly unit: string
  readonly stream?: { readonly isTTY?: boolean; readonly write: (text: string) => unknown }
  /** How often a plain line is written when not on a terminal. */
  readonly lineEveryMs?: number
  readonly now?: () => number
}

/** How often a plain progress line is written off a terminal: RALPH_MEM_PROGRESS_INTERVAL (ms), else 5 s. */
export const lineInterval = (): number => {
  const configured = Number(process.env["RALPH_MEM_PROGRESS_INTERVAL"])
  return Number.isFinite(configured) && configured > 0 ? configured : 5_000
}

export const progress = (options: ProgressOptions): Progress => {
  const out = options.stream ?? process.stderr
  const now = options.now ?? Date.now
  const started = now()
  const tty = out.isTTY === true
  const every = tty ? 100 : options.lineEveryMs ?? lineInterval()
  let last = { done: 0, total: 0 }
  // Off a terminal, work shorter than one interval prints nothing at all.
  let printedAt = tty ? Number.NEGATIVE_INFINITY : started
  let printed: { done: number; total: number } | undefined
  const print = (final: boolean) => {
    out.write(
      renderProgress(options.label, options.unit, last.done, last.total, now() - started, tty) +
        (tty && final ? "\n" : "")
    )
    printed = last
    printedAt = now()
  }
  return {
    update: (done, total) => {
      last = { done, total }
      if (now() - printedAt >= every) print(false)
    },
    finish: () => {
      // A plain line already showing the end is not repeated; a bar's line is closed.
      if (printed === last && !tty) return
      if (printed !== undefined || now() - started >= every) print(true)
    }
  }
}
