/**
 * Every write, chmod and mkdir under a memory folder goes through here, because a repository can plant
 * files there: a committed `.ralph-mem/hooks.log` that is a link to `~/.bashrc` would otherwise get
 * ralph-mem's lines appended to the user's shell start-up, and the file chmodded.
 *
 * The rules: files are opened with O_NOFOLLOW (a link is never written through) and created with
 * O_CREAT|O_EXCL where they are new; modes are set with fchmod on the open descriptor, never by path;
 * an opened file must be a regular file owned by this user with one name. A `.ralph-mem` folder must be a
 * real folder owned by this user with no link where ralph-mem keeps its files; anything else makes the
 * whole memory folder refused (`inspectMemoryFolder`): nothing is recorded there, and the refusal says why
 * and how to fix it.
 * SQLite opens the database, its WAL and shared memory itself, so those are checked with lstat first.
 *
 * The attacker this stops is a repository's content, fixed before ralph-mem runs; a local user racing
 * the checks needs write access to a folder that is the user's own and 0700.
 */
import {
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync
} from "node:fs"
import { basename, dirname, join, sep } from "node:path"
import { UnsafePath } from "./errors.ts"
import { readTrackedMemory, trackedMemoryProblem } from "./tracked-memory.ts"

/** The memory folder's name inside a project: a repository can commit it, so it is held to every rule. */
export const MEMORY_FOLDER = ".ralph-mem"

// Zero where the platform has no such flag (Windows: no symlinks to plant without privileges there).
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0
// A FIFO where a file belongs would otherwise block the open until a reader comes.
const NO_BLOCK = constants.O_NONBLOCK ?? 0
const DIRECTORY = constants.O_DIRECTORY ?? 0
const PRIVATE_FILE = 0o600
const PRIVATE_FOLDER = 0o700

const currentUid = (): number | undefined => process.getuid?.()

const linkTarget = (path: string): string => {
  try {
    return readlinkSync(path)
  } catch {
    return "?"
  }
}

const refuseLink = (path: string): UnsafePath =>
  new UnsafePath({
    path,
    problem: "link",
    reason: `it is a symbolic link (to ${linkTarget(path)}), where ralph-mem keeps its own files; ` +
      "a repository may have planted it",
    fix: `Remove it (rm ${JSON.stringify(path)}): ralph-mem then makes its own.`
  })

/** What is wrong with `stats` of a path that should be this user's `kind`, if anything. */
const problemOf = (path: string, stats: Stats, kind: "file" | "folder"): UnsafePath | undefined => {
  if (stats.isSymbolicLink()) return refuseLink(path)
  const uid = currentUid()
  if (uid !== undefined && stats.uid !== uid) {
    return new UnsafePath({
      path,
      problem: "foreign_owner",
      reason: `it belongs to user ${stats.uid}, not to you (user ${uid})`,
      fix: `Remove it, or make it yours (chown ${uid} ${JSON.stringify(path)}), then run ralph-mem again.`
    })
  }
  if (kind === "folder" ? !stats.isDirectory() : !stats.isFile()) {
    return new UnsafePath({
      path,
      problem: "wrong_type",
      reason: `it is not a ${kind === "folder" ? "folder" : "regular file"}`,
      fix: `ralph-mem needs a ${kind} there: choose another path, or move this one away.`
    })
  }
  if (kind === "file" && stats.nlink > 1) {
    return new UnsafePath({
      path,
      problem: "hard_link",
      reason: `it has ${stats.nlink} names (a hard link shares its content with another file)`,
      fix: `Remove it (rm ${JSON.stringify(path)}): ralph-mem then makes its own.`
    })
  }
  return undefined
}

/** Checks a path ralph-mem would write; a missing path is fine (it will be created). */
export const inspectPath = (path: string, kind: "file" | "folder"): UnsafePath | undefined => {
  const stats = lstatSync(path, { throwIfNoEntry: false })
  return stats === undefined ? undefined : problemOf(path, stats, kind)
}

/** Throws what `inspectPath` finds. */
export const assertSafePath = (path: string, kind: "file" | "folder"): void => {
  const problem = inspectPath(path, kind)
  if (problem !== undefined) throw problem
}

/**
 * What ralph-mem keeps in a memory folder besides the database and its companions: a link at any of these
 * names makes the folder refused. A writer that adds a name adds it here.
 */
export const MEMORY_FOLDER_ENTRIES: ReadonlyArray<string> = [
  "hooks.log",
  ".gitignore",
  "config.yaml",
  "backups",
  "damaged",
  "export",
  "plans",
  "snapshots"
]

/** The files SQLite keeps beside a database (it opens them itself, following links). */
export const databaseCompanions = (
  databasePath: string
): ReadonlyArray<string> => [databasePath, `${databasePath}-wal`, `${databasePath}-shm`, `${databasePath}-journal`]

/**
 * Where hook failures are logged: `hooks.log` beside the database. The hook loader (apps/cli/src/hook-loader.ts)
 * spells it out once more, as it runs before any package is loaded.
 */
export const failureLogPath = (databasePath: string): string => join(dirname(databasePath), "hooks.log")

/** ralph-mem's own files beside a database: hooks that could not record, the head mark, a pending erasure. */
const sideFiles = (
  databasePath: string
): ReadonlyArray<string> => [`${databasePath}.spill`, `${databasePath}.head`, `${databasePath}.erasure-pending`]

export interface MemoryFolderInspection {
  readonly problem?: UnsafePath
  /** The database file's stats, when it exists. */
  readonly database?: Stats
  /** The folder exists and needs nothing of `ensureFolder` (mode, .gitignore): an open can skip it. */
  readonly ready?: boolean
}

/**
 * Whether the memory folder of `databasePath` may be used, and its database file's stats when it exists.
 * A `.ralph-mem` folder must be a real folder of this user's with no link at a name ralph-mem uses; a
 * folder the user chose (RALPH_MEM_DB, --db) may itself be a link of theirs, but must be theirs. In both,
 * the database, its companions and hooks.log must be this user's regular files. A missing folder is fine.
 */
export const inspectMemoryFolder = (databasePath: string): MemoryFolderInspection => {
  const folder = dirname(databasePath)
  const ours = basename(folder) === MEMORY_FOLDER
  // Files git tracks there came with the repository or are about to leave with it (tracked-memory.ts):
  // refused even when the folder is gone from the work tree, as what is made there would be tracked again.
  const tracked = ours ? readTrackedMemory(folder) : undefined
  if (tracked !== undefined) return { problem: trackedMemoryProblem(tracked) }
  let stats = lstatSync(folder, { throwIfNoEntry: false })
  if (stats === undefined) return {}
  if (!ours && stats.isSymbolicLink()) stats = statSync(folder)
  const folderProblem = problemOf(folder, stats, "folder")
  if (folderProblem !== undefined) return { problem: folderProblem }
  // One readdir finds a link at any name ralph-mem keeps in its own folder (an editor's lock link beside
  // config.yaml harms nothing); elsewhere the database's own names are looked at one by one.
  const present = ours ? readdirSync(folder, { withFileTypes: true }) : undefined
  const companions = [...databaseCompanions(databasePath), ...sideFiles(databasePath)].map((path) => basename(path))
  const kept = new Set([...companions, ...MEMORY_FOLDER_ENTRIES])
  const link = present?.find((entry) => entry.isSymbolicLink() && kept.has(entry.name))
  if (link !== undefined) return { problem: refuseLink(join(folder, link.name)) }
  const names = new Set(present?.map((entry) => entry.name))
  let database: Stats | undefined
  for (const path of [...databaseCompanions(databasePath), ...sideFiles(databasePath), failureLogPath(databasePath)]) {
    if (present !== undefined && !names.has(basename(path))) continue
    const file = lstatSync(path, { throwIfNoEntry: false })
    if (file === undefined) continue
    const problem = problemOf(path, file, "file")
    if (problem !== undefined) return { problem }
    if (path === databasePath) database = file
  }
  // Ready as it is: ours and private, with its .gitignore; or a folder the user chose, which is theirs.
  const ready = !ours || ((stats.mode & 0o077) === 0 && names.has(".gitignore"))
  return database === undefined ? { ready } : { ready, database }
}

/**
 * The whole lines in the last `maxBytes` of a log ralph-mem appends to (hooks.log), or undefined when there is no
 * regular file there. A log can come with a project's files (an archive) at any size, or as a FIFO: read whole, a
 * large one took the reader's memory and then failed it (a string has a size limit), and a FIFO held it forever.
 */
export const readLogTail = (path: string, maxBytes: number): string | undefined => {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | NO_FOLLOW | NO_BLOCK)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return undefined
    const length = Math.min(stats.size, maxBytes)
    const buffer = Buffer.alloc(length)
    let read = 0
    while (read < length) {
      const got = readSync(fd, buffer, read, length - read, stats.size - length + read)
      if (got === 0) break
      read += got
    }
    const text = buffer.subarray(0, read).toString("utf8")
    // Cut inside a line: the part before the first line break is a piece of a line, not a line.
    return length < stats.size ? text.slice(text.indexOf("\n") + 1) : text
  } finally {
    closeSync(fd)
  }
}

/** Opens with O_NOFOLLOW and checks what was opened is this user's regular file; a link is an UnsafePath. */
const openChecked = (path: string, flags: number, mode = PRIVATE_FILE): number => {
  let fd: number
  try {
    fd = openSync(path, flags | NO_FOLLOW | NO_BLOCK, mode)
  } catch (error) {
    // ELOOP: the last component is a link (EMLINK on some BSDs).
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ELOOP" || code === "EMLINK") throw refuseLink(path)
    throw error
  }
  try {
    const problem = problemOf(path, fstatSync(fd), "file")
    if (problem !== undefined) throw problem
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/**
 * Takes away what group and others may do, through the descriptor, and only when they may do something:
 * the owner's bits are never added (a memory folder made read-only on purpose stays read-only), and a
 * read-only file system is never asked for a change.
 */
const tightenOpen = (fd: number, mode = fstatSync(fd).mode): void => {
  if ((mode & 0o077) !== 0) fchmodSync(fd, mode & 0o700)
}

const writeAll = (fd: number, data: string | Uint8Array): void => {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
  for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset, bytes.length - offset)
}

/**
 * Creates `path` with `data`, 0600, only if nothing is there (O_EXCL: not even a link). False when
 * something already was.
 */
export const createPrivateFile = (path: string, data: string | Uint8Array = ""): boolean => {
  let fd: number
  try {
    fd = openChecked(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
  try {
    tightenOpen(fd)
    writeAll(fd, data)
  } finally {
    closeSync(fd)
  }
  return true
}

/** Appends to `path` (created 0600 if missing), never through a link; the file ends up 0600. */
export const appendPrivateFile = (path: string, data: string): void => {
  const fd = openChecked(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT)
  try {
    tightenOpen(fd)
    writeAll(fd, data)
  } finally {
    closeSync(fd)
  }
}

/**
 * Replaces `path` with `data` as a whole (written aside, then renamed: a reader sees the old file or the
 * new one), 0600 unless `mode` says otherwise. A link at `path` is refused, not replaced or followed.
 */
export const writePrivateFile = (path: string, data: string | Uint8Array, mode = PRIVATE_FILE): void => {
  assertSafePath(path, "file")
  const temporary = `${path}.${process.pid}.tmp`
  rmSync(temporary, { force: true })
  const fd = openChecked(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode)
  try {
    try {
      if ((fstatSync(fd).mode & 0o777) !== mode) fchmodSync(fd, mode)
      writeAll(fd, data)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

/** Takes others' access away from a file of this user's, through its descriptor (never following a link). */
export const tightenFile = (path: string): void => {
  const fd = openChecked(path, constants.O_RDONLY)
  try {
    tightenOpen(fd)
  } finally {
    closeSync(fd)
  }
}

/** Copies `from` to a new private file `to` (COPYFILE_EXCL: nothing, not even a link, may be there). */
export const copyToPrivateFile = (from: string, to: string): void => {
  copyFileSync(from, to, constants.COPYFILE_EXCL)
  tightenFile(to)
}

/** Opens a folder without following a link, checks it is this user's, and takes others' access away if asked. */
const checkFolder = (folder: string, tighten: boolean): void => {
  let fd: number
  try {
    fd = openSync(folder, constants.O_RDONLY | DIRECTORY | NO_FOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ELOOP" || code === "EMLINK") throw refuseLink(folder)
    if (code === "ENOTDIR") assertSafePath(folder, "folder")
    throw error
  }
  try {
    const stats = fstatSync(fd)
    const problem = problemOf(folder, stats, "folder")
    if (problem !== undefined) throw problem
    if (tighten) tightenOpen(fd, stats.mode)
  } finally {
    closeSync(fd)
  }
}

/**
 * A memory folder is made in its project, never with it: a project folder that is missing was named by a path that
 * is not the project's. A folder whose name is not UTF-8 (`caf\xe9`, from an old archive) reaches Node as a name with
 * U+FFFD in its place, and its memory folder was made, with that phantom project folder, beside the real one.
 */
const assertProjectExists = (folder: string): void => {
  const parts = folder.split(sep)
  const at = parts.indexOf(MEMORY_FOLDER)
  if (at < 0) return
  const project = parts.slice(0, at).join(sep) || sep
  if (statSync(project, { throwIfNoEntry: false })?.isDirectory() === true) return
  throw new Error(
    `the project folder ${
      JSON.stringify(project)
    } does not exist (a name that is not UTF-8 cannot be named exactly): ` +
      "no memory folder is made for it"
  )
}

/**
 * Makes sure `folder` is a folder of this user's that no link leads to, creating it (and missing parents)
 * 0700. A folder ralph-mem owns (a `.ralph-mem` folder and everything in it) is tightened to 0700 when it
 * exists already; a folder the user chose (RALPH_MEM_DB's, an --out) is left as it is.
 */
export const ensurePrivateFolder = (folder: string): void => {
  assertProjectExists(folder)
  const missing: Array<string> = []
  for (let dir = folder; lstatSync(dir, { throwIfNoEntry: false }) === undefined; dir = dirname(dir)) {
    missing.unshift(dir)
    if (dirname(dir) === dir) break
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: PRIVATE_FOLDER })
    } catch (error) {
      // Hooks of a new project run at once: a folder another process made meanwhile is checked below.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
  checkFolder(folder, missing.includes(folder) || isInsideMemoryFolder(folder))
}

/** A `.ralph-mem` folder, or anything below one. */
export const isInsideMemoryFolder = (path: string): boolean => path.split(sep).includes(MEMORY_FOLDER)

/**
 * Makes `folder`, at or below a `.ralph-mem` folder, a private folder, walking down from the memory folder
 * one step at a time: each step is created 0700 if missing and checked before the next, so a link
 * anywhere below the memory folder stops the walk before anything is created through it.
 */
export const ensureMemorySubfolder = (folder: string): void => {
  const parts = folder.split(sep)
  const at = parts.indexOf(MEMORY_FOLDER)
  if (at < 0) return ensurePrivateFolder(folder)
  let dir = parts.slice(0, at + 1).join(sep)
  ensureFolder(dir)
  for (const part of parts.slice(at + 1)) {
    if (part === "") continue
    dir = join(dir, part)
    try {
      mkdirSync(dir, { mode: PRIVATE_FOLDER })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    checkFolder(dir, true)
  }
}

/**
 * Makes a folder to write files into: below a memory folder, private and checked step by step; elsewhere
 * (a folder the user chose: `--out`), created as any folder of theirs.
 */
export const ensureOutputFolder = (folder: string): void => {
  if (isInsideMemoryFolder(folder)) ensureMemorySubfolder(folder)
  else mkdirSync(folder, { recursive: true })
}

/**
 * Makes sure the memory folder is a private folder of this user's; a `.ralph-mem` folder also gets a
 * `.gitignore` of `*`, which keeps memory out of commits even when the project's own .gitignore forgets
 * it (created only when absent, never through a link).
 */
export const ensureFolder = (folder: string): void => {
  ensurePrivateFolder(folder)
  if (basename(folder) === MEMORY_FOLDER) createPrivateFile(join(folder, ".gitignore"), "*\n")
}
