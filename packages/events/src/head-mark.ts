/**
 * The head mark: the position and id of the newest event an append committed, kept in a small file
 * beside the database (`<database>.head`). Damage that drops committed events without making the file
 * unreadable (a WAL cut short, a flipped byte in a WAL frame: SQLite stops at the last frame that
 * checks out) leaves the log looking whole; the mark still names the lost event, so the next process
 * that opens the log sees it is missing. Written after each append (in place: 128 bytes), never fsynced:
 * the commit was, so the mark can lag behind the log but not run ahead of what was committed.
 * A read is not atomic against another process's write of the same bytes: under sixteen writers, a process
 * read half of one mark and half of the next, an event id no append ever made, and reported a loss that never
 * happened (the load test). Each mark carries a check of its fields; one that fails it was torn, and is
 * read as no mark.
 */
import { closeSync } from "node:fs"
import { openSideFile, openSideFileToRead, readSideFileAt, writeSideFileAt } from "./side-files.ts"

export interface HeadMark {
  readonly position: number
  readonly eventId: string
}

const MARK_BYTES = 128

/** FNV-1a of the mark's fields, in base 36. */
const checkOf = (position: number, eventId: string): string => {
  let hash = 0x811c9dc5
  for (const char of `${position}:${eventId}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0
  return hash.toString(36)
}

export const headMarkPath = (databasePath: string): string => `${databasePath}.head`

export const readHeadMark = (databasePath: string): HeadMark | undefined => {
  try {
    const fd = openSideFileToRead(headMarkPath(databasePath))
    try {
      const mark = JSON.parse(readSideFileAt(fd, MARK_BYTES, 0).toString("utf8").trim()) as Partial<
        HeadMark & { check: string }
      >
      if (typeof mark.position !== "number" || typeof mark.eventId !== "string") return undefined
      // A mark written before the check (an earlier ralph-mem) has none.
      if (mark.check !== undefined && mark.check !== checkOf(mark.position, mark.eventId)) return undefined
      return { position: mark.position, eventId: mark.eventId }
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
}

/**
 * Moves the mark to `mark` unless it already names a later event (another process's append that
 * finished first). Never throws: a mark not written only makes a later loss harder to see.
 */
export const writeHeadMark = (databasePath: string, mark: HeadMark, force = false): void => {
  try {
    if (!force && (readHeadMark(databasePath)?.position ?? 0) > mark.position) return
    const fd = openSideFile(headMarkPath(databasePath), true)
    try {
      writeSideFileAt(
        fd,
        Buffer.from(
          JSON.stringify({
            position: mark.position,
            eventId: mark.eventId,
            check: checkOf(mark.position, mark.eventId)
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
