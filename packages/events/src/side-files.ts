/**
 * The small files ralph-mem keeps beside the database (the spill file, the head mark, the pending
 * erasure marker): every one is opened here, never through a symbolic link, and created private (0600).
 * One place, so the safe file-system module can take it over whole.
 */
import { closeSync, constants, ftruncateSync, openSync, readSync, writeSync } from "node:fs"

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0

/** Opens a side file for reading and writing, creating it (0600) when `create` says so; never follows a link. */
export const openSideFile = (path: string, create: boolean): number =>
  openSync(path, constants.O_RDWR | NO_FOLLOW | (create ? constants.O_CREAT : 0), 0o600)

/** Opens a side file only to read it (a read-only memory folder can still be read); never follows a link. */
export const openSideFileToRead = (path: string): number => openSync(path, constants.O_RDONLY | NO_FOLLOW)

/** Writes `data` at `offset` of an open side file. */
export const writeSideFileAt = (fd: number, data: Uint8Array, offset: number): void => {
  for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done, offset + done)
}

/** Reads `length` bytes at `offset` (fewer at the end of the file). */
export const readSideFileAt = (fd: number, length: number, offset: number): Buffer => {
  const buffer = Buffer.alloc(length)
  let done = 0
  for (let n = -1; n !== 0 && done < length; done += n) n = readSync(fd, buffer, done, length - done, offset + done)
  return buffer.subarray(0, done)
}

/** Replaces a side file's whole content (created 0600 if missing). */
export const writeSideFile = (path: string, data: string | Uint8Array): void => {
  const fd = openSideFile(path, true)
  try {
    const bytes = typeof data === "string" ? Buffer.from(data) : data
    ftruncateSync(fd, 0)
    writeSideFileAt(fd, bytes, 0)
  } finally {
    closeSync(fd)
  }
}
