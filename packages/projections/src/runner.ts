/**
 * Runs projections against one database: inline in every append transaction, catching up at open,
 * re-folding streams after a forget, and rebuilding from the log in one transaction.
 *
 * Everything here is synchronous: it runs inside better-sqlite3 transactions, and throws (a tagged
 * error where the caller can act on it) to roll them back.
 */
import {
  type AppendListener,
  blockReader,
  catalog,
  type DecodedEvent,
  type EventLog,
  makeEventLog,
  nameReader,
  type RalphMemEvent,
  type RecordedEvent,
  type SqliteDatabase,
  UndecodableEvent,
  waitingFairly
} from "@ralph-mem/events"
import type { Statement } from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { canFoldInWorker, PARALLEL_FOLD_FROM_EVENTS, startFoldInWorker, WORKER_HEAD_START } from "./fold-in-worker.ts"
import type { ProjectedEvent, Projection, SqlChange } from "./projection.ts"

const PAGE_SIZE = 1000

/**
 * Applies SQL changes through a cache of prepared statements (a replay runs the same few statements a million
 * times).
 */
export const makeApplier = (db: SqliteDatabase) => {
  const statements = new Map<string, Statement>()
  return (changes: ReadonlyArray<SqlChange>): void => {
    for (const change of changes) {
      let statement = statements.get(change.sql)
      if (statement === undefined) {
        statement = db.prepare(change.sql)
        statements.set(change.sql, statement)
      }
      statement.run(...change.params)
    }
  }
}

/**
 * Decodes a stored event for projecting; redacted events yield nothing, undecodable ones throw. Payloads
 * were validated when appended, so one stored as it is is not checked again (`verify` checks them all).
 */
export const decodeForProjection = (
  recorded: Pick<
    RecordedEvent,
    "position" | "eventId" | "streamId" | "occurredAt" | "type" | "schemaVersion" | "payload" | "redactedBy"
  >
): ProjectedEvent | undefined => {
  if (recorded.redactedBy !== null) return undefined
  const decoded = catalog.decodeStored(recorded.type, recorded.schemaVersion, recorded.payload)
  if (Result.isFailure(decoded)) throw new UndecodableEvent({ position: recorded.position, reason: decoded.failure })
  const { position, eventId, streamId, occurredAt } = recorded
  return { position, eventId, streamId, occurredAt, event: decoded.success }
}

/** Reads events after `position` (up to `until`, inclusive) page by page: constant memory for any log. */
export function* eventsAfter(
  reader: EventLog<RalphMemEvent>,
  position: number,
  query: { readonly streamId?: string; readonly until?: number } = {}
): Generator<RecordedEvent> {
  let after = position
  for (;;) {
    const page = Effect.runSync(
      reader.readPage({
        afterPosition: after,
        pageSize: PAGE_SIZE,
        ...(query.streamId === undefined ? {} : { streamId: query.streamId })
      })
    )
    for (const recorded of page) {
      if (query.until !== undefined && recorded.position > query.until) return
      yield recorded
    }
    if (page.length < PAGE_SIZE) return
    after = page.at(-1)!.position
  }
}

/** One page of the log, as folds see it: how many events it held, and those not redacted, decoded. */
export interface ProjectedPage {
  readonly read: number
  readonly events: ReadonlyArray<ProjectedEvent>
}

type FoldRow = [
  position: number,
  eventId: string,
  stream: number,
  type: number,
  schemaVersion: number,
  payload: string | null,
  occurredAt: number,
  redactedBy: string | null,
  blockId: number | null,
  blockSlot: number | null
]

/**
 * The events after `after`, up to `until` (inclusive), page by page, decoded for projecting: what a
 * replay and a catch-up fold. Only the columns folds use, read as arrays: reading row objects and
 * parsing every event's metadata was a third of a replay's JavaScript.
 */
export function* projectedPages(
  db: SqliteDatabase,
  range: { readonly after: number; readonly until: number }
): Generator<ProjectedPage> {
  // The rows themselves, not the events view: a packed payload is taken from its block, and names from
  // memory, without a SQL function call or a join per row.
  const page = db
    .prepare<[number, number, number], FoldRow>(
      `SELECT position, event_id, stream, type, schema_version, payload, occurred_at, redacted_by, block_id, block_slot
       FROM event_rows
       WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`
    )
    .raw()
  const packed = blockReader(db)
  const names = nameReader(db)
  for (let after = range.after;;) {
    const rows = page.all(after, range.until, PAGE_SIZE)
    const events: Array<ProjectedEvent> = []
    for (
      const [position, eventId, stream, typeRef, schemaVersion, payload, occurredAt, redactedBy, blockId, slot] of rows
    ) {
      const json = payload ?? packed(blockId!, slot!).payload
      const event = decodeForProjection({
        position,
        eventId,
        streamId: names.stream(stream),
        occurredAt,
        type: names.type(typeRef),
        schemaVersion,
        payload: JSON.parse(json),
        redactedBy
      })
      if (event !== undefined) events.push(event)
    }
    yield { read: rows.length, events }
    if (rows.length < PAGE_SIZE) return
    after = rows.at(-1)![0]
  }
}

/** The names of the tables, views, virtual tables, indexes and triggers a projection's DDL creates. */
const objectsOf = (projection: Projection): Array<string> =>
  [...`${projection.create}\n${projection.finish}`.matchAll(
    /CREATE\s+(?:VIRTUAL\s+TABLE|TABLE|VIEW|INDEX|TRIGGER)\s+(\w+)/gi
  )].map((m) => m[1]!)

/**
 * Drops everything a projection created, in this version or an earlier one (whose view may have been a
 * table, say): each object as the kind it really is, triggers and views first.
 */
const dropObjects = (db: SqliteDatabase, projection: Projection): void => {
  const names = [...objectsOf(projection), ...(projection.retired ?? [])]
  const objects = db
    .prepare(
      `SELECT type, name FROM sqlite_schema WHERE name IN (SELECT value FROM json_each(?))
       ORDER BY CASE type WHEN 'trigger' THEN 0 WHEN 'view' THEN 1 WHEN 'index' THEN 2 ELSE 3 END`
    )
    .all(JSON.stringify(names)) as Array<{ type: string; name: string }>
  for (const { type, name } of objects) db.exec(`DROP ${type.toUpperCase()} IF EXISTS ${name}`)
}

export interface Checkpoint {
  readonly version: number
  readonly position: number
}

export interface RebuildProgress {
  readonly done: number
  readonly total: number
}

export interface RebuildReport {
  readonly projections: ReadonlyArray<string>
  readonly events: number
  /** 2 when a worker thread folded the log while this one wrote (a long log), else 1. */
  readonly threads: 1 | 2
  readonly ms: number
  readonly eventsPerSecond: number
}

export interface ProjectionRunner {
  readonly projections: ReadonlyArray<Projection>
  /** Creates missing projections, rebuilds those whose version changed, and catches up those behind. */
  readonly prepare: () => void
  /** The inline listener to give the event log. */
  readonly listener: AppendListener<RalphMemEvent>
  /** Rebuilds the named projections (all by default) from the log, in one transaction. */
  readonly rebuild: (names?: ReadonlyArray<string>, onProgress?: (progress: RebuildProgress) => void) => RebuildReport
  readonly checkpoint: (name: string) => Checkpoint | undefined
}

export const makeProjectionRunner = (db: SqliteDatabase, projections: ReadonlyArray<Projection>): ProjectionRunner => {
  db.exec(`CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name TEXT PRIMARY KEY, version INTEGER NOT NULL, position INTEGER NOT NULL
  ) STRICT`)
  const apply = makeApplier(db)
  const reader = makeEventLog(db, catalog)
  const readCheckpoint = db.prepare<[string], Checkpoint>(
    "SELECT version, position FROM projection_checkpoints WHERE name = ?"
  )
  const writeCheckpoint = db.prepare(
    `INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, position = excluded.position`
  )
  const head = db.prepare<[], number>("SELECT coalesce(max(position), 0) FROM events").pluck()
  const streamsOf = (eventIds: ReadonlyArray<string>): Array<string> =>
    eventIds.length === 0
      ? []
      : (db
        .prepare(`SELECT DISTINCT stream_id FROM events WHERE event_id IN (${eventIds.map(() => "?").join(", ")})`)
        .pluck()
        .all(...eventIds) as Array<string>)

  const checkpoint = (name: string) => readCheckpoint.get(name)

  /** After a forget: clear each affected stream and fold what remains of it, up to the forget; then purge. */
  const refold = (projection: Projection, forget: ProjectedEvent) => {
    if (forget.event._tag !== "MemoryForgotten") return
    for (const streamId of streamsOf(forget.event.eventIds)) {
      apply(projection.clearStream(streamId))
      for (const recorded of eventsAfter(reader, 0, { streamId, until: forget.position - 1 })) {
        const event = decodeForProjection(recorded)
        if (event !== undefined) apply(projection.apply(event))
      }
    }
    if (projection.purge !== undefined) db.exec(projection.purge)
  }

  const applyOne = (projection: Projection, event: ProjectedEvent) => {
    apply(projection.apply(event))
    refold(projection, event)
  }

  const catchUp = (projection: Projection, from: number, until: number) => {
    for (const page of projectedPages(db, { after: from, until })) {
      for (const event of page.events) applyOne(projection, event)
    }
    writeCheckpoint.run(projection.name, projection.version, until)
  }

  /**
   * Drops and creates a projection's tables; `finish` is left to the caller, after any bulk load. The
   * dropped pages are not zeroed: read models hold nothing the log does not, since a forget removed
   * its content from them (and zeroed it) when it was made. Zeroing them took 0.6 s of a 1M replay.
   */
  const recreateTables = (projection: Projection) => {
    db.pragma("secure_delete = OFF")
    try {
      dropObjects(db, projection)
    } finally {
      db.pragma("secure_delete = ON")
    }
    db.exec(projection.create)
    writeCheckpoint.run(projection.name, projection.version, 0)
  }

  const recreate = (projection: Projection) => {
    recreateTables(projection)
    db.exec(projection.finish)
  }

  // One read transaction, one snapshot: read one statement at a time, a commit between the head and a checkpoint
  // (every append moves both) looked like a projection behind, and sent the process after the write lock.
  const needsWork = db.transaction(() => {
    const last = head.get()!
    return projections.some((p) => {
      const cp = checkpoint(p.name)
      return cp === undefined || cp.version !== p.version || cp.position !== last
    })
  })

  const prepare = () => {
    // A database this process may only read keeps its read models as they are (they may lag the log).
    if (db.readonly || !needsWork()) return
    const bringUpToDate = db.transaction(() => {
      const last = head.get()!
      for (const projection of projections) {
        const cp = checkpoint(projection.name)
        // Ahead of the log (a WAL lost after its pages were partly checkpointed): rebuild, never trust it.
        if (cp === undefined || cp.version !== projection.version || cp.position > last) recreate(projection)
        const from = checkpoint(projection.name)!.position
        if (from < last) catchUp(projection, from, last)
      }
    })
    waitingFairly(db, () => bringUpToDate.immediate())
  }

  const listener: AppendListener<RalphMemEvent> = (_, events: ReadonlyArray<DecodedEvent<RalphMemEvent>>) => {
    const first = events[0]
    const last = events.at(-1)
    if (first === undefined || last === undefined) return
    for (const projection of projections) {
      // A projection left behind (by a writer that could not project) catches up before moving on.
      const from = checkpoint(projection.name)?.position ?? 0
      if (from < first.position - 1) catchUp(projection, from, first.position - 1)
      // Events at or below the checkpoint were applied already: applying them again is refused.
      const fresh = events.filter((recorded) => recorded.position > Math.max(from, first.position - 1))
      for (const recorded of fresh) {
        if (recorded.event !== null) applyOne(projection, recorded as ProjectedEvent)
      }
      writeCheckpoint.run(projection.name, projection.version, Math.max(from, last.position))
    }
  }

  const rebuild: ProjectionRunner["rebuild"] = (names, onProgress) => {
    // A projection that reads another's tables is rebuilt with them, in the order they are applied inline.
    const wanted = new Set(names ?? projections.map((p) => p.name))
    for (let grew = true; grew;) {
      grew = false
      for (const p of projections) {
        if (!wanted.has(p.name)) continue
        for (const d of p.dependsOn ?? []) {
          if (!wanted.has(d)) {
            wanted.add(d)
            grew = true
          }
        }
      }
    }
    const selected = projections.filter((p) => wanted.has(p.name))
    const started = process.hrtime.bigint()
    let done = 0
    let threads: 1 | 2 = 1
    const total = db.transaction(() => {
      const last = head.get()!
      const progress = (events: number) => {
        const before = done
        done += events
        if (Math.floor(done / 10_000) > Math.floor(before / 10_000)) onProgress?.({ done, total: last })
      }
      // Forgotten events are already redacted in the log, so a fold from the start needs no re-fold.
      const foldHere = (until: number) => {
        for (const page of projectedPages(db, { after: 0, until })) {
          for (const event of page.events) for (const projection of selected) apply(projection.apply(event))
          progress(page.read)
        }
      }
      // A long log is folded on two threads (see fold-in-worker.ts): the worker takes the events after
      // the first ones, which this thread folds while the worker starts.
      const worker = last >= PARALLEL_FOLD_FROM_EVENTS && canFoldInWorker(db, selected)
        ? startFoldInWorker(db, selected, { after: WORKER_HEAD_START, until: last })
        : undefined
      if (worker !== undefined) threads = 2
      try {
        for (const projection of selected) recreateTables(projection)
        foldHere(worker === undefined ? last : WORKER_HEAD_START)
        worker?.drain(progress)
      } finally {
        worker?.stop()
      }
      for (const projection of selected) {
        db.exec(projection.finish)
        writeCheckpoint.run(projection.name, projection.version, last)
      }
      return last
    }).immediate()
    onProgress?.({ done, total })
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    return {
      projections: selected.map((p) => p.name),
      events: done,
      threads,
      ms: Math.round(ms),
      eventsPerSecond: ms === 0 ? done : Math.round(done / (ms / 1000))
    }
  }

  return { projections, prepare, listener, rebuild, checkpoint }
}
