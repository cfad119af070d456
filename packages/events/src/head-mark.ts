/**
 * The head mark: the position and id of the newest event an append committed, kept in a small file
 * beside the database (`<database>.head`). Damage that drops committed events without making the file
 * unreadable (a WAL cut short, a flipped byte in a WAL frame: SQLite stops at the last frame that
 * checks out) leaves the log looking whole; the mark still names the lost event, so the next process
 * that opens the log sees it is missing. Written after each append (in place: 64 bytes), never fsynced:
 * the commit was, so the mark can lag behind the log but not run ahead of what was committed.
 */
import { closeSync } from "node:fs"
import { openSideFile, openSideFileToRead, readSideFileAt, writeSideFileAt } from "./side-files.ts"

export interface HeadMark {
  readonly position: number
  readonly eventId: string
}

const MARK_BYTES = 64

export const headMarkPath = (databasePath: string): string => `${databasePath}.head`

export const readHeadMark = (databasePath: string): HeadMark | undefined => {
  try {
    const fd = openSideFileToRead(headMarkPath(databasePath))
    try {
      const mark = JSON.parse(readSideFileAt(fd, MARK_BYTES, 0).toString("utf8").trim()) as Partial<HeadMark>
      return typeof mark.position === "number" && typeof mark.eventId === "string"
        ? { position: mark.position, eventId: mark.eventId }
        : undefined
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
        Buffer.from(JSON.stringify({ position: mark.position, eventId: mark.eventId }).padEnd(MARK_BYTES, " ")),
        0
      )
    } finally {
      closeSync(fd)
    }
  } catch {
    // Nothing to do: the log itself is fine.
  }
}
