/**
 * When the database is damaged (random bytes over pages, a truncated file, a file that is not SQLite):
 * the damaged file is kept aside, the newest backup that passes SQLite's integrity check is put in its
 * place (or a new, empty database when there is none), the projections are rebuilt from its log, and a
 * DatabaseRestored event records what happened, so the next SessionStart tells the user once.
 */
import { copyToPrivateFile, ensureMemorySubfolder, readOnlyConnection, streams } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { existsSync, renameSync } from "node:fs"
import { dirname, join } from "node:path"
import { listBackups } from "./backup.ts"
import { replay } from "./replay.ts"
import { openMemory } from "./store.ts"

/** Is this error SQLite saying the file is damaged (rather than busy, or full)? */
export const isCorruption = (error: unknown): boolean => {
  const e = error as { problem?: unknown; code?: unknown; reason?: unknown; message?: unknown } | null
  if (e?.problem === "corrupt" || e?.problem === "not_a_database") return true
  const text = `${String(e?.code ?? "")} ${String(e?.reason ?? "")} ${String(e?.message ?? "")}`
  return /SQLITE_CORRUPT|SQLITE_NOTADB|malformed|not a database/i.test(text)
}

/** Runs SQLite's own check on a file; true when it reports nothing wrong. */
export const passesIntegrityCheck = (path: string): boolean => {
  try {
    const db = readOnlyConnection(path)
    try {
      return db.pragma("integrity_check", { simple: true }) === "ok"
    } finally {
      db.close()
    }
  } catch {
    return false
  }
}

export interface Recovery {
  readonly damagedCopy: string
  readonly backup: string | undefined
}

/** Sets the damaged database aside and restores the newest good backup. Synchronous file work only. */
export const restoreFromBackup = (databasePath: string, now = new Date()): Recovery => {
  const folder = join(dirname(databasePath), "damaged")
  ensureMemorySubfolder(folder)
  const damagedCopy = join(folder, `memory-${now.toISOString().replace(/[:.]/g, "-")}.db`)
  if (existsSync(databasePath)) renameSync(databasePath, damagedCopy)
  for (const suffix of ["-wal", "-shm"]) {
    if (existsSync(databasePath + suffix)) renameSync(databasePath + suffix, damagedCopy + suffix)
  }
  const good = listBackups(databasePath).find((b) => passesIntegrityCheck(b.path))
  if (good !== undefined) copyToPrivateFile(good.path, databasePath)
  return { damagedCopy, backup: good?.path }
}

/** The whole recovery: restore, rebuild every projection, and record it. */
export const recoverDatabase = (databasePath: string, reason: string) =>
  Effect.gen(function*() {
    const recovery = restoreFromBackup(databasePath)
    const memory = yield* openMemory({ path: databasePath })
    try {
      yield* replay(memory)
      yield* memory.log.append(
        streams.maintenance,
        [{ _tag: "DatabaseRestored", reason: reason.slice(0, 500), damagedCopy: recovery.damagedCopy, ...(recovery.backup === undefined ? {} : { backup: recovery.backup }) }],
        { expectedVersion: "any", writer: "recovery" }
      )
    } finally {
      memory.db.close()
    }
    return recovery
  })

