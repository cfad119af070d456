/**
 * Where hook failures go when they cannot (or also) go into the database: one JSON line each in
 * `hooks.log` beside the database. Only the reason is written, never the payload (it may be private).
 * The log is never written through a link nor into a memory folder ralph-mem refuses (safe-fs.ts).
 */
import { appendPrivateFile, ensureFolder, failureLogPath, inspectMemoryFolder } from "@ralph-mem/events"
import { existsSync, lstatSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"

export interface FailureEntry {
  readonly time: string
  readonly hook: string
  readonly reason: string
  readonly sessionId?: string
}

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
 * handled (failed open, or recovered), so the check is always ok; it says where to look.
 */
export const recentHookFailures = (databasePath: string, now = Date.now()) => {
  const log = failureLogPath(databasePath)
  const since = now - 86_400_000
  const recent = existsSync(log)
    ? readFileSync(log, "utf8").split("\n").filter(Boolean).map((line) => {
      try {
        return JSON.parse(line) as { time: string; reason: string }
      } catch {
        return undefined
      }
    }).filter((e) => e !== undefined && Date.parse(e.time) >= since)
    : []
  return {
    check: "hook failures (24 h)",
    ok: true,
    detail: recent.length === 0 ? "none" : `${recent.length} (see ${log}), last: ${recent.at(-1)!.reason}`
  }
}
