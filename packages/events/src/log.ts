/**
 * The append-only event log over one SQLite database.
 *
 * Append: a batch to one stream in one `BEGIN IMMEDIATE` transaction, checked against an expected
 * stream version; inline listeners (the projections) run inside that same transaction.
 * Read: keyset-paged by global position, so any size of log streams in constant memory.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { Catalog, EncodedEvent } from "./catalog/catalog.ts"
import { type SqliteDatabase, waitingFairly } from "./database.ts"
import {
  IdempotencyConflict,
  InvalidEvent,
  StorageError,
  storageError,
  UndecodableEvent,
  WrongExpectedVersion
} from "./errors.ts"
import { monotonicUlid } from "./ids.ts"
import { REDACTED_PAYLOAD } from "./migrations.ts"
import { unpackBlock } from "./payload-blocks.ts"
import { wellFormed } from "./privacy/filter.ts"
import { VERSION } from "./version.ts"

/** `any`: no check; `no_stream`: the stream must be empty; a number: the stream must be at exactly that version. */
export type ExpectedVersion = "any" | "no_stream" | number

export interface EventMetadata {
  /** Which hook or command wrote the event, e.g. `hook:PostToolUse` or `cli:inject`. */
  readonly writer: string
  /** The ralph-mem version that wrote it. */
  readonly version: string
  readonly correlationId?: string
  readonly causationId?: string
}

export interface RecordedEvent {
  readonly position: number
  readonly eventId: string
  readonly streamId: string
  readonly streamVersion: number
  readonly type: string
  readonly schemaVersion: number
  /** Milliseconds since the epoch. */
  readonly occurredAt: number
  readonly metadata: EventMetadata
  readonly idempotencyKey: string | null
  /** The forget event that redacted this one, if any; its payload is then the redaction marker. */
  readonly redactedBy: string | null
  readonly payload: unknown
}

/** A recorded event together with its decoded domain event (absent when redacted). */
export interface DecodedEvent<E> extends RecordedEvent {
  readonly event: E | null
}

export interface AppendOptions {
  readonly expectedVersion: ExpectedVersion
  readonly writer: string
  /** Appending again with the same key returns the original events and writes nothing. */
  readonly idempotencyKey?: string
  readonly correlationId?: string
  readonly causationId?: string
  /** Defaults to now. */
  readonly occurredAt?: number
}

export interface AppendResult {
  readonly events: ReadonlyArray<RecordedEvent>
  /** False when the idempotency key had been used: nothing was written. */
  readonly written: boolean
}

export interface ReadQuery {
  readonly streamId?: string
  /** With `streamId`: start at this stream version (inclusive). */
  readonly fromStreamVersion?: number
  /** Start after this global position (exclusive). */
  readonly afterPosition?: number
  /** Newest first (descending positions), as `git log` lists: then `beforePosition` pages, not `afterPosition`. */
  readonly newestFirst?: boolean
  /** With `newestFirst`: start before this global position (exclusive). */
  readonly beforePosition?: number
  readonly types?: ReadonlyArray<string>
  /** `occurredAt >= since` (ms). */
  readonly since?: number
  /** `occurredAt < until` (ms). */
  readonly until?: number
  readonly limit?: number
  /** Rows fetched per query; memory use is bounded by this, not by the log's size. */
  readonly pageSize?: number
}

/** Runs inside the append transaction; throwing rolls the append back. */
export type AppendListener<E> = (db: SqliteDatabase, events: ReadonlyArray<DecodedEvent<E>>) => void

export type AppendError = WrongExpectedVersion | IdempotencyConflict | InvalidEvent | StorageError

export interface EventLog<E extends { readonly _tag: string }> {
  readonly db: SqliteDatabase
  readonly catalog: Catalog<E>
  readonly append: (
    streamId: string,
    events: ReadonlyArray<E>,
    options: AppendOptions
  ) => Effect.Effect<AppendResult, AppendError>
  /** One page of events matching `query`, at most `pageSize` (default 1000). */
  readonly readPage: (query: ReadQuery) => Effect.Effect<ReadonlyArray<RecordedEvent>, StorageError>
  /** How many events `query` matches, whatever its `limit`: counted, none of them read. */
  readonly count: (query: ReadQuery) => Effect.Effect<number, StorageError>
  readonly streamVersion: (streamId: string) => Effect.Effect<number, StorageError>
  /** The global position of the newest event, 0 for an empty log. */
  readonly headPosition: Effect.Effect<number, StorageError>
  readonly decode: (recorded: RecordedEvent) => Effect.Effect<DecodedEvent<E>, UndecodableEvent>
}

interface EventRow {
  position: number
  event_id: string
  stream_id: string
  stream_version: number
  type: string
  schema_version: number
  payload: string
  metadata: string
  occurred_at: number
  idempotency_key: string | null
  redacted_by: string | null
}

const COLUMNS = "position, event_id, stream_id, stream_version, type, schema_version, payload, metadata, occurred_at, "
  + "idempotency_key, redacted_by"

const toRecorded = (row: EventRow): RecordedEvent => ({
  position: row.position,
  eventId: row.event_id,
  streamId: row.stream_id,
  streamVersion: row.stream_version,
  type: row.type,
  schemaVersion: row.schema_version,
  occurredAt: row.occurred_at,
  metadata: JSON.parse(row.metadata) as EventMetadata,
  idempotencyKey: row.idempotency_key,
  redactedBy: row.redacted_by,
  payload: JSON.parse(row.payload)
})

/** The key stored on the i-th event of a batch appended with `key`. */
const keyOf = (key: string, index: number): string => (index === 0 ? key : `${key}#${index}`)

const describeExpected = (expected: ExpectedVersion): string =>
  expected === "no_stream" ? "no stream (0)" : String(expected)

export const DEFAULT_PAGE_SIZE = 1000

export interface MakeEventLogOptions<E> {
  /** Inline listeners, run in order inside every append transaction (the projections). */
  readonly listeners?: ReadonlyArray<AppendListener<E>>
  /**
   * The events an appended event redacts (a forget), done in the same transaction before the
   * listeners run: the one permitted change to the log.
   */
  readonly redacts?: (event: E) => ReadonlyArray<string> | undefined
  /** Applied to every event before it is validated and written: the privacy filter. */
  readonly sanitize?: (event: E) => E
  /** Called with the newest event of each append, once it is committed (the head mark). */
  readonly committed?: (newest: RecordedEvent) => void
  readonly now?: () => number
}

/** An object whose properties are made by their factory on first read, then kept. */
const lazily = <T extends Record<string, unknown>>(factories: { readonly [K in keyof T]: () => T[K] }): T => {
  const made: Partial<T> = {}
  const result = {} as T
  for (const key of Object.keys(factories) as Array<keyof T>) {
    Object.defineProperty(result, key, { get: () => (made[key] ??= factories[key]()) })
  }
  return result
}

export const makeEventLog = <E extends { readonly _tag: string }>(
  db: SqliteDatabase,
  catalog: Catalog<E>,
  options: MakeEventLogOptions<E> = {}
): EventLog<E> => {
  const listeners = options.listeners ?? []
  const redacts = options.redacts ?? (() => undefined)
  const sanitize = options.sanitize ?? ((event: E) => event)
  const now = options.now ?? Date.now
  const newId = monotonicUlid()

  // Prepared on first use: a log made only to read (the projection runner's) or one that never sees a
  // forget would otherwise prepare statements it never runs, in every hook process.
  const statements = lazily({
    stream: () =>
      db.prepare<[string], { id: number; version: number }>(
        `SELECT id, (SELECT coalesce(max(stream_version), 0) FROM event_rows WHERE stream = s.id) AS version
         FROM streams s WHERE name = ?`
      ),
    newStream: () => db.prepare<[string]>("INSERT INTO streams (name) VALUES (?)"),
    type: () => db.prepare<[string], number>("SELECT id FROM event_types WHERE name = ?").pluck(),
    newType: () => db.prepare<[string]>("INSERT INTO event_types (name) VALUES (?)"),
    head: () => db.prepare<[], number>("SELECT coalesce(max(position), 0) FROM event_rows").pluck(),
    byKey: () => db.prepare<[string], EventRow>(`SELECT ${COLUMNS} FROM events WHERE idempotency_key = ?`),
    insert: () =>
      db.prepare(
        `INSERT INTO event_rows (event_id, stream, stream_version, type, schema_version, payload, metadata, occurred_at,
                                 idempotency_key)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
      ),
    packedIn: () =>
      db.prepare<[string], number | null>("SELECT block_id FROM event_rows WHERE event_id = ? AND redacted_by IS NULL")
        .pluck(),
    redact: () =>
      db.prepare(
        `UPDATE event_rows SET payload = '${REDACTED_PAYLOAD}', redacted_by = ?
         WHERE event_id = ? AND redacted_by IS NULL`
      )
  })

  /** The original batch for a reused key, or a conflict when the key was used for something else. */
  const originalBatch = (streamId: string, events: ReadonlyArray<E>, key: string): Array<RecordedEvent> | undefined => {
    const first = statements.byKey.get(key)
    if (first === undefined) return undefined
    const originals = events.map((_, index) => statements.byKey.get(keyOf(key, index)))
    const matches = originals.every(
      (row, index) => row !== undefined && row.stream_id === streamId && row.type === events[index]!._tag
    )
    if (!matches || statements.byKey.get(keyOf(key, events.length)) !== undefined) {
      throw new IdempotencyConflict({ key, reason: "already used for a different batch of events" })
    }
    return (originals as Array<EventRow>).map(toRecorded)
  }

  const checkExpected = (streamId: string, expected: ExpectedVersion, actual: number): void => {
    const ok = expected === "any" || (expected === "no_stream" ? actual === 0 : actual === expected)
    if (!ok) throw new WrongExpectedVersion({ streamId, expected: describeExpected(expected), actual })
  }

  const append: EventLog<E>["append"] = (rawStreamId, events, appendOptions) =>
    Effect.suspend((): Effect.Effect<AppendResult, AppendError> => {
      const streamId = wellFormed(rawStreamId)
      if (streamId.length === 0) return Effect.fail(new InvalidEvent({ reason: "the stream id is empty" }))
      if (events.length === 0) return Effect.fail(new InvalidEvent({ reason: "nothing to append" }))
      const encoded: Array<EncodedEvent> = []
      const clean = events.map(sanitize)
      for (const event of clean) {
        const result = catalog.encode(event)
        if (Result.isFailure(result)) return Effect.fail(new InvalidEvent({ reason: result.failure }))
        encoded.push(result.success)
      }
      const metadata: EventMetadata = {
        writer: appendOptions.writer,
        version: VERSION,
        ...(appendOptions.correlationId === undefined ? {} : { correlationId: appendOptions.correlationId }),
        ...(appendOptions.causationId === undefined ? {} : { causationId: appendOptions.causationId })
      }
      const metadataJson = JSON.stringify(metadata)
      const occurredAt = appendOptions.occurredAt ?? now()
      const key = appendOptions.idempotencyKey === undefined ? undefined : wellFormed(appendOptions.idempotencyKey)
      // The statements an append runs are prepared before it takes the write lock, which other writers
      // wait for as long as it is held.
      void [statements.stream, statements.type, statements.insert, key === undefined ? undefined : statements.byKey]

      const transaction = db.transaction((): AppendResult => {
        if (key !== undefined) {
          const original = originalBatch(streamId, clean, key)
          if (original !== undefined) return { events: original, written: false }
        }
        const stream = statements.stream.get(streamId)
        const current = stream?.version ?? 0
        checkExpected(streamId, appendOptions.expectedVersion, current)
        // Stream ids and types are stored once each (in the same transaction): rows refer to them.
        const streamRef = stream?.id ?? Number(statements.newStream.run(streamId).lastInsertRowid)
        const typeRefs = new Map<string, number>()
        const typeRef = (type: string): number => {
          let ref = typeRefs.get(type) ?? statements.type.get(type)
          ref ??= Number(statements.newType.run(type).lastInsertRowid)
          typeRefs.set(type, ref)
          return ref
        }
        const recorded: Array<DecodedEvent<E>> = encoded.map((entry, index) => {
          const eventId = newId(occurredAt)
          const streamVersion = current + index + 1
          const idempotencyKey = key === undefined ? null : keyOf(key, index)
          const { lastInsertRowid } = statements.insert.run(
            eventId,
            streamRef,
            streamVersion,
            typeRef(entry.type),
            entry.schemaVersion,
            entry.payload,
            metadataJson,
            occurredAt,
            idempotencyKey
          )
          return {
            position: Number(lastInsertRowid),
            eventId,
            streamId,
            streamVersion,
            type: entry.type,
            schemaVersion: entry.schemaVersion,
            occurredAt,
            metadata,
            idempotencyKey,
            redactedBy: null,
            payload: JSON.parse(entry.payload),
            // Projected as a replay will see it: decoded from what was stored, not the caller's object
            // (whose key order, say, may differ), so inline and replayed read models are byte-identical.
            event: Result.getOrElse(
              catalog.decode(entry.type, entry.schemaVersion, JSON.parse(entry.payload)),
              () => clean[index]!
            )
          }
        })
        for (const entry of recorded) {
          for (const target of redacts(entry.event!) ?? []) {
            // A packed payload is put back into its events first, and its block deleted with what it held.
            const block = statements.packedIn.get(target)
            if (block !== undefined && block !== null) unpackBlock(db, block)
            statements.redact.run(entry.eventId, target)
          }
        }
        for (const listener of listeners) listener(db, recorded)
        return { events: recorded, written: true }
      })

      return Effect.try({
        try: () => {
          const result = waitingFairly(db, () => transaction.immediate())
          if (result.written) options.committed?.(result.events.at(-1)!)
          return result
        },
        catch: (error) =>
          error instanceof WrongExpectedVersion || error instanceof IdempotencyConflict
            ? error
            : storageError(`append to ${streamId}`, error)
      })
    })

  /** The WHERE clause of the events `query` matches, with its parameters (its cursor included, not its limit). */
  const matching = (query: ReadQuery): { readonly where: string; readonly params: Array<string | number> } => {
    const clauses = [query.newestFirst === true ? "position < ?" : "position > ?"]
    const params: Array<string | number> = [
      query.newestFirst === true ? query.beforePosition ?? Number.MAX_SAFE_INTEGER : query.afterPosition ?? 0
    ]
    if (query.streamId !== undefined) {
      clauses.push("stream_id = ?", "stream_version >= ?")
      params.push(query.streamId, query.fromStreamVersion ?? 1)
    }
    if (query.types !== undefined && query.types.length > 0) {
      clauses.push(`type IN (${query.types.map(() => "?").join(", ")})`)
      params.push(...query.types)
    }
    if (query.since !== undefined) {
      clauses.push("occurred_at >= ?")
      params.push(query.since)
    }
    if (query.until !== undefined) {
      clauses.push("occurred_at < ?")
      params.push(query.until)
    }
    return { where: clauses.join(" AND "), params }
  }

  const readPage: EventLog<E>["readPage"] = (query) =>
    Effect.try({
      try: () => {
        const { where, params } = matching(query)
        const pageSize = Math.min(query.pageSize ?? DEFAULT_PAGE_SIZE, query.limit ?? Number.MAX_SAFE_INTEGER)
        const order = query.newestFirst === true ? "position DESC" : "position"
        const sql = `SELECT ${COLUMNS} FROM events WHERE ${where} ORDER BY ${order} LIMIT ?`
        return (db.prepare(sql).all(...params, pageSize) as Array<EventRow>).map(toRecorded)
      },
      catch: (error) => storageError("read events", error)
    })

  const count: EventLog<E>["count"] = (query) =>
    Effect.try({
      try: () => {
        const { where, params } = matching(query)
        return db.prepare(`SELECT count(*) FROM events WHERE ${where}`).pluck().get(...params) as number
      },
      catch: (error) => storageError("count events", error)
    })

  const decode: EventLog<E>["decode"] = (recorded) => {
    if (recorded.redactedBy !== null) return Effect.succeed({ ...recorded, event: null })
    const result = catalog.decode(recorded.type, recorded.schemaVersion, recorded.payload)
    return Result.isSuccess(result)
      ? Effect.succeed({ ...recorded, event: result.success })
      : Effect.fail(new UndecodableEvent({ position: recorded.position, reason: result.failure }))
  }

  return {
    db,
    catalog,
    append,
    readPage,
    count,
    streamVersion: (streamId) =>
      Effect.try({
        try: () => statements.stream.get(streamId)?.version ?? 0,
        catch: (e) => storageError("read stream version", e)
      }),
    headPosition: Effect.try({
      try: () => statements.head.get()!,
      catch: (e) => storageError("read head position", e)
    }),
    decode
  }
}
