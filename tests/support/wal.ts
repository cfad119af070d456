/**
 * How far a database's write-ahead log is checkpointed, read from its WAL index (the `-shm` file, whose layout
 * SQLite documents in walformat.html) without opening a connection, which could itself checkpoint.
 */
import { readFileSync } from "node:fs"
import { endianness } from "node:os"

export interface WalProgress {
  /** Frames the log holds (the index header's mxFrame). */
  readonly frames: number
  /** Of them, those copied into the database (the checkpoint info's nBackfill). */
  readonly checkpointed: number
}

/** The index is in the machine's byte order; the header's first copy is read (it is written last). */
export const walProgress = (databasePath: string): WalProgress => {
  const index = readFileSync(`${databasePath}-shm`).subarray(0, 136)
  const read = (offset: number) => (endianness() === "LE" ? index.readUInt32LE(offset) : index.readUInt32BE(offset))
  return { frames: read(16), checkpointed: read(96) }
}
