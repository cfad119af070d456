/**
 * The memory store: one open SQLite database holding the event log and the read models, with every
 * projection wired into the log's appends (`db`, `log`, `runner`), as the CLI and the hooks open it.
 * Opening catches up any projection that is behind or out of date, so readers see a current state.
 */
import {
  catalog,
  DatabaseUnusable,
  type EventLog,
  makeEventLog,
  memoryIdOf,
  openDatabase,
  type OpenOptions,
  type RalphMemEvent,
  redactedBy,
  redactStrings,
  type SqliteDatabase,
  StorageError,
  storageError,
  UndecodableEvent,
  writeHeadMark
} from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { allProjections } from "./all.ts"
import type { Projection } from "./projection.ts"
import { makeProjectionRunner, type ProjectionRunner } from "./runner.ts"

export interface MemoryStore {
  readonly path: string
  readonly db: SqliteDatabase
  readonly log: EventLog<RalphMemEvent>
  readonly runner: ProjectionRunner
}

export interface MemoryStoreOptions extends OpenOptions {
  readonly path: string
  readonly projections?: ReadonlyArray<Projection>
}

/** Opens the database, brings every projection up to date, and wires them into appends. */
export const openMemory = (
  options: MemoryStoreOptions
): Effect.Effect<MemoryStore, DatabaseUnusable | StorageError | UndecodableEvent> =>
  Effect.flatMap(openDatabase(options.path, options), (db) =>
    Effect.try({
      try: (): MemoryStore => {
        const runner = makeProjectionRunner(db, options.projections ?? allProjections)
        runner.prepare()
        const log = makeEventLog(db, catalog, {
          listeners: [runner.listener],
          redacts: redactedBy,
          sanitize: redactStrings,
          ...(options.path === ":memory:" ? {} : {
            committed: (newest) =>
              writeHeadMark(options.path, {
                position: newest.position,
                eventId: newest.eventId,
                memory: memoryIdOf(db)
              })
          })
        })
        return { path: options.path, db, log, runner }
      },
      catch: (error) => {
        db.close()
        return error instanceof UndecodableEvent ? error : storageError("bring projections up to date", error)
      }
    }))

/** Opens the memory for the life of a scope. */
export const acquireMemory = (options: MemoryStoreOptions) =>
  Effect.acquireRelease(openMemory(options), (memory) => Effect.sync(() => memory.db.close()))
