import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { compactLog, decodeBlock, encodeBlock, LATEST_SCHEMA_VERSION, newSqliteDatabase, openDatabase, readEvents, REDACTED_PAYLOAD } from "../src/index.ts"
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
      const output = `FAIL src/payment/gateway.test.ts > retries ${session} ${i}\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)`
      run(fixture.log.append(`session:${session}`, [observed(session, output)], { ...any, occurredAt: at + i }))
    }
  }
  return fixture
}

const rawRows = (db: ReturnType<typeof freshLog>["db"]) =>
  db.prepare("SELECT position, payload, block_id AS block, block_slot AS slot FROM event_rows ORDER BY position").all() as Array<{
    position: number
    payload: string | null
    block: number | null
    slot: number | null
  }>

describe("payload blocks", () => {
  it("round-trip payloads, and refuse bytes that are not a block", () => {
    const payloads = ['{"a":1}', '{"text":"한국어 \\n \\"quoted\\""}', "{}"]
    expect(decodeBlock(encodeBlock(payloads))).toEqual(payloads)
    expect(() => decodeBlock(Buffer.from("not deflate"))).toThrow()
    expect(() => decodeBlock(encodeBlock([]).subarray(0, 1))).toThrow()
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
    expect(rows.filter((r) => r.block !== null).map((r) => r.position)).toEqual(before.filter((e) => e.streamId === "session:a").map((e) => e.position))
    expect(rows.filter((r) => r.block !== null).every((r) => r.payload === null)).toBe(true)
    expect(collect(readEvents(log))).toEqual(before)

    // A new connection (another process) reads them too, through the view's functions.
    const reader = run(openDatabase(path))
    expect(reader.prepare("SELECT payload FROM events ORDER BY position").pluck().all()).toEqual(before.map((e) => JSON.stringify(e.payload)))
    reader.close()

    // Again with no idle time: the rest is packed; what is packed is not packed twice.
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 1, events: 21, blocks: 1 })
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ streams: 0, events: 0, blocks: 0 })
    expect(collect(readEvents(log))).toEqual(before)
    // Appends go on after packing, unpacked until the next compaction.
    const next = run(log.append("session:a", [observed("a", "after")], any)).events[0]!
    expect(rawRows(db).at(-1)).toMatchObject({ position: next.position, block: null })
  })

  it("splits a stream into blocks of a bounded size, and leaves a payload that would not shrink", () => {
    const { log, db } = seed()
    const report = compactLog(db, { idleMs: 0, maxBlockBytes: 1_000 })
    expect(report.blocks).toBeGreaterThan(4)
    expect(report.events).toBe(42)
    const blocks = db.prepare("SELECT first_position AS first, last_position AS last FROM payload_blocks ORDER BY id").all() as Array<{ first: number; last: number }>
    for (const block of blocks) expect(block.last).toBeGreaterThanOrEqual(block.first)
    const lone = freshLog()
    run(lone.log.append("session:x", [started("x")], any))
    expect(compactLog(lone.db, { idleMs: 0 })).toMatchObject({ events: 0, blocks: 0 })
    expect(collect(readEvents(log)).length).toBe(42)
  })

  it("refuses, even from raw SQL, a packing that changes a payload, an edited block, and deleting a block in use", () => {
    const { db } = seed()
    compactLog(db, { idleMs: 0 })
    const block = db.prepare("SELECT id, first_position AS first FROM payload_blocks ORDER BY id LIMIT 1").get() as { id: number; first: number }
    expect(() => db.prepare("UPDATE payload_blocks SET data = ? WHERE id = ?").run(encodeBlock(["{}"]), block.id)).toThrow(/immutable/)
    expect(() => db.prepare("DELETE FROM payload_blocks WHERE id = ?").run(block.id)).toThrow(/no event is packed/)
    // Unpacking must give back exactly what the block holds.
    expect(() => db.prepare("UPDATE event_rows SET payload = '{}', block_id = NULL, block_slot = NULL WHERE position = ?").run(block.first)).toThrow(/immutable/)
    // A block whose bytes differ from the payload cannot take it.
    const fresh = seed()
    const forged = Number(fresh.db.prepare("INSERT INTO payload_blocks (first_position, last_position, data) VALUES (1, 1, ?)").run(encodeBlock(['{"sessionId":"forged"}'])).lastInsertRowid)
    expect(() => fresh.db.prepare("UPDATE event_rows SET payload = NULL, block_id = ?, block_slot = 0 WHERE position = 1").run(forged)).toThrow(/immutable/)
    // Nor one whose positions do not cover the event, nor a slot it does not have.
    const honest = Number(fresh.db.prepare("INSERT INTO payload_blocks (first_position, last_position, data) VALUES (5, 5, ?)").run(
      encodeBlock([fresh.db.prepare("SELECT payload FROM event_rows WHERE position = 1").pluck().get() as string])
    ).lastInsertRowid)
    expect(() => fresh.db.prepare("UPDATE event_rows SET payload = NULL, block_id = ?, block_slot = 0 WHERE position = 1").run(honest)).toThrow(/immutable/)
    // An event is never appended packed.
    expect(() =>
      fresh.db.prepare(
        "INSERT INTO event_rows (event_id, stream_id, stream_version, type, schema_version, payload, metadata, occurred_at, block_id, block_slot) VALUES ('x', 'new', 1, 'SessionEnded', 1, NULL, '{}', 0, ?, 0)"
      ).run(honest)
    ).toThrow(/appended with its payload/)
  })

  it("a forget of a packed event unpacks its block, redacts it, and leaves its text nowhere in the file", () => {
    const { log, db, path } = seed()
    const secretSession = "c"
    const routine = Array.from({ length: 3 }, (_, i) => observed(secretSession, `npm test -- src/payment/gateway.test.ts passed, run ${i}`))
    run(log.append(`session:${secretSession}`, [started(secretSession), observed(secretSession, "the launch code is ZEBRA-PLUTO-4471"), ...routine], any))
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
      expect(decodeBlock(data).join("")).not.toContain("ZEBRA-PLUTO")
    }
    db.pragma("wal_checkpoint(TRUNCATE)")
    expect(readFileSync(path).includes("ZEBRA-PLUTO")).toBe(false)
    // Its neighbours are packed again by the next compaction; the redacted event is not.
    expect(compactLog(db, { idleMs: 0 })).toMatchObject({ events: 4 })
    expect(rawRows(db).find((r) => r.position === after[1]!.position)).toMatchObject({ payload: REDACTED_PAYLOAD, block: null })
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
      "INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, payload, metadata, occurred_at) VALUES (?, 'session:a', ?, 'ObservationRecorded', 1, ?, '{\"writer\":\"test\",\"version\":\"0\"}', ?)"
    )
    const payloads = Array.from({ length: 5 }, (_, i) => JSON.stringify({ sessionId: "a", kind: "tool_use", content: `step ${i}`, files: [] }))
    payloads.forEach((payload, i) => insert.run(`id${i}`, i + 1, payload, 1000 + i))
    old.close()

    const db = run(openDatabase(path))
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION)
    const read = () => db.prepare("SELECT position, event_id, stream_version, payload FROM events ORDER BY position").all()
    const expected = payloads.map((payload, i) => ({ position: i + 1, event_id: `id${i}`, stream_version: i + 1, payload }))
    expect(read()).toEqual(expected)
    expect(compactLog(db, { idleMs: 0 }).events).toBe(5)
    expect(read()).toEqual(expected)
    db.close()
  })
})
