/**
 * Backups: online copies of the database (`VACUUM INTO` reads one consistent snapshot while other
 * processes keep writing), kept in `backups/` beside it, 0600 in a 0700 folder, the newest N kept.
 *
 * A copy is written under a name of its own (memory-<time>.<pid>.partial) and gets its backup name only
 * once whole: two sessions that end together run two maintenances at once, and a backup listed while
 * half-written would be rotated away under the other's copy, or restored from after damage (an empty
 * database passes SQLite's integrity check). A copy whose writer was killed is left as `.partial`, and
 * removed by the next backup.
 */
import {
  createPrivateFile,
  ensureMemorySubfolder,
  isProcessRunning,
  type SqliteDatabase,
  tightenFile
} from "@ralph-mem/events"
import { existsSync, linkSync, readdirSync, rmSync, statSync } from "node:fs"
import { dirname, join } from "node:path"

export const backupFolder = (databasePath: string): string => join(dirname(databasePath), "backups")

export interface Backup {
  readonly path: string
  readonly takenAt: number
  readonly bytes: number
}

/** Backups of a database, newest first. Names sort by time: memory-<ISO time>.db. */
export const listBackups = (databasePath: string): Array<Backup> => {
  const folder = backupFolder(databasePath)
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((name) => /^memory-.*\.db$/.test(name))
    .sort()
    .reverse()
    .flatMap((name) => {
      const path = join(folder, name)
      // Another backup's rotation may remove a file as we list: it is simply not there.
      const stat = statSync(path, { throwIfNoEntry: false })
      return stat === undefined ? [] : [{ path, takenAt: stat.mtimeMs, bytes: stat.size }]
    })
}

/**
 * A copy still being written, or left by a writer that was killed: `memory-<time>.<pid>.partial`, and the
 * journal SQLite writes beside it.
 */
const PARTIAL = /^memory-.*\.(\d+)\.partial(-journal)?$/

/** Copies left by writers that no longer run: they never become backups. */
const removeAbandonedCopies = (folder: string): void => {
  for (const name of readdirSync(folder)) {
    const pid = PARTIAL.exec(name)?.[1]
    if (pid === undefined || Number(pid) === process.pid || isProcessRunning(Number(pid))) continue
    rmSync(join(folder, name), { force: true })
  }
}

export const backupDue = (databasePath: string, intervalMs: number, now = Date.now()): boolean => {
  const newest = listBackups(databasePath)[0]
  return newest === undefined || now - newest.takenAt >= intervalMs
}

/** Takes a backup now and keeps the newest `keep`. Returns the new backup's path. */
export const takeBackup = (db: SqliteDatabase, databasePath: string, keep: number, now = new Date()): string => {
  const folder = backupFolder(databasePath)
  ensureMemorySubfolder(folder)
  removeAbandonedCopies(folder)
  const stamp = now.toISOString().replace(/[:.]/g, "-")
  // Created empty and private first (VACUUM INTO accepts an empty file): the copy is never readable by
  // others.
  const partial = join(folder, `memory-${stamp}.${process.pid}.partial`)
  rmSync(partial, { force: true }) // an earlier call of this process that failed part-way
  if (!createPrivateFile(partial)) throw new Error(`cannot start a backup in ${folder}: ${partial} is in the way`)
  try {
    db.prepare("VACUUM INTO ?").run(partial)
    // Had a forget removed the copy before SQLite opened it, SQLite made a new one, not private.
    tightenFile(partial)
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  }
  // The whole copy gets its name by a hard link, which never replaces a file: two backups in one
  // millisecond (a manual one beside the one after a session) get two names.
  let path = join(folder, `memory-${stamp}.db`)
  for (let n = 1;; n++) {
    try {
      linkSync(partial, path)
      break
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === "ENOENT") {
        throw new Error(`the backup was removed while it was taken (a forget replaces the backups): ${partial}`)
      }
      if (code !== "EEXIST" || n > 20) {
        rmSync(partial, { force: true })
        throw error
      }
      path = join(folder, `memory-${stamp}-${n}.db`)
    }
  }
  rmSync(partial, { force: true })
  for (const old of listBackups(databasePath).slice(keep)) rmSync(old.path, { force: true })
  return path
}

/**
 * Removes every backup (after a forget: they still hold what was forgotten), and every copy being taken:
 * one that began before the forget would become a backup that holds it.
 */
export const removeBackups = (databasePath: string): number => {
  const backups = listBackups(databasePath)
  for (const backup of backups) rmSync(backup.path, { force: true })
  const folder = backupFolder(databasePath)
  if (existsSync(folder)) {
    for (const name of readdirSync(folder)) if (PARTIAL.test(name)) rmSync(join(folder, name), { force: true })
  }
  return backups.length
}
