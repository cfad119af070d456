/**
 * Whose memory a project's `.ralph-mem/memory.db` is. A memory can arrive with the project without git: a
 * tarball, a zip, a container image unpacked where it was built (`/app`). Its "notes" would then be injected as
 * the user's own past, and git cannot tell (tracked-memory.ts covers only what git tracks).
 *
 * So each memory ralph-mem makes gets a random id, kept in the database (`memory_identity`) and recorded on this
 * machine, outside every project: one empty file per id in `<state home>/ralph-mem/memories/`. A memory in a
 * project's memory folder is used only when its id is recorded there. Checking costs one small read and one
 * `stat`. A memory that moves with its project (renamed, copied on this machine, restored from its backup) keeps
 * its id, so it stays the user's.
 *
 * A memory made before ids were kept has none. It is recorded the first time it is opened when this machine's
 * Claude Code holds the transcript of one of its sessions: an attacker can name sessions, but cannot put their
 * transcripts in the user's `~/.claude`. Anything else (a memory from elsewhere, or an old one whose
 * transcripts Claude Code has since removed) is refused until the user adopts it (`ralph-mem adopt`).
 *
 * A database the user names (RALPH_MEM_DB, --db) is theirs by that choice: only the project's own folder, where
 * an archive can put one, is checked.
 *
 * Looking for transcripts takes a `stat` per session in every project folder of Claude Code's, and a refused memory
 * would be looked up again at every hook of its project. So a refusal is kept (`<state home>/ralph-mem/unproven/`),
 * with what it was found on: the database's file and WAL, and the transcript folders' times (a transcript written
 * into one changes its time). While none of these changed, the memory stays refused for one `stat` per folder. Only
 * a refusal is kept: nothing kept can make a memory the user's; and only when every transcript could be looked up.
 *
 * The table is created with the id, not by a migration: an older ralph-mem still opens the database.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from "node:fs"
import { basename, dirname, isAbsolute, join } from "node:path"
import type { SqliteDatabase } from "./database.ts"
import { digest53 } from "./digest.ts"
import { UnsafePath } from "./errors.ts"
import { homeFolder } from "./location.ts"
import { createPrivateFile, MEMORY_FOLDER, writePrivateFile } from "./safe-fs.ts"
import { stateHome } from "./tracked-memory.ts"

type Env = Readonly<Record<string, string | undefined>>

/** An id is 32 hex digits; anything else read from a database is not one ralph-mem wrote. */
const MEMORY_ID = /^[0-9a-f]{32}$/

/** How many of the memory's newest sessions are looked for among Claude Code's transcripts. */
const SESSIONS_LOOKED_FOR = 20

/** A session id that can be a file name (Claude Code's are UUIDs); a stream name is anyone's text. */
const SESSION_FILE_NAME = /^[A-Za-z0-9_-]{1,100}$/

/** A new random id (128 bits): only made when a memory is created or adopted. */
export const newMemoryId = (): string => {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")
}

/**
 * Whether `name` is an ordinary table of the database. The memory being checked may be anyone's file: a view of that
 * name runs the query its maker wrote (a recursive one that never returns a row held every hook until Claude Code
 * killed it), and a virtual table runs its module's code; reading an ordinary table's first rows is bounded.
 */
const isOrdinaryTable = (db: SqliteDatabase, name: string): boolean => {
  const row = db.prepare("SELECT type, sql FROM sqlite_schema WHERE name = ?").get(name) as
    | { type?: unknown; sql?: unknown }
    | undefined
  return row?.type === "table" && typeof row.sql === "string" && /^CREATE\s+TABLE\b/i.test(row.sql)
}

/** The id kept in the database, if it holds one. */
export const readMemoryId = (db: SqliteDatabase): string | undefined => {
  let row: { id?: unknown } | undefined
  try {
    if (!isOrdinaryTable(db, "memory_identity")) return undefined
    row = db.prepare("SELECT id FROM memory_identity").get() as { id?: unknown } | undefined
  } catch {
    // No such table: a memory made before ids were kept (or another program's table of that name).
    return undefined
  }
  return typeof row?.id === "string" && MEMORY_ID.test(row.id) ? row.id : undefined
}

/** Ids read per connection: an id, once kept, is never changed (keepMemoryId adds one only where there is none). */
const idsRead = new WeakMap<SqliteDatabase, string>()

/** The id the database holds (readMemoryId), read once per connection once it has one. */
export const memoryIdOf = (db: SqliteDatabase): string | undefined => {
  const known = idsRead.get(db)
  if (known !== undefined) return known
  const id = readMemoryId(db)
  if (id !== undefined) idsRead.set(db, id)
  return id
}

/** Gives the database an id unless it has one; returns the id it holds. */
export const keepMemoryId = (db: SqliteDatabase, id: string = newMemoryId()): string => {
  db.exec("CREATE TABLE IF NOT EXISTS memory_identity (only INTEGER PRIMARY KEY CHECK (only = 1), id TEXT NOT NULL)")
  db.prepare("INSERT OR IGNORE INTO memory_identity (only, id) VALUES (1, ?)").run(id)
  const kept = readMemoryId(db)
  if (kept === undefined) throw new Error("memory_identity holds no valid id")
  return kept
}

/** The folder of recorded ids, or undefined with no home to keep it in. */
export const memoryRegistry = (env: Env = process.env): string | undefined => {
  const home = stateHome(env)
  return home === undefined ? undefined : join(home, "ralph-mem", "memories")
}

/** Whether this machine recorded `id` as one of its user's memories. */
const isRecorded = (registry: string, id: string): boolean =>
  statSync(join(registry, id), { throwIfNoEntry: false })?.isFile() === true

/** Records `id` as one of this user's memories. */
export const recordMemoryId = (registry: string, id: string): void => {
  // Private: the ids say which memories this user has, nothing else.
  mkdirSync(registry, { recursive: true, mode: 0o700 })
  createPrivateFile(join(registry, id))
}

/** Whether the database is a project's own memory, which an archive can put in place (see above). */
export const isInMemoryFolder = (path: string): boolean => basename(dirname(path)) === MEMORY_FOLDER

/** Claude Code's folder of transcript folders: `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`. */
const transcriptsRoot = (env: Env): string | undefined => {
  const configured = env["CLAUDE_CONFIG_DIR"]
  const home = homeFolder(env)
  const root = configured !== undefined && isAbsolute(configured)
    ? configured
    : home === undefined
    ? undefined
    : join(home, ".claude")
  return root === undefined ? undefined : join(root, "projects")
}

/**
 * Claude Code's transcript folders, one per project; none when it has none, undefined when they cannot be listed (a
 * folder `sudo claude` made that the user may not read).
 */
const transcriptFolders = (root: string | undefined): ReadonlyArray<string> | undefined => {
  if (root === undefined) return []
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, entry.name))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === "ENOENT" || code === "ENOTDIR" ? [] : undefined
  }
}

/** The memory's newest sessions whose ids can be file names. */
const newestSessions = (db: SqliteDatabase): ReadonlyArray<string> => {
  try {
    if (!isOrdinaryTable(db, "streams")) return []
    const names = db.prepare("SELECT name FROM streams WHERE name LIKE 'session:%' ORDER BY id DESC LIMIT ?")
      .pluck()
      .all(SESSIONS_LOOKED_FOR) as Array<string>
    return names.map((name) => name.slice("session:".length)).filter((id) => SESSION_FILE_NAME.test(id))
  } catch {
    return []
  }
}

/**
 * Whether Claude Code on this machine holds the transcript of one of `sessions`: `unsure` when none was found and some
 * could not be looked up (folders the user may not list or search, as `sudo claude` leaves them; a link that loops).
 * Such a lookup proves nothing, and stops no other folder from proving it.
 */
const transcriptsHeld = (
  sessions: ReadonlyArray<string>,
  folders: ReadonlyArray<string> | undefined
): "found" | "absent" | "unsure" => {
  if (folders === undefined) return "unsure"
  let unsure = false
  for (const folder of folders) {
    for (const session of sessions) {
      try {
        if (statSync(join(folder, `${session}.jsonl`), { throwIfNoEntry: false })?.isFile() === true) return "found"
      } catch {
        unsure = true
      }
    }
  }
  return unsure ? "unsure" : "absent"
}

/** A file's identity, size and time of change, `-` when it is missing, `?` when it cannot be looked up. */
const fileStamp = (path: string): string => {
  try {
    const stats = statSync(path, { throwIfNoEntry: false, bigint: true })
    return stats === undefined ? "-" : `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`
  } catch {
    return "?"
  }
}

/**
 * What a refusal was found on: the database, what its WAL holds, and the transcript folders (see above). A refused
 * memory's connection is closed, which deletes an empty WAL, and the next open makes it again: a WAL is known by its
 * size alone.
 */
const refusalGrounds = (path: string, root: string | undefined, folders: ReadonlyArray<string> | undefined): string => {
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0
  return [`${path} ${fileStamp(path)} wal ${wal}`]
    .concat(
      [...(root === undefined ? [] : [root]), ...(folders ?? [])].map((folder) => `${folder} ${fileStamp(folder)}`)
    )
    .join("\n")
}

/** Where the refusal of the memory at `path` is kept, beside the registry. */
const refusalRecord = (registry: string, path: string): string =>
  join(dirname(registry), "unproven", `${digest53(path).toString(16).padStart(14, "0")}.txt`)

const isKeptRefusal = (record: string, grounds: string): boolean => {
  try {
    return statSync(record, { throwIfNoEntry: false }) !== undefined && readFileSync(record, "utf8") === grounds
  } catch {
    return false
  }
}

/** Keeps a refusal; best effort: not kept, it is only found again. */
const keepRefusal = (record: string, grounds: string): void => {
  try {
    mkdirSync(dirname(record), { recursive: true, mode: 0o700 })
    writePrivateFile(record, grounds)
  } catch {
    // The state folder is not writable: the next open looks for transcripts again.
  }
}

/** The refusal of a memory this machine has no record of making. */
export const unknownMemoryProblem = (path: string, registry: string): UnsafePath =>
  new UnsafePath({
    path: dirname(path),
    problem: "unknown_origin",
    reason: "this memory was not made here: its id is not recorded in " + registry + ", and Claude Code holds the " +
      "transcript of none of its sessions. It may have come with the project's files (an archive, an image), and " +
      "its notes would be injected as your own past; memory is off for this project, nothing is read from it or " +
      "written to it",
    fix: "If it is yours (copied from another machine, or not used for a long time), run `ralph-mem adopt` in the " +
      "project. If not, delete the .ralph-mem folder."
  })

/**
 * Checks that a project's own memory is this user's (see above), recording the id of an older memory that Claude
 * Code's transcripts prove; returns the problem otherwise. A database outside a memory folder, or a machine with no
 * home to keep records in, is not checked.
 */
export const memoryOriginProblem = (
  db: SqliteDatabase,
  path: string,
  env: Env = process.env
): UnsafePath | undefined => {
  if (!isInMemoryFolder(path)) return undefined
  const registry = memoryRegistry(env)
  if (registry === undefined) return undefined
  const id = readMemoryId(db)
  if (id !== undefined && isRecorded(registry, id)) return undefined
  const sessions = newestSessions(db)
  if (sessions.length === 0) return unknownMemoryProblem(path, registry)
  const root = transcriptsRoot(env)
  const folders = transcriptFolders(root)
  const record = refusalRecord(registry, path)
  const grounds = refusalGrounds(path, root, folders)
  if (isKeptRefusal(record, grounds)) return unknownMemoryProblem(path, registry)
  const held = transcriptsHeld(sessions, folders)
  if (held !== "found") {
    // A refusal is kept only when every transcript could be looked up: unsure, the next open looks again.
    if (held === "absent") keepRefusal(record, grounds)
    return unknownMemoryProblem(path, registry)
  }
  try {
    recordMemoryId(registry, id ?? keepMemoryId(db))
    rmSync(record, { force: true })
  } catch {
    // Proven all the same (a read-only folder): recorded by a later open.
  }
  return undefined
}

/** Bytes read at a time when looking for an id in a damaged file. */
const SCAN_CHUNK_BYTES = 1024 * 1024

/** Whether any of `files` holds, anywhere in its bytes, one of `ids`. */
const holdsAnyId = (files: ReadonlyArray<string>, ids: ReadonlySet<string>): boolean => {
  const buffer = Buffer.alloc(SCAN_CHUNK_BYTES)
  for (const file of files) {
    let fd: number
    try {
      fd = openSync(file, "r")
    } catch {
      continue
    }
    try {
      // Each chunk keeps the end of the one before, so an id read across two chunks is found whole.
      let carry = ""
      for (let position = 0;;) {
        const read = readSync(fd, buffer, 0, buffer.length, position)
        if (read === 0) break
        position += read
        const text = carry + buffer.toString("latin1", 0, read)
        for (const run of text.matchAll(/[0-9a-f]{32,}/g)) {
          for (let at = 0; at + 32 <= run[0].length; at++) if (ids.has(run[0].slice(at, at + 32))) return true
        }
        carry = text.slice(-31)
      }
    } finally {
      closeSync(fd)
    }
  }
  return false
}

/** Whether any of `files` (a damaged database, its WAL) holds the id `id` anywhere in its bytes. */
export const filesHoldMemoryId = (files: ReadonlyArray<string>, id: string): boolean =>
  MEMORY_ID.test(id) && holdsAnyId(files, new Set([id]))

/**
 * Why the events of a damaged database that was a project's own memory may not be read back into the new one, if they
 * may not. They would otherwise become the user's memory without the check above: an archive's memory damaged on
 * purpose was set aside, a new memory made with the user's id, and the archive's notes read back into it and injected.
 * Its id is looked for in its bytes (a damaged file may not open): one recorded on this machine makes it the user's.
 */
export const damagedMemoryOriginProblem = (
  path: string,
  files: ReadonlyArray<string>,
  env: Env = process.env
): string | undefined => {
  if (!isInMemoryFolder(path)) return undefined
  const registry = memoryRegistry(env)
  if (registry === undefined) return undefined
  let recorded: Set<string>
  try {
    recorded = new Set(readdirSync(registry).filter((name) => MEMORY_ID.test(name)))
  } catch {
    recorded = new Set()
  }
  if (recorded.size > 0 && holdsAnyId(files, recorded)) return undefined
  return `nothing in it shows it was made here (it holds none of the ids recorded in ${registry}): it may have come ` +
    "with the project's files, and its notes are not taken as yours; if it was yours, its file is kept for a rescue"
}

/**
 * Makes the memory at `path` this user's: gives it an id if it has none, records it, and drops a refusal kept for it.
 * Returns the id.
 */
export const adoptMemory = (db: SqliteDatabase, path: string, env: Env = process.env): string => {
  const registry = memoryRegistry(env)
  if (registry === undefined) throw new Error("no home folder (HOME, XDG_STATE_HOME) to record the memory in")
  const id = keepMemoryId(db)
  recordMemoryId(registry, id)
  rmSync(refusalRecord(registry, path), { force: true })
  return id
}
