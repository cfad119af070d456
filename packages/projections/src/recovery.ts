/**
 * When the database is damaged (random bytes over pages, a truncated file, a file that is not SQLite):
 * the damaged file is kept aside, the newest backup that passes SQLite's integrity check is put in its
 * place (or a new, empty database when there is none), the projections are rebuilt from its log, and a
 * DatabaseRestored event records what happened, so the next SessionStart tells the user once.
 */
import {
  copyToPrivateFile,
  damagedMemoryOriginProblem,
  ensureMemorySubfolder,
  filesHoldMemoryId,
  MEMORY_FOLDER,
  memoryIdOf,
  openSideFileToRead,
  readHeadMark,
  readOnlyConnection,
  readSideFileAt,
  streams,
  writeHeadMark
} from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { closeSync, existsSync, renameSync, rmSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { listBackups } from "./backup.ts"
import { openMemory } from "./memory-store.ts"
import { replay } from "./replay.ts"
import { salvageEvents } from "./salvage.ts"

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

/** What every SQLite database file starts with. */
const SQLITE_HEADER = "SQLite format 3\0"

const startsAsSqlite = (path: string): boolean => {
  try {
    const fd = openSideFileToRead(path)
    try {
      return readSideFileAt(fd, SQLITE_HEADER.length, 0).toString("latin1") === SQLITE_HEADER
    } finally {
      closeSync(fd)
    }
  } catch {
    return false
  }
}

/**
 * Whether a file that does not open as a memory may be a damaged one, and so may be set aside and replaced: it
 * lies in a memory folder, or starts as an SQLite file does, or ralph-mem's head mark or a backup stands beside
 * it. A file that is none of these (the user's notes, named by a mistyped --db or RALPH_MEM_DB) is never moved.
 */
export const mayBeMemory = (databasePath: string): boolean =>
  basename(dirname(databasePath)) === MEMORY_FOLDER
  || startsAsSqlite(databasePath)
  || readHeadMark(databasePath) !== undefined
  || listBackups(databasePath).length > 0

export class NotAMemory extends Schema.TaggedError<NotAMemory>()("NotAMemory", { path: Schema.String }) {
  override get message() {
    return `${this.path} is not an SQLite file, and nothing beside it shows it was ralph-mem's memory (no head mark, ` +
      "no backup): it is left as it is. Check the path (--db, RALPH_MEM_DB)"
  }
}

export interface Recovery {
  readonly damagedCopy: string
  readonly backup: string | undefined
  /** Events of the damaged file past the backup read back into the log, and those that could not be. */
  readonly salvaged?: number
  readonly unreadable?: number
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

/**
 * The whole recovery: restore, salvage the damaged file's events past the backup, rebuild every
 * projection, and record it (with an EventsLost event for what could not be read).
 */
export const recoverDatabase = (databasePath: string, reason: string) =>
  Effect.gen(function*() {
    if (!mayBeMemory(databasePath)) return yield* new NotAMemory({ path: databasePath })
    // Read before the restore: the head mark says how far the damaged log had got.
    const headMark = readHeadMark(databasePath)
    const recovery = restoreFromBackup(databasePath)
    const memory = yield* openMemory({ path: databasePath, keepsOlderSpill: true })
    try {
      // Only a mark of this memory (head-mark.ts): the backup's id, or, with no backup (a new memory, a new id), one
      // the damaged file holds. A mark that came with the project's files would count events it never had as lost.
      const restoredId = memoryIdOf(memory.db)
      const ownMark = headMark !== undefined && (
        headMark.memory === restoredId
        || (recovery.backup === undefined && headMark.memory !== undefined
          && filesHoldMemoryId([recovery.damagedCopy, `${recovery.damagedCopy}-wal`], headMark.memory))
      )
      const lastKnown = ownMark ? headMark.position : undefined
      const backupHead = memory.db.prepare("SELECT coalesce(max(position), 0) FROM event_rows").pluck().get() as number
      // A backup that opened passed the origin check (openMemory): the folder is the user's. Without one, the damaged
      // file must show it was theirs before its events join their memory.
      const notSalvaged = recovery.backup === undefined
        ? damagedMemoryOriginProblem(databasePath, [recovery.damagedCopy, `${recovery.damagedCopy}-wal`])
        : undefined
      const salvage = notSalvaged === undefined
        ? salvageEvents(memory.db, recovery.damagedCopy, backupHead, lastKnown)
        : { salvaged: 0, unreadable: 0, unreadableRanges: "" }
      // What hooks could not record beside a memory not shown to be the user's is no more theirs than its log.
      if (notSalvaged !== undefined) rmSync(`${databasePath}.spill`, { force: true })
      yield* replay(memory)
      const restored = {
        _tag: "DatabaseRestored" as const,
        reason: (reason.trim() === "" ? "damaged (SQLite gave no reason)" : reason).slice(0, 500),
        damagedCopy: recovery.damagedCopy,
        ...(notSalvaged === undefined
          ? { salvaged: salvage.salvaged, unreadable: salvage.unreadable }
          : { notSalvaged }),
        ...(recovery.backup === undefined ? {} : { backup: recovery.backup })
      }
      const lost = salvage.unreadable === 0 ? [] : [{
        _tag: "EventsLost" as const,
        count: salvage.unreadable,
        detail: `the damaged database (kept at ${recovery.damagedCopy}) could not be read at positions ` +
          salvage.unreadableRanges
      }]
      // The mark named the damaged log's head, which the restored log may not reach: it starts again here.
      const { events } = yield* memory.log.append(streams.maintenance, [restored, ...lost], {
        expectedVersion: "any",
        writer: "recovery"
      })
      const newest = events.at(-1)!
      writeHeadMark(databasePath, { position: newest.position, eventId: newest.eventId, memory: restoredId }, true)
      return { ...recovery, salvaged: salvage.salvaged, unreadable: salvage.unreadable }
    } finally {
      memory.db.close()
    }
  })
