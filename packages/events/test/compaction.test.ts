import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { deflateRawSync, inflateRawSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import {
  catalog,
  compactLog,
  decodeBlock,
  encodeBlock,
  LATEST_SCHEMA_VERSION,
  makeEventLog,
  newSqliteDatabase,
  openDatabase,
  readEvents,
  REDACTED_PAYLOAD,
  redactedBy,
  unpackBlock
} from "../src/index.ts"
import { migrations } from "../src/migrations.ts"
import { freshLog, observed, run, started, tempFolder } from "./helpers.ts"

const any = { expectedVersion: "any", writer: "test" } as const
const collect = <A, E>(stream: Stream.Stream<A, E>) => Effect.runSync(Stream.runCollect(stream))
const HOUR = 3_600_000

/** Two sessions with repetitive tool output, one appended an hour before the other. */
const seed = () => {
  const fixture = freshLog()
  for (const [session, at] of [["a", 1_000], ["b", 1_000 + HOUR]] as const) {
    run(fixture.log.append(`session:${session}`, [started(session)], { ...any, occurredAt: at }))
    for (let i = 0; i < 20; i++) {
      const output = `FAIL src/payment/gateway.test.ts > retries ${session} ${i}\n`
        + "    at processTicksAndRejections (node:internal/process/task_queues:95:5)"
      run(fixture.log.append(`session:${session}`, [observed(session, output)], { ...any, occurredAt: at + i }))
    }
  }
  return fixture
}

const rawRows = (db: ReturnType<typeof freshLog>["db"]) =>
  db.prepare(
    "SELECT position, payload, metadata, block_id AS block, block_slot AS slot FROM event_rows ORDER BY position"
  ).all() as Array<{
    position: number
    payload: string | null
    metadata: string | null
    block: number | null
    slot: number | null
  }>

/** What event `position` holds, as a block would pack it. */
const packable = (db: ReturnType<typeof freshLog>["db"], position: number) =>
  db.prepare("SELECT payload, metadata FROM event_rows WHERE position = ?").get(position) as {
    payload: string
    metadata: string
  }

describe("payload blocks", () => {
  it("round-trip payloads and metadata, read schema 2's payload-only blocks, refuse bytes that are no block", () => {
    const events = [
      { payload: "{\"a\":1}", metadata: "{\"writer\":\"test\"}" },
      { payload: "{\"text\":\"한국어 \\n \\\"quoted\\\"\"}", metadata: "{}" },
      { payload: "{}", metadata: "{\"correlationId\":\"x\"}" }
    ]
    expect(decodeBlock(encodeBlock(events))).toEqual(events)
    expect(decodeBlock(deflateRawSync(JSON.stringify(["{\"a\":1}"])))).toEqual([{
      payload: "{\"a\":1}",
      metadata: null
    }])
    expect(() => decodeBlock(Buffer.from("not deflate"))).toThrow()
    expect(() => decodeBlock(encodeBlock([]).subarray(0, 1))).toThrow()
    expect(() => decodeBlock(deflateRawSync(JSON.stringify([["{}"]])))).toThrow(/not a payload block/)
  })

  it("keep each event's text as written, found by its length: one event is read without decoding the others", () => {
    const events = [
      { payload: "{\"text\":\"a \\\"quoted\\\" 한국어\"}", metadata: "{\"writer\":\"test\"}" },
      { payload: "{}", metadata: "{}" }
    ]
    const bytes = inflateRawSync(encodeBlock(events))
    // The text is not escaped again (a JSON block would hold `\"` for each quote).
    expect(bytes.includes(Buffer.from(events[0]!.payload, "utf8"))).toBe(true)
    expect(bytes.length).toBe(5 + 8 * 2 + events.reduce((n, e) => n + Buffer.byteLength(e.payload + e.metadata), 0))
    // Damaged: lengths that do not add up to the bytes, more events than the bytes hold, an unknown first byte.
    const lengthened = Buffer.from(bytes)
    lengthened.writeUInt32LE(lengthened.readUInt32LE(5) + 1, 5)
    const counted = Buffer.from(bytes)
    counted.writeUInt32LE(1_000_000, 1)
    for (const damaged of [lengthened, counted, Buffer.concat([Buffer.from([7]), bytes.subarray(1)])]) {
      expect(() => decodeBlock(deflateRawSync(damaged))).toThrow(/not a payload block/)
    }
  })

  it("read the JSON blocks earlier versions wrote, through the log and when a forget unpacks them", () => {
    const { db } = seed()
    const original = packable(db, 1)
    const block = Number(
      db.prepare("INSERT INTO payload_blocks (first_position, last_position, data) VALUES (1, 1, ?)").run(
        deflateRawSync(JSON.stringify([[original.payload, original.metadata]]))
      ).lastInsertRowid
    )
    // The log's trigger checks the block holds exactly the event before it takes it.
    db.prepare("UPDATE event_rows SET payload = NULL, metadata = NULL, block_id = ?, block_slot = 0 WHERE position = 1")
      .run(block)
    expect(db.prepare("SELECT payload, metadata FROM events WHERE position = 1").get()).toEqual(original)
    unpackBlock(db, block)
    expect(db.prepare("SELECT payload, metadata, block_id AS block FROM event_rows WHERE position = 1").get()).toEqual({
      ...original,
      block: null
    })
  })
})

describe("compaction", () => {
  it("packs settled streams into blocks, and every reader still sees the payloads as written", () => {
    const { log, db, path } = seed()
    const before = collect(readEvents(log))
    const report = compactLog(db, { idleMs: 30 * 60_000, now: 1_000 + HOUR + 60_000 })
    // Session a has been idle an hour; session b had an append a minute ago and is left as it is.
    expect(report).toMatchObject({ streams: 1, events: 21, blocks: 1 })
    expect(report.blockBytes).toBeLessThan(report.payloadBytes / 3)
    const rows = rawRows(db)
    expect(rows.filter((r) => r.block !== null).map((r) => r.position)).toEqual(
      before.filter((e) => e.streamId === "session:a").map((e) => e.position)
    )
    expect(rows.filter((r) => r.block !== null).every((r) => r.payload === null && r.metadata === null)).toBe(true)
    expect(collect(readEvents(log))).toEqual(before)

    // A new connection (another process) reads them too, through the view's functions.
    const reader = run(openDatabase(path))
    expect(reader.prepare("SELECT payload FROM events ORDER BY position").pluck().all()).toEqual(
      before.map((e) => JSON.stringify(e.payload))
    )
    reader.close()

    // Again with no idle time: the rest is packed; what is packed is not packed twice.
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 1, events: 21, blocks: 1 })
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 0, events: 0, blocks: 0 })
    expect(collect(readEvents(log))).toEqual(before)
    // Appends go on after packing, unpacked until the next compaction.
    const next = run(log.append("session:a", [observed("a", "after")], any)).events[0]!
    expect(rawRows(db).at(-1)).toMatchObject({ position: next.position, block: null })
  })

  it("packs settled streams together, in position order, up to a block's size", () => {
    const { log, db } = seed()
    const before = collect(readEvents(log))
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 2, events: 42, blocks: 1 })
    const rows = rawRows(db)
    expect(rows.map((r) => r.slot)).toEqual(rows.map((_, i) => i))
    expect(db.prepare("SELECT first_position AS first, last_position AS last FROM payload_blocks").get()).toEqual({
      first: 1,
      last: 42
    })
    expect(collect(readEvents(log))).toEqual(before)
  })

  it("leaves the streams appended to last unpacked, however long idle, and packs them once newer ones come", () => {
    const { log, db } = seed()
    const before = collect(readEvents(log))
    // Session b was appended to last: it stays as it is, and session a is packed.
    expect(compactLog(db, { idleMs: 0, keepNewestStreams: 1 })).toMatchObject({ streams: 1, events: 21 })
    const packedStreams = () =>
      db.prepare(
        `SELECT DISTINCT s.name FROM event_rows r JOIN streams s ON s.id = r.stream
         WHERE r.block_id IS NOT NULL ORDER BY s.name`
      ).pluck().all()
    expect(packedStreams()).toEqual(["session:a"])
    expect(compactLog(db, { idleMs: 0, keepNewestStreams: 2 })).toMatchObject({ streams: 0, events: 0 })
    // A session appended to later takes b's place among the newest: b is packed by the next run.
    run(log.append("session:c", [started("c")], { ...any, occurredAt: 1_000 + 2 * HOUR }))
    expect(compactLog(db, { idleMs: 0, keepNewestStreams: 1 })).toMatchObject({ streams: 1, events: 21 })
    expect(packedStreams()).toEqual(["session:a", "session:b"])
    expect(collect(readEvents(log)).slice(0, before.length)).toEqual(before)
  })

  it("splits a stream into blocks of a bounded size, and leaves a payload that would not shrink", () => {
    const { log, db } = seed()
    const report = compactLog(db, { idleMs: 0, maxBlockBytes: 1_000 })
    expect(report.blocks).toBeGreaterThan(4)
    expect(report.events).toBe(42)
    const blocks = db.prepare("SELECT first_position AS first, last_position AS last FROM payload_blocks ORDER BY id")
      .all() as Array<{ first: number; last: number }>
    for (const block of blocks) expect(block.last).toBeGreaterThanOrEqual(block.first)
    const lone = freshLog()
    run(lone.log.append("session:x", [started("x")], any))
    expect(compactLog(lone.db, { idleMs: 0 })).toMatchObject({ events: 0, blocks: 0 })
    expect(collect(readEvents(log)).length).toBe(42)
  })

  it("refuses, even from raw SQL, a packing that changes a payload, an edited block, deleting a block in use", () => {
    const { db } = seed()
    compactLog(db, { idleMs: 0 })
    const block = db.prepare("SELECT id, first_position AS first FROM payload_blocks ORDER BY id LIMIT 1").get() as {
      id: number
      first: number
    }
    expect(() =>
      db.prepare("UPDATE payload_blocks SET data = ? WHERE id = ?").run(
        encodeBlock([{ payload: "{}", metadata: "{}" }]),
        block.id
      )
    ).toThrow(/immutable/)
    expect(() => db.prepare("DELETE FROM payload_blocks WHERE id = ?").run(block.id)).toThrow(/no event is packed/)
    // Unpacking must give back exactly what the block holds.
    expect(() =>
      db.prepare("UPDATE event_rows SET payload = '{}', block_id = NULL, block_slot = NULL WHERE position = ?").run(
        block.first
      )
    ).toThrow(/immutable/)
    const { payload, metadata } = db.prepare("SELECT payload, metadata FROM events WHERE position = ?").get(
      block.first
    ) as { payload: string; metadata: string }
    expect(() =>
      db.prepare(
        "UPDATE event_rows SET payload = ?, metadata = '{}', block_id = NULL, block_slot = NULL WHERE position = ?"
      ).run(payload, block.first)
    ).toThrow(/immutable/)
    db.prepare("UPDATE event_rows SET payload = ?, metadata = ?, block_id = NULL, block_slot = NULL WHERE position = ?")
      .run(payload, metadata, block.first)
    // A block whose bytes differ from the payload, or from the metadata, cannot take it.
    const fresh = seed()
    const insertBlock = fresh.db.prepare(
      "INSERT INTO payload_blocks (first_position, last_position, data) VALUES (?, ?, ?)"
    )
    const pack = fresh.db.prepare(
      "UPDATE event_rows SET payload = NULL, metadata = NULL, block_id = ?, block_slot = 0 WHERE position = 1"
    )
    const original = packable(fresh.db, 1)
    for (
      const forgery of [{ ...original, payload: "{\"sessionId\":\"forged\"}" }, {
        ...original,
        metadata: "{\"writer\":\"forged\"}"
      }]
    ) {
      const forged = Number(insertBlock.run(1, 1, encodeBlock([forgery])).lastInsertRowid)
      expect(() => pack.run(forged)).toThrow(/immutable/)
    }
    // Nor one whose positions do not cover the event, nor a slot it does not have.
    const honest = Number(insertBlock.run(5, 5, encodeBlock([original])).lastInsertRowid)
    expect(() => pack.run(honest)).toThrow(/immutable/)
    // Packing moves the metadata into the block: it cannot stay behind in the row.
    const covering = Number(insertBlock.run(1, 1, encodeBlock([original])).lastInsertRowid)
    expect(() =>
      fresh.db.prepare("UPDATE event_rows SET payload = NULL, block_id = ?, block_slot = 0 WHERE position = 1").run(
        covering
      )
    ).toThrow(/immutable/)
    pack.run(covering)
    expect(fresh.db.prepare("SELECT payload, metadata FROM events WHERE position = 1").get()).toEqual(original)
    // An event is never appended packed.
    expect(() =>
      fresh.db.prepare(
        "INSERT INTO event_rows (event_id, stream, stream_version, type, schema_version, payload, metadata,"
          + " occurred_at, block_id, block_slot) VALUES ('x', 1, 22, 1, 1, NULL, NULL, 0, ?, 0)"
      ).run(honest)
    ).toThrow(/appended with its payload/)
  })

  it("a forget of a packed event unpacks its block, redacts it, and leaves its text nowhere in the file", () => {
    const { log, db, path } = seed()
    const secretSession = "c"
    const routine = Array.from(
      { length: 3 },
      (_, i) => observed(secretSession, `npm test -- src/payment/gateway.test.ts passed, run ${i}`)
    )
    run(
      log.append(`session:${secretSession}`, [
        started(secretSession),
        observed(secretSession, "the launch code is ZEBRA-PLUTO-4471"),
        ...routine
      ], any)
    )
    compactLog(db, { idleMs: 0 })
    const target = collect(readEvents(log, { streamId: "session:c" }))[1]!
    expect(JSON.stringify(target.payload)).toContain("ZEBRA-PLUTO-4471")
    const blocksBefore = db.prepare("SELECT count(*) FROM payload_blocks").pluck().get() as number
    run(log.append("memory:forgets", [{ _tag: "MemoryForgotten", eventIds: [target.eventId], selector: "id" }], any))

    const after = collect(readEvents(log, { streamId: "session:c" }))
    expect(JSON.stringify(after[1]!.payload)).toBe(REDACTED_PAYLOAD)
    // Its neighbour in the block is whole, and back in its row until the next compaction.
    expect(after[0]!.payload).toEqual(collect(readEvents(log, { streamId: "session:c" }))[0]!.payload)
    expect(rawRows(db).find((r) => r.position === after[0]!.position)).toMatchObject({ block: null })
    expect(db.prepare("SELECT count(*) FROM payload_blocks").pluck().get()).toBe(blocksBefore - 1)
    // No block holds the text, packed or not, and the file's bytes do not either.
    for (const data of db.prepare("SELECT data FROM payload_blocks").pluck().all() as Array<Buffer>) {
      expect(JSON.stringify(decodeBlock(data))).not.toContain("ZEBRA-PLUTO")
    }
    db.pragma("wal_checkpoint(TRUNCATE)")
    expect(readFileSync(path).includes("ZEBRA-PLUTO")).toBe(false)
    // The block's other events (all three sessions here) are packed again by the next compaction, with
    // the forget itself; the redacted event is not.
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 4, events: 42 + 4 + 1 })
    expect(rawRows(db).find((r) => r.position === after[1]!.position)).toMatchObject({
      payload: REDACTED_PAYLOAD,
      block: null
    })
  })
})

describe("schema 2", () => {
  it("migrates a version-1 log: same events, positions and ids, then packs it", () => {
    const path = join(tempFolder(), "v1.db")
    const old = newSqliteDatabase(path)
    old.exec(migrations[0]!.sql)
    old.pragma("application_id = 0x524d454d")
    old.pragma("user_version = 1")
    const insert = old.prepare(
      "INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, payload, metadata, occurred_at)"
        + " VALUES (?, 'session:a', ?, 'ObservationRecorded', 1, ?, '{\"writer\":\"test\",\"version\":\"0\"}', ?)"
    )
    const payloads = Array.from(
      { length: 5 },
      (_, i) => JSON.stringify({ sessionId: "a", kind: "tool_use", content: `step ${i}`, files: [] })
    )
    payloads.forEach((payload, i) => insert.run(`id${i}`, i + 1, payload, 1000 + i))
    old.close()

    const db = run(openDatabase(path))
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION)
    const read = () =>
      db.prepare("SELECT position, event_id, stream_version, payload FROM events ORDER BY position").all()
    const expected = payloads.map((payload, i) => ({
      position: i + 1,
      event_id: `id${i}`,
      stream_version: i + 1,
      payload
    }))
    expect(read()).toEqual(expected)
    expect(compactLog(db, { idleMs: 0 }).events).toBe(5)
    expect(read()).toEqual(expected)
    db.close()
  })
})

/**
 * A version-2 log as schema 2 left it: two sessions, session a packed as schema 2 packed it (payloads
 * alone in the block, metadata in the rows), one idempotency key, and a view over events as the read
 * models have. Returns everything the events view showed, row by row.
 */
const schema2Log = () => {
  const path = join(tempFolder(), "v2.db")
  const old = newSqliteDatabase(path)
  old.exec(migrations[0]!.sql)
  old.exec(migrations[1]!.sql)
  old.pragma("application_id = 0x524d454d")
  old.pragma("user_version = 2")
  const insert = old.prepare(
    "INSERT INTO event_rows (event_id, stream_id, stream_version, type, schema_version, payload, metadata, occurred_at,"
      + " idempotency_key) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)"
  )
  const rows = [
    ["session:a", "SessionStarted", { sessionId: "a", projectPath: "/p", source: "startup" }],
    ["session:a", "ObservationRecorded", {
      sessionId: "a",
      kind: "tool_use",
      content: "the secret is MANGO-7",
      files: []
    }],
    ["session:b", "SessionStarted", { sessionId: "b", projectPath: "/p", source: "startup" }],
    ["session:a", "ObservationRecorded", {
      sessionId: "a",
      kind: "error",
      content: "step 2 failed",
      files: ["src/a.ts"]
    }],
    ["session:b", "SessionEnded", { sessionId: "b", reason: "exit" }]
  ] as const
  const versions = new Map<string, number>()
  rows.forEach(([stream, type, payload], i) => {
    const version = (versions.get(stream) ?? 0) + 1
    versions.set(stream, version)
    insert.run(
      `id${i}`,
      stream,
      version,
      type,
      JSON.stringify(payload),
      JSON.stringify({ writer: "test", version: "0", correlationId: `c${i}` }),
      1000 + i,
      i === 4 ? "key" : null
    )
  })
  const packedPositions = [1, 2, 4]
  const payloads = packedPositions.map((position) =>
    old.prepare("SELECT payload FROM event_rows WHERE position = ?").pluck().get(position) as string
  )
  const block = Number(
    old.prepare("INSERT INTO payload_blocks (first_position, last_position, data) VALUES (1, 4, ?)").run(
      deflateRawSync(JSON.stringify(payloads))
    ).lastInsertRowid
  )
  packedPositions.forEach((position, slot) =>
    old.prepare("UPDATE event_rows SET payload = NULL, block_id = ?, block_slot = ? WHERE position = ?").run(
      block,
      slot,
      position
    )
  )
  const before = old.prepare(EVERYTHING).all() as Array<Record<string, unknown>>
  old.exec("CREATE VIEW event_counts AS SELECT type, count(*) AS n FROM events GROUP BY type")
  old.close()
  return { path, before }
}

const EVERYTHING = "SELECT * FROM events ORDER BY position"
const payloadOnlyPacked = (db: ReturnType<typeof freshLog>["db"]) =>
  db.prepare("SELECT count(*) FROM event_rows WHERE block_id IS NOT NULL AND metadata IS NOT NULL").pluck().get()

describe("schema 3", () => {
  it("migrates a version-2 log with schema 2's blocks: each event reads as it did, can be forgotten and packed", () => {
    const { path, before } = schema2Log()
    const db = run(openDatabase(path))
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION)
    expect(db.prepare(EVERYTHING).all()).toEqual(before)
    expect(db.prepare("SELECT name FROM streams ORDER BY id").pluck().all()).toEqual(["session:a", "session:b"])
    expect(db.prepare("SELECT name FROM event_types ORDER BY id").pluck().all()).toEqual([
      "SessionStarted",
      "ObservationRecorded",
      "SessionEnded"
    ])
    expect(payloadOnlyPacked(db)).toBe(3)
    // A view over events, as the read models have, is still valid.
    expect(db.prepare("SELECT n FROM event_counts WHERE type = 'ObservationRecorded'").pluck().get()).toBe(2)

    // A forget unpacks the schema-2 block (its events keep their own metadata) and redacts its target.
    const log = makeEventLog(db, catalog, { redacts: redactedBy })
    run(log.append("memory:forgets", [{ _tag: "MemoryForgotten", eventIds: ["id1"], selector: "id" }], any))
    const forgotten = (rows: Array<Record<string, unknown>>) =>
      rows.filter((row) => row["event_id"] !== "id1" && row["type"] !== "MemoryForgotten")
    const afterForget = db.prepare(EVERYTHING).all() as Array<Record<string, unknown>>
    expect(forgotten(afterForget)).toEqual(forgotten(before))
    expect(afterForget.find((row) => row["event_id"] === "id1")).toMatchObject({
      payload: REDACTED_PAYLOAD,
      metadata: before[1]!["metadata"]
    })
    // Packed again, now with the metadata in the block; an idempotent append still finds its batch.
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 3, events: 5, blocks: 1 })
    expect(db.prepare(EVERYTHING).all()).toEqual(afterForget)
    expect(payloadOnlyPacked(db)).toBe(0)
    const again = run(
      log.append("session:b", [{ _tag: "SessionEnded", sessionId: "b", reason: "exit" }], {
        ...any,
        idempotencyKey: "key"
      })
    )
    expect(again).toMatchObject({ written: false, events: [{ eventId: "id4", position: 5 }] })
    db.close()
  })

  it("repacks a schema-2 block with its events' metadata, at the next compaction", () => {
    const { path, before } = schema2Log()
    const db = run(openDatabase(path))
    const oldBlock = db.prepare("SELECT id FROM payload_blocks").pluck().get()
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 2, events: 5, blocks: 1 })
    expect(payloadOnlyPacked(db)).toBe(0)
    expect(db.prepare("SELECT count(*) FROM event_rows WHERE block_id IS NULL").pluck().get()).toBe(0)
    expect(db.prepare("SELECT id FROM payload_blocks").pluck().all()).not.toContain(oldBlock)
    expect(db.prepare(EVERYTHING).all()).toEqual(before)
    db.close()
  })

  it("leaves a damaged schema-2 block as it is, and packs the rest", () => {
    const { path } = schema2Log()
    const db = run(openDatabase(path))
    db.exec("DROP TRIGGER payload_blocks_never_change; UPDATE payload_blocks SET data = x'00112233'")
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 1, events: 2, blocks: 1 })
    expect(payloadOnlyPacked(db)).toBe(3)
    expect(() => db.prepare(EVERYTHING).all()).toThrow(/payload block 1 is damaged/)
    db.close()
  })
})
