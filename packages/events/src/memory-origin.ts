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
 * The table is created with the id, not by a migration: an older ralph-mem still opens the database.
 */
import { mkdirSync, readdirSync, statSync } from "node:fs"
import { basename, dirname, isAbsolute, join } from "node:path"
import type { SqliteDatabase } from "./database.ts"
import { UnsafePath } from "./errors.ts"
import { createPrivateFile, MEMORY_FOLDER } from "./safe-fs.ts"
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

/** The id kept in the database, if it holds one. */
export const readMemoryId = (db: SqliteDatabase): string | undefined => {
  let row: { id?: unknown } | undefined
  try {
    row = db.prepare("SELECT id FROM memory_identity").get() as { id?: unknown } | undefined
  } catch {
    // No such table: a memory made before ids were kept (or another program's table of that name).
    return undefined
  }
  return typeof row?.id === "string" && MEMORY_ID.test(row.id) ? row.id : undefined
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

/** Claude Code's transcript folders, one per project, in `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`. */
const transcriptFolders = (env: Env): ReadonlyArray<string> => {
  const configured = env["CLAUDE_CONFIG_DIR"]
  const home = env["HOME"] || env["USERPROFILE"]
  const root = configured !== undefined && isAbsolute(configured)
    ? configured
    : home === undefined || home === ""
    ? undefined
    : join(home, ".claude")
  if (root === undefined) return []
  const projects = join(root, "projects")
  try {
    return readdirSync(projects, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(projects, entry.name))
  } catch {
    return []
  }
}

/** Whether Claude Code on this machine holds the transcript of one of the memory's newest sessions. */
const sessionsHaveTranscripts = (db: SqliteDatabase, env: Env): boolean => {
  let names: Array<string>
  try {
    names = db.prepare("SELECT name FROM streams WHERE name LIKE 'session:%' ORDER BY id DESC LIMIT ?")
      .pluck()
      .all(SESSIONS_LOOKED_FOR) as Array<string>
  } catch {
    return false
  }
  const sessions = names.map((name) => name.slice("session:".length)).filter((id) => SESSION_FILE_NAME.test(id))
  if (sessions.length === 0) return false
  return transcriptFolders(env).some((folder) =>
    sessions.some((session) => statSync(join(folder, `${session}.jsonl`), { throwIfNoEntry: false })?.isFile())
  )
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
  if (!sessionsHaveTranscripts(db, env)) return unknownMemoryProblem(path, registry)
  try {
    recordMemoryId(registry, id ?? keepMemoryId(db))
  } catch {
    // Proven all the same (a read-only folder): recorded by a later open.
  }
  return undefined
}

/** Makes the memory this user's: gives it an id if it has none and records it. Returns the id. */
export const adoptMemory = (db: SqliteDatabase, env: Env = process.env): string => {
  const registry = memoryRegistry(env)
  if (registry === undefined) throw new Error("no home folder (HOME, XDG_STATE_HOME) to record the memory in")
  const id = keepMemoryId(db)
  recordMemoryId(registry, id)
  return id
}
