/**
 * Salvage: the events a damaged database committed after the backup that replaces it, read back into
 * the restored log. The damaged file is never changed: a scratch copy of it (and of its WAL, so the
 * events only the WAL held are read too) is opened, its event rows read by ranges of positions, a range
 * that fails split in halves down to single rows, so every row SQLite can still reach is read. What it
 * cannot reach (a damaged schema or upper b-tree page) is then read from the pages themselves
 * (salvage-pages.ts: SQLite's `.recover` machinery, sqlite_dbdata, is not compiled into
 * better-sqlite3). Salvaged events keep their
 * id, time, metadata and payload, and their order; they take the next positions of the restored log
 * (nothing refers to a position but the read models, rebuilt after), and a stream whose earlier event
 * was lost continues at its next version. What could not be read is reported (an EventsLost event).
 */
import { definitions, newSqliteDatabase, REDACTED_PAYLOAD, type SqliteDatabase, unpackBlock } from "@ralph-mem/events"
import { chmodSync, copyFileSync, existsSync, rmSync } from "node:fs"
import { type RawRow, rowsFromPages } from "./salvage-pages.ts"

export interface Salvage {
  /** Events read back into the log. */
  readonly salvaged: number
  /** How many positions past the backup's head, up to the last known one, could not be read. */
  readonly unreadable: number
  /** Those positions, as ranges: `31..40, 45`. */
  readonly unreadableRanges: string
}

/** `[3, 4, 5, 9]` as `3..5, 9` (at most 20 ranges, then `…`). */
const ranges = (positions: ReadonlyArray<number>): string => {
  const spans: Array<[number, number]> = []
  for (const p of positions) {
    const last = spans.at(-1)
    if (last !== undefined && last[1] === p - 1) last[1] = p
    else spans.push([p, p])
  }
  const shown = spans
    .slice(0, 20)
    .map(([a, b]) => (a === b ? `${a}` : `${a}..${b}`))
    .join(", ")
  return spans.length > 20 ? `${shown}, …` : shown
}

const unreadableOf = (positions: ReadonlyArray<number>) => ({
  unreadable: positions.length,
  unreadableRanges: ranges(positions)
})

interface SalvagedRow {
  readonly position: number
  readonly eventId: string
  readonly stream: number
  readonly streamVersion: number
  readonly type: number
  readonly schemaVersion: number
  /** Null when packed in a block (read apart: a damaged block table must not hide unpacked rows). */
  readonly payload: string | null
  readonly metadata: string | null
  readonly occurredAt: number
  readonly idempotencyKey: string | null
  readonly redactedBy: string | null
  readonly blockId: number | null
  readonly blockSlot: number | null
}

const ROWS = `SELECT position, event_id AS eventId, stream, stream_version AS streamVersion, type,
    schema_version AS schemaVersion,
    payload, metadata, occurred_at AS occurredAt, idempotency_key AS idempotencyKey, redacted_by AS redactedBy,
    block_id AS blockId, block_slot AS blockSlot
  FROM event_rows WHERE position BETWEEN ? AND ? ORDER BY position`

/** A packed row's payload and metadata, from its block; undefined when the block cannot be read. */
const unpacked = (db: SqliteDatabase, row: SalvagedRow): SalvagedRow | undefined => {
  if (row.blockId === null) return row
  const packed = attempt(
    () =>
      db
        .prepare(
          `SELECT ralph_block_payload(id, ?, data) AS payload,
                  coalesce(?, ralph_block_metadata(id, ?, data)) AS metadata
       FROM payload_blocks WHERE id = ?`
        )
        .get(row.blockSlot, row.metadata, row.blockSlot, row.blockId) as
          | { payload: string; metadata: string }
          | undefined
  )
  return packed === undefined ? undefined : { ...row, ...packed }
}

const attempt = <A>(read: () => A): A | undefined => {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** Every row of [low, high] SQLite can still read: a range that fails is split until single rows. */
const readableRows = (db: SqliteDatabase, low: number, high: number): Array<SalvagedRow> => {
  const rows = attempt(() => db.prepare(ROWS).all(low, high) as Array<SalvagedRow>)
  if (rows !== undefined) return rows
  if (low === high) return []
  const middle = Math.floor((low + high) / 2)
  return [...readableRows(db, low, middle), ...readableRows(db, middle + 1, high)]
}

/** A name table (streams, event_types): whole, or row by row for the ids asked for. */
const names = (
  db: SqliteDatabase,
  table: "streams" | "event_types",
  ids: ReadonlyArray<number>
): Map<number, string> => {
  const whole = attempt(() => db.prepare(`SELECT id, name FROM ${table}`).raw().all() as Array<[number, string]>)
  if (whole !== undefined) return new Map(whole)
  return new Map(
    ids.flatMap((id) => {
      const name = attempt(
        () => db.prepare(`SELECT name FROM ${table} WHERE id = ?`).pluck().get(id) as string | undefined
      )
      return name === undefined ? [] : [[id, name] as const]
    })
  )
}

/** Opens a scratch copy of the damaged file and its WAL (SQLite may write to what it opens). */
const openScratch = (
  damagedCopy: string
): { readonly db: SqliteDatabase; readonly dispose: () => void } | undefined => {
  const scratch = `${damagedCopy}.salvage`
  const files = ["", "-wal"].filter((suffix) => existsSync(damagedCopy + suffix))
  const dispose = () => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(scratch + suffix, { force: true })
  }
  try {
    for (const suffix of files) {
      copyFileSync(damagedCopy + suffix, scratch + suffix)
      chmodSync(scratch + suffix, 0o600)
    }
    const db = newSqliteDatabase(scratch, { fileMustExist: true })
    return { db, dispose: () => (db.close(), dispose()) }
  } catch {
    dispose()
    return undefined
  }
}

const EVENT_TYPES = new Set<string>(definitions.map((d) => d.type))
const STREAM_NAME = /^(?:(?:session|loop|note|decision|belief|task):.|memory:forgets$|hooks:failures$|maintenance$)/

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v)
const isText = (v: unknown): v is string => typeof v === "string"
const textOrNull = (v: unknown): v is string | null => v === null || typeof v === "string"

/** An event row, by its shape (the 13 columns of event_rows; the position is the rowid). */
const asEventRow = ({ rowid, values: v }: RawRow): SalvagedRow | undefined =>
  v.length === 13 &&
    v[0] === null &&
    isText(v[1]) &&
    v[1].length === 26 &&
    isInt(v[2]) &&
    isInt(v[3]) &&
    isInt(v[4]) &&
    isInt(v[5]) &&
    textOrNull(v[6]) &&
    textOrNull(v[7]) &&
    isInt(v[8]) &&
    textOrNull(v[9]) &&
    textOrNull(v[10]) &&
    (v[11] === null || isInt(v[11])) &&
    (v[12] === null || isInt(v[12]))
    ? {
      position: rowid,
      eventId: v[1],
      stream: v[2],
      streamVersion: v[3],
      type: v[4],
      schemaVersion: v[5],
      payload: v[6],
      metadata: v[7],
      occurredAt: v[8],
      idempotencyKey: v[9],
      redactedBy: v[10],
      blockId: v[11] as number | null,
      blockSlot: v[12] as number | null
    }
    : undefined

/** Names by shape (id, name): event types are the catalog's, streams look like stream ids. */
const namesFromPages = (rows: ReadonlyArray<RawRow>) => {
  const streams = new Map<number, string>()
  const types = new Map<number, string>()
  for (const { rowid, values } of rows) {
    if (values.length !== 2 || values[0] !== null || !isText(values[1])) continue
    if (EVENT_TYPES.has(values[1])) types.set(rowid, values[1])
    else if (STREAM_NAME.test(values[1])) streams.set(rowid, values[1])
  }
  return { streams, types }
}

interface PageRows {
  readonly rows: ReadonlyArray<SalvagedRow>
  /** The newest position of an event row in the pages, packed or not (0 for none). */
  readonly newest: number
  readonly streams: ReadonlyMap<number, string>
  readonly types: ReadonlyMap<number, string>
}

const NO_PAGE_ROWS: PageRows = { rows: [], newest: 0, streams: new Map(), types: new Map() }

/**
 * Rows past `after` read from the pages, for what SQLite could not reach; packed ones left out (their blocks
 * are not decoded here). Where a stream's name is lost too, the events of a session keep their session's stream
 * (the hooks write them there); others go to `salvaged:<id>`.
 */
const rowsFromDamagedPages = (damagedCopy: string, after: number): PageRows => {
  let raw: Array<RawRow>
  try {
    raw = rowsFromPages(damagedCopy)
  } catch {
    return NO_PAGE_ROWS
  }
  const rows = new Map<number, SalvagedRow>()
  let newest = 0
  for (const candidate of raw) {
    const row = asEventRow(candidate)
    if (row === undefined || row.position <= after) continue
    newest = Math.max(newest, row.position)
    if (row.blockId !== null) continue
    // Two copies of a row (an old page not yet reused): the redacted one wins.
    const seen = rows.get(row.position)
    if (seen === undefined || (seen.redactedBy === null && row.redactedBy !== null)) rows.set(row.position, row)
  }
  return { rows: [...rows.values()].sort((a, b) => a.position - b.position), newest, ...namesFromPages(raw) }
}

const SESSION_TYPES = new Set([
  "SessionStarted",
  "PromptSubmitted",
  "ContextInjected",
  "AssistantReplied",
  "SessionCompacted",
  "SessionSummarized",
  "SessionEnded",
  "ObservationRecorded"
])

const streamFor = (row: SalvagedRow, type: string, known: string | undefined): string => {
  if (known !== undefined) return known
  const sessionId = attempt(() => (JSON.parse(row.payload ?? "{}") as { sessionId?: unknown }).sessionId)
  return SESSION_TYPES.has(type) && typeof sessionId === "string" ? `session:${sessionId}` : `salvaged:${row.stream}`
}

const idOf = (db: SqliteDatabase, table: "streams" | "event_types", name: string): number =>
  (db.prepare(`SELECT id FROM ${table} WHERE name = ?`).pluck().get(name) as number | undefined) ??
    Number(db.prepare(`INSERT INTO ${table} (name) VALUES (?)`).run(name).lastInsertRowid)

/**
 * Reads the events of `damagedCopy` past position `after` into `target` (the restored log, before
 * its read models are rebuilt). `lastKnown`: the newest position known to have been committed (the
 * head mark), so events lost at the end are counted too.
 */
export const salvageEvents = (
  target: SqliteDatabase,
  damagedCopy: string,
  after: number,
  lastKnown: number | undefined
): Salvage => {
  // Through SQLite first: every row its b-trees still reach, packed payloads included.
  const scratch = openScratch(damagedCopy)
  let rows: Array<SalvagedRow> = []
  let streamNames = new Map<number, string>()
  let typeNames = new Map<number, string>()
  let newest = 0
  // Read whole into memory, so only when something is missing; at most once.
  let pages: PageRows | undefined
  const fromPages = () => (pages ??= rowsFromDamagedPages(damagedCopy, after))
  let newestKnown = false
  if (scratch !== undefined) {
    try {
      const { db } = scratch
      const max = attempt(() => db.prepare("SELECT coalesce(max(position), 0) FROM event_rows").pluck().get() as number)
      // SQLite looks for the newest event on the log's last leaf: with that leaf damaged, the pages say which it
      // is (taken as none, with no mark of this memory to go by, not one event would be read back).
      newestKnown = max !== undefined
      newest = max ?? fromPages().newest
      const high = Math.max(newest, lastKnown ?? 0)
      rows = (high > after ? readableRows(db, after + 1, high) : []).flatMap((row) => unpacked(db, row) ?? [])
      streamNames = names(db, "streams", [...new Set(rows.map((r) => r.stream))])
      typeNames = names(db, "event_types", [...new Set(rows.map((r) => r.type))])
    } finally {
      scratch.dispose()
    }
  }
  // Then from the pages, for what SQLite could not reach (a damaged schema, a b-tree's upper or last pages).
  const reached = new Set(rows.map((r) => r.position))
  const complete = newestKnown && rows.length === Math.max(0, Math.max(newest, lastKnown ?? 0) - after)
  const paged = complete ? NO_PAGE_ROWS : fromPages()
  for (const [id, name] of paged.streams) if (!streamNames.has(id)) streamNames.set(id, name)
  for (const [id, name] of paged.types) if (!typeNames.has(id)) typeNames.set(id, name)
  rows = [...rows, ...paged.rows.filter((r) => !reached.has(r.position))].sort((a, b) => a.position - b.position)
  const high = Math.max(newest, lastKnown ?? 0, rows.at(-1)?.position ?? 0)

  const read = new Set<number>()
  const insert = target.prepare(
    `INSERT INTO event_rows (event_id, stream, stream_version, type, schema_version, payload, metadata, occurred_at,
                             idempotency_key, redacted_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
  )
  const nextVersion = target
    .prepare("SELECT coalesce(max(stream_version), 0) + 1 FROM event_rows WHERE stream = ?")
    .pluck()
  target
    .transaction(() => {
      for (const row of rows) {
        const type = typeNames.get(row.type)
        if (type === undefined || row.payload === null || row.metadata === null) continue
        try {
          const streamId = idOf(target, "streams", streamFor(row, type, streamNames.get(row.stream)))
          insert.run(
            row.eventId,
            streamId,
            nextVersion.get(streamId),
            idOf(target, "event_types", type),
            row.schemaVersion,
            row.payload,
            row.metadata,
            row.occurredAt,
            row.idempotencyKey,
            row.redactedBy
          )
          read.add(row.position)
          if (type === "MemoryForgotten" && row.redactedBy === null) redactAgain(target, row)
        } catch {
          // Garbage that still decoded (a JSON payload with bytes over it, a duplicate id): not an event.
        }
      }
    })
    .immediate()
  const expected = Array.from({ length: Math.max(0, high - after) }, (_, i) => after + 1 + i)
  return { salvaged: read.size, ...unreadableOf(expected.filter((position) => !read.has(position))) }
}

/** A forget salvaged from the damaged file redacts its events in the restored log too. */
const redactAgain = (target: SqliteDatabase, forget: SalvagedRow): void => {
  const ids = (JSON.parse(forget.payload ?? "{}") as { eventIds?: Array<string> }).eventIds ?? []
  for (const id of ids) {
    const block = target
      .prepare("SELECT block_id FROM event_rows WHERE event_id = ? AND redacted_by IS NULL")
      .pluck()
      .get(id) as number | null | undefined
    if (block !== undefined && block !== null) unpackBlock(target, block)
    target
      .prepare(
        `UPDATE event_rows SET payload = '${REDACTED_PAYLOAD}', redacted_by = ?
         WHERE event_id = ? AND redacted_by IS NULL`
      )
      .run(forget.eventId, id)
  }
}
