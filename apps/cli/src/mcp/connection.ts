/**
 * The memory tools' connection to the database, held open between calls (a search on a warm connection
 * costs a fraction of one that opens the file) and checked at every call: other processes back it up,
 * compact, forget and replay in place, which SQLite shows this connection as they commit, but a restore
 * replaces the file, and a connection left on the old file would read a database that is no longer
 * there. The file's identity (device and inode) is compared before each call; when it changed, or the
 * file is gone, the connection is closed and the file opened again.
 *
 * Every call appends its record, and SQLite's automatic checkpoint would copy the write-ahead log into the
 * database inside whichever call crosses its threshold, every hundred and some calls: that call would wait for
 * the copy and its fsync. This connection checkpoints instead once the server has been idle for a moment, which
 * between Claude's tool calls (a model turn apart) it nearly always is; a long enough run of calls with no pause
 * checkpoints after its answer, so the log never grows without bound.
 */
import { type MemoryStore, openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { statSync } from "node:fs"

type OpenFailure = Effect.Error<ReturnType<typeof openMemory>>

/** The WAL is checkpointed once no call came for this long after one that wrote. */
const IDLE_CHECKPOINT_MS = 250
/**
 * Calls that wrote with no pause between them, after which the WAL is checkpointed anyway: about as many pages
 * as SQLite's automatic checkpoint lets the log hold, several times over.
 */
const MAX_WRITES_BETWEEN_CHECKPOINTS = 500

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
  /** A call wrote to the memory: the WAL is checkpointed when the server is next idle. */
  readonly wrote: () => void
  /** Closes the connection (the process is about to exit); the next call would open it again. */
  readonly close: () => void
}

export const memoryConnection = (
  path: string,
  /** A checkpoint failed: the server answers on, and says so where `doctor` looks. */
  onCheckpointFailure: (reason: string) => void
): MemoryConnection => {
  let held: { readonly memory: MemoryStore; readonly identity: string | undefined } | undefined
  let idle: NodeJS.Timeout | undefined
  let writes = 0
  const checkpoint = () => {
    clearTimeout(idle)
    idle = undefined
    writes = 0
    if (held?.memory.db.open !== true) return
    try {
      // PASSIVE waits for no reader nor writer: what a hook holds is copied at a later checkpoint.
      held.memory.db.pragma("wal_checkpoint(PASSIVE)")
    } catch (error) {
      onCheckpointFailure(`could not checkpoint the write-ahead log: ${String(error)}`)
    }
  }
  const close = () => {
    clearTimeout(idle)
    idle = undefined
    if (held?.memory.db.open === true) held.memory.db.close()
    held = undefined
  }
  return {
    path,
    close,
    wrote: () => {
      clearTimeout(idle)
      // A timer, even for a long run of calls: the call's answer is written first. Unref'd: a pending checkpoint
      // never keeps the process alive (SQLite checkpoints as the last connection to the file closes).
      const delay = ++writes >= MAX_WRITES_BETWEEN_CHECKPOINTS ? 0 : IDLE_CHECKPOINT_MS
      idle = setTimeout(checkpoint, delay).unref()
    },
    current: ({ create }) =>
      Effect.suspend(() => {
        const identity = identityOf(path)
        if (held !== undefined && identity !== undefined && held.identity === identity) {
          return Effect.succeed(held.memory)
        }
        close()
        if (identity === undefined && !create) return Effect.succeed(undefined)
        return Effect.map(openMemory({ path }), (memory) => {
          memory.db.pragma("wal_autocheckpoint = 0")
          // Read after opening: a file replaced in between is seen at the next call, and opened again then.
          held = { memory, identity: identityOf(path) }
          return memory
        })
      })
  }
}
