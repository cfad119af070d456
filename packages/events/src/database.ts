/**
 * Opening the database: file and folder permissions, pragmas, format checks and migrations.
 * A file that is not ours, damaged, or written by a newer ralph-mem is refused, never touched.
 */
import type Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { accessSync, constants, existsSync, linkSync, readdirSync, rmSync, statSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { DatabaseUnusable, type UnsafePath } from "./errors.ts"
import { isInMemoryFolder, keepMemoryId, memoryOriginProblem, memoryRegistry, recordMemoryId } from "./memory-origin.ts"
import { APPLICATION_ID, LATEST_SCHEMA_VERSION, migrations } from "./migrations.ts"
import { newSqliteDatabase } from "./native.ts"
import { isProcessRunning } from "./processes.ts"
import {
  createPrivateFile,
  ensureFolder,
  inspectMemoryFolder,
  type MemoryFolderInspection,
  tightenFile
} from "./safe-fs.ts"

export type SqliteDatabase = Database.Database

export interface OpenOptions {
  /** How long a writer waits for a lock held by another process before failing. */
  readonly busyTimeoutMs?: number
  /** No wait of this connection for a lock goes on past this time (epoch ms): see `waitingFairly`. */
  readonly waitsEndBy?: number
  /**
   * The process exits right after its work and leaves this connection to the exit (a hook; see `HookEnvironment`
   * in hooks/src/run.ts): each commit is then synced to the WAL on its own (synchronous=FULL).
   */
  readonly releasedAtExit?: boolean
  /**
   * Opens a project's memory whatever its origin (memory-origin.ts): for `ralph-mem adopt`, which makes it the
   * user's. Every other opener refuses a memory this machine has no record of.
   */
  readonly anyOrigin?: boolean
  /**
   * A project's memory made anew keeps the spill file found beside it: for a restore, which decides itself whether
   * the damaged memory's spill was the user's. Every other opener drops it (see `createDatabase`).
   */
  readonly keepsOlderSpill?: boolean
}

/** Past this size, the WAL is checkpointed and truncated before a connection closes or is left to the exit. */
const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024

/** How long that checkpoint waits, at most, for the readers still in the WAL and for the writer before it. */
const WAL_CHECKPOINT_WAIT_MS = 200

interface CheckpointResult {
  /** 1 when another connection was checkpointing. */
  readonly busy: number
  /** Frames in the WAL. */
  readonly log: number
}

/**
 * Checkpoints the WAL into the database and truncates it once it holds more than 4 MiB, before a connection is
 * closed or left to the exit. SQLite's own checkpoints, run as commits go, copy pages but never take the WAL
 * back to its start while a reader is in it, and under a steady queue of hooks some reader always is: the WAL
 * grew without end (250 MB for 3,200 appends in the load test), until a connection that closed last had to
 * checkpoint all of it holding the database's exclusive lock, with every hook waiting on it. Here the readers
 * in the WAL get a short time to finish (those that start meanwhile read the database instead), and when they
 * do not, a later connection tries again. A pass that waits for nothing goes first: it copies what it can,
 * steps aside when another connection is already checkpointing, and says how much the WAL still holds, so that
 * of the many hooks that find a large WAL at once, one truncates it.
 */
export const checkpointLargeWal = (db: SqliteDatabase, path: string): void => {
  // The connection may be used after this (a long-lived process): its own wait for locks is put back.
  let busyTimeout: number | undefined
  try {
    if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) <= WAL_CHECKPOINT_BYTES) return
    busyTimeout = db.pragma("busy_timeout", { simple: true }) as number
    db.pragma("busy_timeout = 0")
    const [pass] = db.pragma("wal_checkpoint(PASSIVE)") as Array<CheckpointResult>
    const pageBytes = db.pragma("page_size", { simple: true }) as number
    if (pass === undefined || pass.busy !== 0 || pass.log * pageBytes <= WAL_CHECKPOINT_BYTES) return
    db.pragma(`busy_timeout = ${WAL_CHECKPOINT_WAIT_MS}`)
    db.pragma("wal_checkpoint(TRUNCATE)")
  } catch {
    // Not now: a later connection checkpoints.
  } finally {
    if (busyTimeout !== undefined) db.pragma(`busy_timeout = ${busyTimeout}`)
  }
}

/** Can this process write the database and its folder (where SQLite makes its WAL and shared memory)? */
export const canWriteDatabase = (path: string): boolean => {
  try {
    accessSync(dirname(path), constants.W_OK)
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * A database this process may only read (a read-only folder or file: a mounted backup, a shared copy). SQLite
 * reads a WAL database read-only when its shared-memory file exists; when it does not and cannot be made,
 * the file is opened as immutable, which is exact as long as no WAL holds writes the file lacks.
 */
export const readOnlyConnection = (path: string, timeout = 5000): SqliteDatabase => {
  try {
    const db = newSqliteDatabase(path, { readonly: true, fileMustExist: true, timeout })
    try {
      db.prepare("SELECT count(*) FROM sqlite_schema").get()
      return db
    } catch (error) {
      db.close()
      throw error
    }
  } catch (error) {
    if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
      throw new DatabaseUnusable({
        path,
        problem: "unreachable",
        reason: `read-only, and its WAL holds writes it cannot read without writing (${sqliteCode(error) ?? "?"}): ` +
          "make the folder writable once"
      })
    }
    return newSqliteDatabase(immutableUri(path), { readonly: true, fileMustExist: true, timeout })
  }
}

/** A `file:` URI (SQLite's syntax: `?` and `#` escaped) that opens `path` as a file nothing changes. */
const immutableUri = (path: string): string =>
  `file:${encodeURI(path.replace(/\\/g, "/")).replace(/[?#]/g, encodeURIComponent)}?immutable=1`

/** Refuses a memory folder that is not the user's own, before anything (SQLite included) touches it. */
const refuseUnsafeFolder = (path: string): MemoryFolderInspection => {
  const inspection = inspectMemoryFolder(path)
  const { problem } = inspection
  if (problem === undefined) return inspection
  throw refusedFolder(path, problem)
}

/** The database at `path` is not opened: its memory folder is refused for `problem`. */
export const refusedFolder = (path: string, problem: UnsafePath): DatabaseUnusable =>
  new DatabaseUnusable({
    path,
    problem: "unsafe",
    reason: `memory folder refused, nothing is recorded in it: ${problem.path}: ${problem.reason}. ${problem.fix}`
  })

const sqliteCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

/** How long SQLite's own busy handler waits at a time, within `waitingFairly`. */
const LOCK_STEP_MS = 4

/**
 * The longest `waitingFairly` waits in all (unless the connection was opened with `waitsEndBy`) while other
 * connections keep committing: a queue of appends, each short, that a busy machine slows down.
 */
export const QUEUE_WAIT_MS = 10_000

const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Each connection opened with `waitsEndBy`: when its waits for a lock end, however much others commit. */
const waitEnds = new WeakMap<SqliteDatabase, number>()

/** Where a wait for a lock stands (epoch ms). */
export interface LockWait {
  readonly now: number
  /** When another connection was last seen to commit (when the wait began, until one is). */
  readonly progressAt: number
  /** The connection's busy timeout: how long it waits with nothing committed. */
  readonly budget: number
  /** When it stops waiting whatever happens. */
  readonly until: number
}

/**
 * A wait ends when nothing has been committed for the busy timeout (a replay, a transaction left open: the lock
 * is not coming back soon), or at its end. While others commit, the lock passes from one to the next, and
 * this connection's turn comes.
 */
export const givesUp = ({ budget, now, progressAt, until }: LockWait): boolean =>
  now - progressAt >= budget || now >= until

/** Changes whenever another connection commits; undefined when it cannot be read now. */
const commitCount = (db: SqliteDatabase): number | undefined => {
  try {
    return db.pragma("data_version", { simple: true }) as number
  } catch {
    return undefined
  }
}

/**
 * Runs `attempt` (a read at open, or a transaction begun with BEGIN IMMEDIATE, which SQLite rolls back when it
 * fails) until it gets the lock it waits for or `givesUp` says so. SQLite's own busy handler backs off to ever
 * longer sleeps between tries, so under many writers the process that has waited longest tries least often,
 * and can wait out its whole budget while newer ones keep getting in. Here every waiter tries again within a
 * few milliseconds of its last try, so each keeps an even chance. Even so, sixteen writers on two busy cores
 * made one wait past a hook's 2 s now and then (the load test, in CI), while the others' appends went
 * through one after another: the budget counts from the last commit seen, not from the first try.
 */
export const waitingFairly = <T>(db: SqliteDatabase, attempt: () => T): T => {
  const budget = db.pragma("busy_timeout", { simple: true }) as number
  if (budget <= LOCK_STEP_MS) return attempt()
  const started = Date.now()
  const until = Math.min(started + Math.max(budget, QUEUE_WAIT_MS), waitEnds.get(db) ?? Infinity)
  let progressAt = started
  let commitsSeen: number | undefined
  db.pragma(`busy_timeout = ${LOCK_STEP_MS}`)
  try {
    for (;;) {
      try {
        return attempt()
      } catch (error) {
        if (!(sqliteCode(error) ?? "").startsWith("SQLITE_BUSY")) throw error
        const now = Date.now()
        const commits = commitCount(db)
        if (commits !== undefined && commitsSeen !== undefined && commits !== commitsSeen) progressAt = now
        commitsSeen = commits ?? commitsSeen
        if (givesUp({ budget, now, progressAt, until })) throw error
        pause(1 + Math.floor(Math.random() * 3))
      }
    }
  } finally {
    db.pragma(`busy_timeout = ${budget}`)
  }
}

const unusable = (path: string, error: unknown): DatabaseUnusable => {
  const code = sqliteCode(error)
  const detail = error instanceof Error ? error.message : String(error)
  if (code === "SQLITE_NOTADB") {
    return new DatabaseUnusable({ path, problem: "not_a_database", reason: `not an SQLite database (${detail})` })
  }
  if (code !== undefined && code.startsWith("SQLITE_CORRUPT")) {
    return new DatabaseUnusable({ path, problem: "corrupt", reason: `the database is damaged (${detail})` })
  }
  return new DatabaseUnusable({ path, problem: "unreachable", reason: `cannot open the database (${detail})` })
}

interface Header {
  readonly applicationId: number
  readonly tables: number
  readonly version: number
  readonly journalMode: string
}

/**
 * Whose database this is, its schema version and journal mode, read in one statement, so in one snapshot: read
 * apart, a process creating the database at the same moment could be seen half-way (its tables, but
 * not yet its application id), and a fresh database taken for a foreign one.
 */
const readHeader = (db: SqliteDatabase): Header =>
  db
    .prepare(
      `SELECT (SELECT application_id FROM pragma_application_id) AS applicationId,
              (SELECT count(*) FROM sqlite_schema) AS tables,
              (SELECT user_version FROM pragma_user_version) AS version,
              (SELECT journal_mode FROM pragma_journal_mode) AS journalMode`
    )
    .get() as Header

/** Refuses a file that is another program's database, before anything (even a pragma) writes to it. */
const checkOwnership = ({ applicationId, tables }: Header, path: string): void => {
  if (tables > 0 && applicationId !== APPLICATION_ID) {
    throw new DatabaseUnusable({
      path,
      problem: "foreign",
      reason: "this SQLite file belongs to another program, not ralph-mem; point RALPH_MEM_DB elsewhere"
    })
  }
}

/** Refuses a database written by a newer ralph-mem, before anything writes to it. */
const checkNotNewer = (current: number, path: string): void => {
  if (current > LATEST_SCHEMA_VERSION) {
    throw new DatabaseUnusable({
      path,
      problem: "newer_schema",
      reason: `written by a newer ralph-mem (schema ${current}; this one knows up to ${LATEST_SCHEMA_VERSION});`
        + " upgrade ralph-mem"
    })
  }
}

/** Brings the schema up to date; only called when the version read at open is not the latest. */
const migrate = (db: SqliteDatabase, path: string): void => {
  const apply = db.transaction(() => {
    // Re-read under the write lock: another process may have migrated (or upgraded) it meanwhile.
    const current = db.pragma("user_version", { simple: true }) as number
    checkNotNewer(current, path)
    for (const migration of migrations) {
      if (migration.version > current) db.exec(migration.sql)
    }
    if (current < LATEST_SCHEMA_VERSION) {
      db.pragma(`application_id = ${APPLICATION_ID}`)
      db.pragma(`user_version = ${LATEST_SCHEMA_VERSION}`)
    }
  })
  waitingFairly(db, () => apply.immediate())
}

/**
 * Removes the new databases (`createDatabase`) that processes which died while building them left beside `path`,
 * with their WAL and shared memory. One still being built belongs to a running process and stays. Returns how many
 * files were removed.
 */
export const removeAbandonedBuilds = (path: string): number => {
  const name = basename(path)
  let removed = 0
  let entries: Array<string>
  try {
    entries = readdirSync(dirname(path))
  } catch {
    return 0
  }
  for (const entry of entries) {
    if (!entry.startsWith(`${name}.new-`)) continue
    const built = /^\.new-(\d+)-[0-9a-z]+(?:-wal|-shm)?$/.exec(entry.slice(name.length))
    if (built === null || isProcessRunning(Number(built[1]))) continue
    try {
      // A link planted in its place is removed, never followed.
      rmSync(join(dirname(path), entry), { force: true })
      removed++
    } catch {
      // Not now: the next creation or maintenance removes it.
    }
  }
  return removed
}

/** Gives a memory ralph-mem just made its id, recorded on this machine for a project's own (memory-origin.ts). */
const keepNewMemoryId = (db: SqliteDatabase, path: string): void => {
  const id = keepMemoryId(db)
  const registry = isInMemoryFolder(path) ? memoryRegistry() : undefined
  try {
    if (registry !== undefined) recordMemoryId(registry, id)
  } catch {
    // A state home it cannot write costs no memory: a later open finds the session's transcript (and records
    // the id then), or refuses it saying where the record should have been.
  }
}

/**
 * Makes a new database at `path` whole: built beside it under a name of its own (schema, WAL mode), then
 * linked into place, which fails when another process got there first; its database is then used and this one
 * thrown away. Made in place, a new database was where hooks starting at once queued: in rollback mode, before
 * WAL, where readers and the writer block each other, each waited for the schema to be made, then took the
 * write lock in turn to find it made, and under sixteen at once one waited past its budget now and then.
 */
const createDatabase = (path: string, dropOlderSpill: boolean): void => {
  // Unique among live processes, and among the ones before (a name left by one that died is not reused):
  // node:crypto is not loaded for it, hooks start without it.
  const partial = `${path}.new-${process.pid}-${Math.random().toString(36).slice(2, 10)}`
  if (!createPrivateFile(partial)) throw new Error(`cannot create the database: ${partial} is in the way`)
  try {
    const db = newSqliteDatabase(partial)
    try {
      db.pragma("journal_mode = WAL")
      migrate(db, partial)
      // Recorded before the database is in place: a crash in between leaves an id of no memory, never a memory
      // its user would be told is not theirs.
      keepNewMemoryId(db, path)
    } finally {
      // The only connection: closing it moves the schema from the WAL into the file and deletes the WAL.
      db.close()
    }
    if (existsSync(`${partial}-wal`)) throw new Error(`cannot create the database: ${partial}-wal was left behind`)
    let made = false
    try {
      linkSync(partial, path)
      made = true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    // A spill file older than the memory was not written for it: one that came with the project's files (an
    // archive) had its events folded into the user's new memory by the next hook, and injected as theirs.
    if (made && dropOlderSpill && isInMemoryFolder(path)) rmSync(`${path}.spill`, { force: true })
  } finally {
    for (const file of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(file, { force: true })
  }
  removeAbandonedBuilds(path)
}

/** Opens (creating if needed) a ralph-mem database at `path`, ready for appends and reads. */
export const openDatabase = (
  path: string,
  options: OpenOptions = {}
): Effect.Effect<SqliteDatabase, DatabaseUnusable> =>
  Effect.try({
    try: () => {
      const folder: MemoryFolderInspection = path === ":memory:" ? {} : refuseUnsafeFolder(path)
      const existing = folder.database
      // A hook (released at exit) only writes: in a folder it cannot write, its append fails and is logged.
      const readOnly = existing !== undefined && options.releasedAtExit !== true && !canWriteDatabase(path)
      if (path !== ":memory:" && !readOnly) {
        // Nearly every open finds the folder ready (inspected just now): no more system calls for it.
        if (folder.ready !== true) ensureFolder(dirname(path))
        if (existing === undefined) createDatabase(path, options.keepsOlderSpill !== true)
      }
      const timeout = options.busyTimeoutMs ?? 5000
      const db = readOnly ? readOnlyConnection(path, timeout) : newSqliteDatabase(path, { timeout })
      if (options.waitsEndBy !== undefined) waitEnds.set(db, options.waitsEndBy)
      try {
        const header = waitingFairly(db, () => readHeader(db))
        checkOwnership(header, path)
        checkNotNewer(header.version, path)
        // An empty file holds nothing to inject: it becomes a memory like a new one.
        if (options.anyOrigin !== true && path !== ":memory:" && header.tables > 0) {
          const problem = waitingFairly(db, () => memoryOriginProblem(db, path))
          if (problem !== undefined) throw refusedFolder(path, problem)
        }
        if (readOnly && header.version !== LATEST_SCHEMA_VERSION) {
          throw new DatabaseUnusable({
            path,
            problem: "unreachable",
            reason: `read-only, and written by an older ralph-mem (schema ${header.version}): ` +
              "make the folder and the file writable once, so it can be brought up to date"
          })
        }
        if (readOnly) return db
        // Tightened (through its descriptor) only once it is known to be ours.
        if (existing !== undefined && (existing.mode & 0o077) !== 0) tightenFile(path)
        // The journal mode is kept in the file: WAL is set once (a new database, or one restored from a
        // backup). Setting it again on every open made a hook wait, under many writers, on their locks.
        if (header.journalMode !== "wal") db.pragma("journal_mode = WAL")
        // A WAL that SQLite takes back to its start itself is cut to 4 MiB: only one that grew past it is large.
        db.exec(
          `PRAGMA synchronous = ${
            options.releasedAtExit === true ? "FULL" : "NORMAL"
          }; PRAGMA secure_delete = ON; PRAGMA foreign_keys = ON; PRAGMA journal_size_limit = ${WAL_CHECKPOINT_BYTES}`
        )
        // Nearly every open finds the schema current: no write lock, no DDL.
        if (header.version !== LATEST_SCHEMA_VERSION) migrate(db, path)
        if (header.tables === 0 && path !== ":memory:") keepNewMemoryId(db, path)
        return db
      } catch (error) {
        db.close()
        throw error
      }
    },
    catch: (error) => (error instanceof DatabaseUnusable ? error : unusable(path, error))
  })
