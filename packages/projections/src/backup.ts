/**
 * Backups: online copies of the database (`VACUUM INTO` reads one consistent snapshot while other
 * processes keep writing), kept in `backups/` beside it, 0600 in a 0700 folder, the newest N kept.
 */
import { createPrivateFile, ensureMemorySubfolder, type SqliteDatabase } from "@ralph-mem/events"
import { existsSync, readdirSync, rmSync, statSync } from "node:fs"
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

export const backupDue = (databasePath: string, intervalMs: number, now = Date.now()): boolean => {
  const newest = listBackups(databasePath)[0]
  return newest === undefined || now - newest.takenAt >= intervalMs
}

/** Takes a backup now and keeps the newest `keep`. Returns the new backup's path. */
export const takeBackup = (db: SqliteDatabase, databasePath: string, keep: number, now = new Date()): string => {
  const folder = backupFolder(databasePath)
  ensureMemorySubfolder(folder)
  const stamp = now.toISOString().replace(/[:.]/g, "-")
  // Created empty and private first (VACUUM INTO accepts an empty file): the copy is never readable by
  // others. Two backups in one millisecond (a manual one beside the one after a session) get two names.
  let path = join(folder, `memory-${stamp}.db`)
  for (let n = 1; ; n++) {
    if (createPrivateFile(path)) break
    if (n > 20) throw new Error(`cannot name a new backup in ${folder}`)
    path = join(folder, `memory-${stamp}-${n}.db`)
  }
  db.prepare("VACUUM INTO ?").run(path)
  for (const old of listBackups(databasePath).slice(keep)) rmSync(old.path, { force: true })
  return path
}

/** Removes every backup (after a forget: they still hold what was forgotten). */
export const removeBackups = (databasePath: string): number => {
  const backups = listBackups(databasePath)
  for (const backup of backups) rmSync(backup.path, { force: true })
  return backups.length
}
