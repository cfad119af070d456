/**
 * Erasing what a forget removed from every file beside the log. The log and its read models are
 * redacted in the forget's transaction (secure delete zeroes what they held); what is left:
 *   - the WAL, and the database pages the WAL has not yet replaced: a checkpoint that truncates the WAL.
 *     While another process reads, it cannot complete: the erasure is then pending, a marker says so
 *     (`status`, `doctor`), and the next process that finds no reader finishes it;
 *   - damaged copies set aside by a restore: deleted (their readable events were salvaged then);
 *   - exports and saved plans: the forgotten text in them is replaced by `[forgotten]`; what cannot be read there
 *     (not a regular file, too large) is reported, not skipped in silence.
 * Backups are replaced by one taken after the forget (the forget command does it).
 */
import { type SqliteDatabase, writeSideFile } from "@ralph-mem/events"
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync
} from "node:fs"
import { basename, dirname, join } from "node:path"

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
/**
 * The largest file a forget reads, and the most it reads in all. These folders can come with a project's files (a
 * cloned repository, an archive): a planted sparse file costs no disk and would hold the forget for as long as it
 * takes to read. An export of a memory is far smaller; a larger file is reported as not checked, never skipped in
 * silence.
 */
export const SCRUB_FILE_LIMIT_BYTES = 1024 * 1024 * 1024

/** The most a forget reads of one file, and in all (`SCRUB_LIMITS`). */
export interface ScrubLimits {
  readonly fileBytes: number
  readonly totalBytes: number
}

const SCRUB_LIMITS: ScrubLimits = { fileBytes: SCRUB_FILE_LIMIT_BYTES, totalBytes: 4 * SCRUB_FILE_LIMIT_BYTES }
/** Bytes read at a time: a file is never held whole. */
const SCRUB_CHUNK_BYTES = 1024 * 1024
const REPLACEMENT = Buffer.from("[forgotten]")
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0

/** A file of these folders the forget did not look into, and why: copies of the text may remain in it. */
export interface FileNotChecked {
  readonly file: string
  readonly reason: string
  /** Its size, when it was not read for its size. */
  readonly bytes?: number
}

export interface DerivedFilesScrub {
  /** Files in which the forgotten text was replaced. */
  readonly scrubbed: Array<string>
  readonly notChecked: Array<FileNotChecked>
}

const kindOf = (stat: Stats): string =>
  stat.isSymbolicLink()
    ? "a symbolic link, not followed"
    : stat.isFIFO()
    ? "a FIFO, not a regular file"
    : stat.isSocket()
    ? "a socket, not a regular file"
    : stat.isBlockDevice() || stat.isCharacterDevice()
    ? "a device, not a regular file"
    : "not a regular file"

const errorText = (error: unknown): string => {
  const e = error as { code?: unknown; message?: unknown }
  return typeof e.code === "string" ? e.code : String(e.message ?? error)
}

/**
 * The regular files under `folder` (never through a link), and every other entry as not checked. A folder stack, not
 * recursion: a planted tree however deep cannot overflow it.
 */
const walkDerived = (folder: string, notChecked: Array<FileNotChecked>): Array<{ path: string; stat: Stats }> => {
  const top = lstatSync(folder, { throwIfNoEntry: false })
  if (top === undefined) return []
  if (!top.isDirectory()) {
    notChecked.push({ file: folder, reason: kindOf(top) })
    return []
  }
  const files: Array<{ path: string; stat: Stats }> = []
  const folders = [folder]
  for (let dir = folders.pop(); dir !== undefined; dir = folders.pop()) {
    let names: Array<string>
    try {
      names = readdirSync(dir).sort()
    } catch (error) {
      notChecked.push({ file: dir, reason: `a folder that could not be listed (${errorText(error)})` })
      continue
    }
    for (const name of names) {
      const path = join(dir, name)
      let stat: Stats | undefined
      try {
        stat = lstatSync(path, { throwIfNoEntry: false })
      } catch (error) {
        notChecked.push({ file: path, reason: errorText(error) })
        continue
      }
      if (stat === undefined) continue
      if (stat.isDirectory()) folders.push(path)
      else if (stat.isFile()) files.push({ path, stat })
      else notChecked.push({ file: path, reason: kindOf(stat) })
    }
  }
  return files
}

/**
 * Reads the first `size` bytes of `fd` a chunk at a time and finds the needles in them, leftmost first (the longest
 * of those starting at one place). With `write`, the bytes are passed on with each match replaced by `[forgotten]`;
 * without, it stops at the first match. The last `longest - 1` bytes of a chunk are kept for the next one, so a
 * match that runs across two chunks is found whole. True when a needle was found.
 */
export const replaceInFile = (
  fd: number,
  size: number,
  needles: ReadonlyArray<Buffer>,
  write?: (bytes: Buffer) => void,
  chunkBytes = SCRUB_CHUNK_BYTES
): boolean => {
  const longest = Math.max(...needles.map((n) => n.length))
  const chunk = Buffer.alloc(chunkBytes)
  let carry = Buffer.alloc(0)
  let found = false
  for (let position = 0;;) {
    const read = position < size ? readSync(fd, chunk, 0, Math.min(chunkBytes, size - position), position) : 0
    position += read
    // A file that shrank while it was read ends where it ends.
    const end = read === 0 || position >= size
    const window = carry.length === 0 ? chunk.subarray(0, read) : Buffer.concat([carry, chunk.subarray(0, read)])
    // A match starting here or later may run into bytes not read yet: those places wait for the next chunk.
    const settled = end ? window.length : Math.max(0, window.length - (longest - 1))
    // Where each needle next occurs (-1: nowhere more), looked up again only once passed.
    const next = needles.map((needle) => window.indexOf(needle))
    let at = 0
    for (;;) {
      let best = -1
      let bestLength = 0
      for (let k = 0; k < needles.length; k++) {
        if (next[k]! !== -1 && next[k]! < at) next[k] = window.indexOf(needles[k]!, at)
        const i = next[k]!
        if (i === -1 || i >= settled) continue
        if (best === -1 || i < best || (i === best && needles[k]!.length > bestLength)) {
          best = i
          bestLength = needles[k]!.length
        }
      }
      if (best === -1) break
      found = true
      if (write === undefined) return true
      write(window.subarray(at, best))
      write(REPLACEMENT)
      at = best + bestLength
    }
    const kept = Math.max(at, settled)
    write?.(window.subarray(at, kept))
    if (end) return found
    // A copy: the chunk's buffer is read into again.
    carry = Buffer.from(window.subarray(kept))
  }
}

const writeAll = (fd: number, bytes: Buffer): void => {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done)
}

/**
 * Copies `from` over the file `path` names, in place: the file keeps its inode, so every other name it has (a hard
 * link) shows the new bytes too. True when done; false when `path` no longer names the file that was read.
 */
const copyInPlace = (from: string, path: string, stat: Stats): boolean => {
  const source = openSync(from, constants.O_RDONLY | NO_FOLLOW)
  try {
    const target = openSync(path, constants.O_WRONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0))
    try {
      const opened = fstatSync(target)
      if (!opened.isFile() || opened.ino !== stat.ino || opened.dev !== stat.dev) return false
      const chunk = Buffer.alloc(SCRUB_CHUNK_BYTES)
      let position = 0
      for (let read = readSync(source, chunk); read > 0; read = readSync(source, chunk)) {
        for (let done = 0; done < read;) done += writeSync(target, chunk, done, read - done, position + done)
        position += read
      }
      ftruncateSync(target, position)
      return true
    } finally {
      closeSync(target)
    }
  } finally {
    closeSync(source)
  }
}

/**
 * Writes the file again with the needles replaced: into a new file beside it, put in its place only once whole. A
 * full disk or any other failure leaves the file as it was. A file with other names (hard links: `ln` by the user, or
 * an archive's) is then written over in place instead, so that none of its names keeps the text; should that fail
 * part way, the new file still takes this name, and the error says the other names may not have been rewritten.
 */
const rewriteWithout = (path: string, fd: number, stat: Stats, needles: ReadonlyArray<Buffer>): void => {
  const temporary = join(
    dirname(path),
    `.${basename(path)}.forget-${process.pid}-${Math.random().toString(36).slice(2)}`
  )
  const out = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600)
  try {
    try {
      replaceInFile(fd, stat.size, needles, (bytes) => writeAll(out, bytes))
      fchmodSync(out, stat.mode & 0o777)
    } finally {
      closeSync(out)
    }
    if (stat.nlink > 1) {
      try {
        if (copyInPlace(temporary, path, stat)) {
          rmSync(temporary, { force: true })
          return
        }
      } catch (error) {
        renameSync(temporary, path)
        throw new Error(`its ${stat.nlink - 1} other name(s) (hard links) may keep the text: ${errorText(error)}`)
      }
    }
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

/**
 * Replaces the forgotten texts (as written, and as JSON writes them) by `[forgotten]` in the files exported from
 * memory beside the database. Byte for byte: the rest of a file, text or not, is kept as it was. Only regular files
 * are read, never through a link (a FIFO would hold the forget until someone wrote to it, a link to /dev/zero would
 * never end), and each in bounded memory. Whatever it could not look into is returned as not checked, never thrown:
 * the forget is already committed when this runs, and must still say what it did not reach.
 */
export const scrubDerivedFiles = (
  databasePath: string,
  texts: ReadonlyArray<string>,
  limits: ScrubLimits = SCRUB_LIMITS
): DerivedFilesScrub => {
  const needles = [
    ...new Set(
      texts.filter((t) => t.trim().length >= SHORTEST_TEXT).flatMap((t) => [t, JSON.stringify(t).slice(1, -1)])
    )
  ].map((text) => Buffer.from(text, "utf8"))
  const scrubbed: Array<string> = []
  const notChecked: Array<FileNotChecked> = []
  if (needles.length === 0) return { scrubbed, notChecked }
  let budget = limits.totalBytes
  for (const folder of DERIVED_FOLDERS) {
    for (const { path, stat } of walkDerived(join(dirname(databasePath), folder), notChecked)) {
      if (stat.size > limits.fileBytes || stat.size > budget) {
        notChecked.push({
          file: path,
          bytes: stat.size,
          reason: stat.size > limits.fileBytes
            ? `larger than the ${limits.fileBytes} bytes a forget reads of one file`
            : `past the ${limits.totalBytes} bytes a forget reads in all`
        })
        continue
      }
      let fd: number
      try {
        // Non-blocking: a FIFO put in the file's place since it was listed cannot hold the open.
        fd = openSync(path, constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0))
      } catch (error) {
        notChecked.push({ file: path, reason: `could not be opened (${errorText(error)})` })
        continue
      }
      try {
        const opened = fstatSync(fd)
        if (!opened.isFile() || opened.ino !== stat.ino || opened.dev !== stat.dev) {
          notChecked.push({ file: path, reason: "replaced by something else while the forget ran" })
          continue
        }
        budget -= stat.size
        if (!replaceInFile(fd, stat.size, needles)) continue
        rewriteWithout(path, fd, stat, needles)
        scrubbed.push(path)
      } catch (error) {
        notChecked.push({ file: path, bytes: stat.size, reason: `could not be read or written (${errorText(error)})` })
      } finally {
        closeSync(fd)
      }
    }
  }
  return { scrubbed, notChecked }
}
