/** The event log as an Effect service, opened for the life of a scope and closed with it. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { catalog, type RalphMemEvent, redactedBy } from "./catalog/index.ts"
import { openDatabase, type OpenOptions } from "./database.ts"
import { redactStrings } from "./privacy/filter.ts"
import { type AppendListener, type EventLog, makeEventLog } from "./log.ts"

export class EventStore extends Context.Service<EventStore, EventLog<RalphMemEvent>>()("ralph-mem/EventStore") {}

export interface EventStoreOptions extends OpenOptions {
  readonly path: string
  readonly listeners?: ReadonlyArray<AppendListener<RalphMemEvent>>
}

/** Opens the database at `path` and yields the log, closing the database when the scope ends. */
export const acquireEventStore = (options: EventStoreOptions) =>
  Effect.acquireRelease(
    Effect.map(openDatabase(options.path, options), (db) =>
      makeEventLog(db, catalog, { redacts: redactedBy, sanitize: redactStrings, ...(options.listeners === undefined ? {} : { listeners: options.listeners }) })
    ),
    (log) => Effect.sync(() => log.db.close())
  )

export const eventStoreLayer = (options: EventStoreOptions) => Layer.effect(EventStore, acquireEventStore(options))
