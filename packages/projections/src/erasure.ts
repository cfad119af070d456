/**
 * Erasing what a forget removed from every file beside the log. The log and its read models are
 * redacted in the forget's transaction (secure delete zeroes what they held); what is left:
 *   - the WAL, and the database pages the WAL has not yet replaced: a checkpoint that truncates the WAL.
 *     While another process reads, it cannot complete: the erasure is then pending, a marker says so
 *     (`status`, `doctor`), and the next process that finds no reader finishes it;
 *   - damaged copies set aside by a restore: deleted (their readable events were salvaged then);
 *   - exports and saved plans: the forgotten text in them is replaced by `[forgotten]`.
 * Backups are replaced by one taken after the forget (the forget command does it).
 */
import { type SqliteDatabase, writeSideFile } from "@ralph-mem/events"
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { dirname, join } from "node:path"

/** The marker of an erasure that could not complete yet (a reader held the WAL). */
export const pendingErasureMarker = (databasePath: string): string => `${databasePath}.erasure-pending`

export interface PendingErasure {
  /** When the forget that could not finish its erasure was made (ISO time). */
  readonly since: string
}

export const pendingErasure = (databasePath: string): PendingErasure | undefined => {
  try {
    return JSON.parse(readFileSync(pendingErasureMarker(databasePath), "utf8")) as PendingErasure
  } catch {
    return existsSync(pendingErasureMarker(databasePath)) ? { since: "unknown" } : undefined
  }
}

/**
 * Moves every page out of the WAL into the database file and truncates the WAL, waiting at most
 * `waitMs` for readers. True when nothing is left in the WAL.
 */
const checkpointAndTruncate = (db: SqliteDatabase, databasePath: string, waitMs: number): boolean => {
  const previous = db.pragma("busy_timeout", { simple: true }) as number
  try {
    db.pragma(`busy_timeout = ${waitMs}`)
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number; log: number; checkpointed: number }>
    return (
      result !== undefined &&
      result.busy === 0 &&
      (statSync(`${databasePath}-wal`, { throwIfNoEntry: false })?.size ?? 0) === 0
    )
  } catch {
    return false
  } finally {
    db.pragma(`busy_timeout = ${previous}`)
  }
}

/**
 * After a forget commits: checkpoint and truncate the WAL. When a reader prevents it, the erasure is
 * recorded as pending (true: complete now).
 */
export const scrubAfterForget = (db: SqliteDatabase, databasePath: string, now = new Date()): boolean => {
  if (checkpointAndTruncate(db, databasePath, 1000)) {
    rmSync(pendingErasureMarker(databasePath), { force: true })
    return true
  }
  writeSideFile(
    pendingErasureMarker(databasePath),
    JSON.stringify({ since: now.toISOString() } satisfies PendingErasure)
  )
  return false
}

/**
 * Finishes a pending erasure if no reader prevents it any more; never waits. Every hook and command
 * calls it: a marker's absence costs one failed stat.
 */
export const finishPendingErasure = (db: SqliteDatabase, databasePath: string): "none" | "finished" | "pending" => {
  if (!existsSync(pendingErasureMarker(databasePath))) return "none"
  if (!checkpointAndTruncate(db, databasePath, 0)) return "pending"
  rmSync(pendingErasureMarker(databasePath), { force: true })
  return "finished"
}

/** Copies of the database a restore set aside. */
export const damagedFolder = (databasePath: string): string => join(dirname(databasePath), "damaged")

export const listDamagedCopies = (databasePath: string): Array<string> => {
  const folder = damagedFolder(databasePath)
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .map((name) => join(folder, name))
    .filter((path) => lstatSync(path).isFile())
}

/**
 * Deletes the damaged copies: they may hold what was forgotten, packed and deflated where no search
 * for its bytes would find it, so redacting them in place cannot be trusted.
 */
export const removeDamagedCopies = (databasePath: string): number => {
  const copies = listDamagedCopies(databasePath)
  for (const copy of copies) rmSync(copy, { force: true })
  return copies.length
}

/** Folders of files written from memory (ralph-mem export, ralph plan --out) beside the database. */
const DERIVED_FOLDERS = ["export", "plans"]
/** Shorter texts are words any file holds: replacing them would mangle exports for nothing. */
const SHORTEST_TEXT = 6

const filesUnder = (folder: string): Array<string> => {
  if (!existsSync(folder) || !lstatSync(folder).isDirectory()) return []
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    const stat = lstatSync(path)
    return stat.isDirectory() ? filesUnder(path) : stat.isFile() ? [path] : []
  })
}

/**
 * Replaces the forgotten texts (as written, and as JSON writes them) by `[forgotten]` in the files
 * exported from memory beside the database; returns the files changed.
 */
export const scrubDerivedFiles = (databasePath: string, texts: ReadonlyArray<string>): Array<string> => {
  const needles = [
    ...new Set(
      texts.filter((t) => t.trim().length >= SHORTEST_TEXT).flatMap((t) => [t, JSON.stringify(t).slice(1, -1)])
    )
  ].sort((a, b) => b.length - a.length)
  if (needles.length === 0) return []
  const changed: Array<string> = []
  for (const file of DERIVED_FOLDERS.flatMap((folder) => filesUnder(join(dirname(databasePath), folder)))) {
    const before = readFileSync(file, "utf8")
    let after = before
    for (const needle of needles) after = after.replaceAll(needle, "[forgotten]")
    if (after === before) continue
    writeSideFile(file, after)
    changed.push(file)
  }
  return changed
}
