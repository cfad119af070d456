/**
 * The head mark: the position and id of the newest event an append committed, kept in a small file
 * beside the database (`<database>.head`). Damage that drops committed events without making the file
 * unreadable (a WAL cut short, a flipped byte in a WAL frame: SQLite stops at the last frame that
 * checks out) leaves the log looking whole; the mark still names the lost event, so the next process
 * that opens the log sees it is missing. Written after each append (in place: 256 bytes), never fsynced:
 * the commit was, so the mark can lag behind the log but not run ahead of what was committed.
 * A read is not atomic against another process's write of the same bytes: under sixteen writers, a process
 * read half of one mark and half of the next, an event id no append ever made, and reported a loss that never
 * happened (the load test). Each mark carries a check of its fields; one that fails it was torn, and is
 * read as no mark.
 * A mark names the memory it was written for (the id the database keeps, memory-origin.ts): the file can come with
 * a project's files (an archive, a repository that tracks it), and a mark written for another memory, or by no
 * ralph-mem, named events this one never had, reported as lost. Only a mark that names this database's id is read
 * for it; any other is ignored (doctor notes it) and replaced by the next append. A database without an id (made
 * before ids were kept) reads marks that name none, as before.
 */
import { closeSync } from "node:fs"
import { openSideFile, openSideFileToRead, readSideFileAt, writeSideFileAt } from "./side-files.ts"

export interface HeadMark {
  readonly position: number
  readonly eventId: string
  /** The id of the memory it was written for; none in a mark of a memory without one, or of an earlier ralph-mem. */
  readonly memory?: string | undefined
}

/** Room for the fields with the memory's id; a shorter mark of an earlier ralph-mem is read all the same. */
const MARK_BYTES = 256

/** FNV-1a of the mark's fields, in base 36. */
const checkOf = (position: number, eventId: string, memory: string | undefined): string => {
  let hash = 0x811c9dc5
  for (const char of `${position}:${eventId}${memory === undefined ? "" : `:${memory}`}`) {
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0
  }
  return hash.toString(36)
}

export const headMarkPath = (databasePath: string): string => `${databasePath}.head`

/** The mark beside the database as written, whichever memory it names; undefined when there is none or it is torn. */
export const readHeadMark = (databasePath: string): HeadMark | undefined => {
  try {
    const fd = openSideFileToRead(headMarkPath(databasePath))
    try {
      const mark = JSON.parse(readSideFileAt(fd, MARK_BYTES, 0).toString("utf8").trim()) as Partial<
        HeadMark & { check: string }
      >
      if (typeof mark.position !== "number" || typeof mark.eventId !== "string") return undefined
      if (mark.memory !== undefined && typeof mark.memory !== "string") return undefined
      // A mark written before the check (an earlier ralph-mem) has none.
      if (mark.check !== undefined && mark.check !== checkOf(mark.position, mark.eventId, mark.memory)) {
        return undefined
      }
      return { position: mark.position, eventId: mark.eventId, memory: mark.memory }
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
}

export interface OwnHeadMark {
  /** The mark, when it was written for this memory. */
  readonly mark?: HeadMark
  /** Why the mark beside the database is not this memory's, when there is one that is not. */
  readonly foreign?: string
}

/** The mark beside the database, if it names `memoryId`, the id the database holds (see above). */
export const readOwnHeadMark = (databasePath: string, memoryId: string | undefined): OwnHeadMark => {
  const mark = readHeadMark(databasePath)
  if (mark === undefined || mark.memory === memoryId) return mark === undefined ? {} : { mark }
  return {
    foreign: mark.memory === undefined
      ? "names no memory (written by an earlier ralph-mem, or not by ralph-mem)"
      : memoryId === undefined
      ? `names memory ${mark.memory}, and this database holds no id`
      : `names memory ${mark.memory}, not this one (${memoryId})`
  }
}

/**
 * Moves the mark to `mark` unless a mark of the same memory already names a later event (another process's append
 * that finished first); a mark of another memory is replaced. Never throws: a mark not written only makes a later
 * loss harder to see.
 */
export const writeHeadMark = (databasePath: string, mark: HeadMark, force = false): void => {
  try {
    if (!force && (readOwnHeadMark(databasePath, mark.memory).mark?.position ?? 0) > mark.position) return
    const fd = openSideFile(headMarkPath(databasePath), true)
    try {
      writeSideFileAt(
        fd,
        Buffer.from(
          JSON.stringify({
            position: mark.position,
            eventId: mark.eventId,
            ...(mark.memory === undefined ? {} : { memory: mark.memory }),
            check: checkOf(mark.position, mark.eventId, mark.memory)
          }).padEnd(MARK_BYTES, " ")
        ),
        0
      )
    } finally {
      closeSync(fd)
    }
  } catch {
    // Nothing to do: the log itself is fine.
  }
}
