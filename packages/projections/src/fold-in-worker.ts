/**
 * A rebuild's fold on two threads. About half of a replay is JavaScript (reading and decoding events,
 * the folds, splitting identifiers for the full-text index) and half is SQLite executing the changes.
 * A worker thread (fold-worker.ts) does the first half and sends the changes, in log order; this thread
 * executes them inside the rebuild's transaction, so atomicity and the result are those of a fold on
 * one thread: the same statements, in the same order, on the same connection.
 *
 * Only for projections the worker can load by name (`allProjections`) and a log in a file it can open.
 */
import { type SqliteDatabase, UndecodableEvent } from "@ralph-mem/events"
import type { Statement } from "better-sqlite3"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { MessagePort } from "node:worker_threads"
import { allProjections } from "./all.ts"
import { newChannelSignal, receive, workerThreads } from "./fold-channel.ts"
import type { Projection, SqlValue } from "./projection.ts"

export interface FoldWorkerData {
  readonly path: string
  readonly projections: ReadonlyArray<string>
  /** The worker folds the events after this position, up to `until` (inclusive). */
  readonly after: number
  readonly until: number
  readonly port: MessagePort
  readonly signal: Int32Array
}

export type FoldMessage =
  /**
   * `statements` are the SQL texts first used in this message, numbered on from the earlier ones;
   * `changes` is flat (one array clones and reads faster than thousands): statement number, number of
   * parameters, the parameters, and again.
   */
  | {
    readonly kind: "changes"
    readonly events: number
    readonly statements: ReadonlyArray<string>
    readonly changes: ReadonlyArray<SqlValue>
  }
  | { readonly kind: "done" }
  | { readonly kind: "failed"; readonly position: number | null; readonly reason: string }

/** Below this many events, a worker (about a quarter of a second to start) saves little. */
export const PARALLEL_FOLD_FROM_EVENTS = 50_000

/**
 * The worker starts folding after this many events, which the rebuilding thread folds itself while the
 * worker starts (its modules take 50-250 ms to load); the worker's first changes then wait for it.
 */
export const WORKER_HEAD_START = 20_000

/** A worker that sends nothing for this long has failed (its batches take milliseconds). */
const STALL_MS = 30_000

/** The bundle puts the worker next to the CLI's entry, one folder above the chunk this code is in. */
const workerFile = (): URL | undefined => {
  const candidates = [
    new URL("./fold-worker.ts", import.meta.url),
    new URL("./fold-worker.mjs", import.meta.url),
    new URL("../fold-worker.mjs", import.meta.url)
  ]
  return candidates.find((url) => url.protocol === "file:" && existsSync(fileURLToPath(url)))
}

/** Whether the worker can fold `projections` (it knows only the built-in ones) for this database. */
export const canFoldInWorker = (db: SqliteDatabase, projections: ReadonlyArray<Projection>): boolean =>
  !db.memory && db.name !== "" && projections.every((p) => allProjections.includes(p)) && workerFile() !== undefined

export class FoldWorkerFailed extends Error {
  override readonly name = "FoldWorkerFailed"
}

export interface FoldInWorker {
  /**
   * Executes the worker's changes on the database, in log order, inside the caller's transaction, until
   * the worker is done; `onEvents` hears how many events each batch of changes folded.
   */
  readonly drain: (onEvents: (events: number) => void) => void
  /** Ends the worker, done or not. */
  readonly stop: () => void
}

/** Starts a worker folding the log's events in `range` into `projections`. */
export const startFoldInWorker = (
  db: SqliteDatabase,
  projections: ReadonlyArray<Projection>,
  range: { readonly after: number; readonly until: number }
): FoldInWorker => {
  const { MessageChannel, Worker } = workerThreads()
  const { port1, port2 } = new MessageChannel()
  const signal = newChannelSignal()
  const data: FoldWorkerData = {
    path: db.name,
    projections: projections.map((p) => p.name),
    ...range,
    port: port2,
    signal
  }
  // A small young generation: the worker's live data is one page of events and one message, and V8
  // otherwise lets it grow with the allocation rate (tens of MB more on a long replay).
  const worker = new Worker(workerFile()!, {
    workerData: data,
    transferList: [port2],
    resourceLimits: { maxYoungGenerationSizeMb: 16 }
  })
  const drain = (onEvents: (events: number) => void): void => {
    const statements: Array<Statement> = []
    for (;;) {
      const message = receive(port1, signal, STALL_MS) as FoldMessage | undefined
      if (message === undefined) throw new FoldWorkerFailed(`the replay worker sent nothing for ${STALL_MS / 1000} s`)
      switch (message.kind) {
        case "changes":
          for (const text of message.statements) statements.push(db.prepare(text))
          for (let i = 0, changes = message.changes; i < changes.length;) {
            const statement = statements[changes[i] as number]!
            const end = i + 2 + (changes[i + 1] as number)
            statement.run(changes.slice(i + 2, end))
            i = end
          }
          onEvents(message.events)
          break
        case "done":
          return
        case "failed":
          throw message.position === null
            ? new FoldWorkerFailed(`the replay worker failed: ${message.reason}`)
            : new UndecodableEvent({ position: message.position, reason: message.reason })
      }
    }
  }
  const stop = () => {
    port1.close()
    void worker.terminate()
  }
  return { drain, stop }
}
