/**
 * The memory tools' connection to the database, held open between calls (a search on a warm connection
 * costs a fraction of one that opens the file) and checked at every call: other processes back it up,
 * compact, forget and replay in place, which SQLite shows this connection as they commit, but a restore
 * replaces the file, and a connection left on the old file would read a database that is no longer
 * there. The file's identity (device and inode) is compared before each call; when it changed, or the
 * file is gone, the connection is closed and the file opened again.
 */
import { type MemoryStore, openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { statSync } from "node:fs"

type OpenFailure = Effect.Error<ReturnType<typeof openMemory>>

const identityOf = (path: string): string | undefined => {
  const stat = statSync(path, { throwIfNoEntry: false })
  return stat === undefined ? undefined : `${stat.dev}:${stat.ino}`
}

export interface MemoryConnection {
  readonly path: string
  /**
   * The memory as the file is now. Without `create`, a database that does not exist is not made:
   * reading an empty memory needs no file.
   */
  readonly current: (options: { readonly create: boolean }) => Effect.Effect<MemoryStore | undefined, OpenFailure>
  /** Closes the connection (the process is about to exit); the next call would open it again. */
  readonly close: () => void
}

export const memoryConnection = (path: string): MemoryConnection => {
  let held: { readonly memory: MemoryStore; readonly identity: string | undefined } | undefined
  const close = () => {
    if (held?.memory.db.open === true) held.memory.db.close()
    held = undefined
  }
  return {
    path,
    close,
    current: ({ create }) =>
      Effect.suspend(() => {
        const identity = identityOf(path)
        if (held !== undefined && identity !== undefined && held.identity === identity) {
          return Effect.succeed(held.memory)
        }
        close()
        if (identity === undefined && !create) return Effect.succeed(undefined)
        return Effect.map(openMemory({ path }), (memory) => {
          // Read after opening: a file replaced in between is seen at the next call, and opened again then.
          held = { memory, identity: identityOf(path) }
          return memory
        })
      })
  }
}
