/**
 * Where hook failures go when they cannot (or also) go into the database: one JSON line each in
 * `hooks.log` beside the database. Only the reason is written, never the payload (it may be private).
 * The log is never written through a link nor into a memory folder ralph-mem refuses (safe-fs.ts).
 */
import { appendPrivateFile, ensureFolder, failureLogPath, inspectMemoryFolder, readLogTail } from "@ralph-mem/events"
import { lstatSync } from "node:fs"
import { dirname, join } from "node:path"

export interface FailureEntry {
  readonly time: string
  readonly hook: string
  readonly reason: string
  readonly sessionId?: string
}

/** How far ahead of this machine's clock a logged time may be and still be one of its hooks' (another clock's). */
const CLOCK_DRIFT_MS = 10 * 60_000

/** Log lines are capped so a looping failure cannot fill the disk. */
const MAX_LOG_BYTES = 5 * 1024 * 1024

/** Appends an entry; never throws (there is nowhere left to report to). */
export const logFailure = (path: string, entry: FailureEntry): void => {
  try {
    // A refused folder is reported by status and doctor, from what they find there: nothing is written.
    if (inspectMemoryFolder(join(dirname(path), "memory.db")).problem !== undefined) return
    ensureFolder(dirname(path))
    if ((lstatSync(path, { throwIfNoEntry: false })?.size ?? 0) > MAX_LOG_BYTES) return
    appendPrivateFile(path, `${JSON.stringify(entry)}\n`)
  } catch {
    // Fail open: the hook must not break Claude Code over a log line.
  }
}

/**
 * Hook failures of the last day, as a `doctor` finding. History, not a current problem: every one was
 * handled (failed open, or recovered), so the check is ok; it says where to look. Unless the log is past
 * what `logFailure` appends to (it came that large with the project's files, or failures filled it): then
 * failures go unlogged, which the user is told, with the fix.
 */
export const recentHookFailures = (databasePath: string, now = Date.now()) => {
  const log = failureLogPath(databasePath)
  const since = now - 86_400_000
  // A line dated past now (beyond a clock's drift) was written by no hook of this machine: a log that came with the
  // project's files dated in 2099 would otherwise read as failures "of the last day" forever.
  const until = now + CLOCK_DRIFT_MS
  // The newest entries are at the end, and ralph-mem stops appending past MAX_LOG_BYTES: a larger log came with the
  // project's files, and only its end is read.
  const text = readLogTail(log, MAX_LOG_BYTES)
  const recent = text !== undefined
    ? text.split("\n").filter(Boolean).map((line) => {
      try {
        return JSON.parse(line) as { time: string; reason: string }
      } catch {
        return undefined
      }
    }).filter((e) => e !== undefined && Date.parse(e.time) >= since && Date.parse(e.time) <= until)
    : []
  const detail = recent.length === 0 ? "none" : `${recent.length} (see ${log}), last: ${recent.at(-1)!.reason}`
  const size = text === undefined ? 0 : lstatSync(log, { throwIfNoEntry: false })?.size ?? 0
  if (size <= MAX_LOG_BYTES) return { check: "hook failures (24 h)", ok: true, detail }
  return {
    check: "hook failures (24 h)",
    ok: false,
    detail: `${detail}; ${log} holds ${size} bytes, past the ${MAX_LOG_BYTES} ralph-mem writes to, so no hook ` +
      `failure is logged there any more: remove it (rm ${JSON.stringify(log)}) and the next one starts a new log`
  }
}
