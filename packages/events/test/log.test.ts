import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"
import {
  IdempotencyConflict,
  InvalidEvent,
  type RalphMemEvent,
  readEvents,
  type ReadQuery,
  REDACTED_PAYLOAD,
  StorageError,
  VERSION,
  WrongExpectedVersion
} from "../src/index.ts"
import { failure, freshLog, observed, run, started } from "./helpers.ts"

const any = { expectedVersion: "any", writer: "test" } as const
const collect = <A, E>(stream: Stream.Stream<A, E>) => Effect.runSync(Stream.runCollect(stream))
const count = (db: ReturnType<typeof freshLog>["db"]) => db.prepare("SELECT count(*) FROM events").pluck().get()

describe("appending", () => {
  it("stores a batch with gap-free global positions and per-stream versions", () => {
    const { log } = freshLog()
    const a = run(log.append("session:a", [started("a"), observed("a", "ls")], any))
    const b = run(log.append("session:b", [started("b")], any))
    const c = run(log.append("session:a", [observed("a", "pwd")], any))
    expect([...a.events, ...b.events, ...c.events].map((e) => [e.position, e.streamId, e.streamVersion])).toEqual([
      [1, "session:a", 1],
      [2, "session:a", 2],
      [3, "session:b", 1],
      [4, "session:a", 3]
    ])
    expect(run(log.headPosition)).toBe(4)
    expect(run(log.streamVersion("session:a"))).toBe(3)
    expect(run(log.streamVersion("session:none"))).toBe(0)
  })

  it("records metadata: writer, version, correlation and causation ids, and the time", () => {
    const { log } = freshLog()
    const { events } = run(
      log.append("session:a", [started("a")], {
        ...any,
        writer: "hook:SessionStart",
        correlationId: "corr",
        causationId: "cause",
        occurredAt: 1_700_000_000_000
      })
    )
    const [stored] = collect(readEvents(log))
    const { event: _, ...appended } = events[0] as (typeof events)[0] & { event?: unknown }
    expect(stored).toEqual(appended)
    expect(stored!.metadata).toEqual({
      writer: "hook:SessionStart",
      version: VERSION,
      correlationId: "corr",
      causationId: "cause"
    })
    expect(stored!.occurredAt).toBe(1_700_000_000_000)
    expect(stored!.eventId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
    expect(stored!.payload).toEqual({ sessionId: "a", projectPath: "/work/project", source: "startup" })
  })

  it("honours expected versions: no_stream, exact, any", () => {
    const { log } = freshLog()
    run(log.append("s", [started("a")], { ...any, expectedVersion: "no_stream" }))
    run(log.append("s", [observed("a", "1")], { ...any, expectedVersion: 1 }))
    run(log.append("s", [observed("a", "2")], any))
    expect(run(log.streamVersion("s"))).toBe(3)
  })

  it.each(
    [
      ["no_stream", "no stream (0)"],
      [1, "1"],
      [5, "5"]
    ] as const
  )("refuses expected version %s on a stream at 2, writing nothing", (expectedVersion, described) => {
    const { log, db } = freshLog()
    run(log.append("s", [started("a"), observed("a", "x")], any))
    const error = failure(log.append("s", [observed("a", "late")], { ...any, expectedVersion }))
    expect(error).toBeInstanceOf(WrongExpectedVersion)
    expect(error).toMatchObject({ streamId: "s", expected: described, actual: 2 })
    expect(count(db)).toBe(2)
  })

  it("rejects an invalid event before writing anything of its batch", () => {
    const { log, db } = freshLog()
    const bad = {
      _tag: "ObservationRecorded",
      sessionId: "a",
      kind: "guess",
      content: "x",
      files: []
    } as unknown as RalphMemEvent
    const error = failure(log.append("s", [started("a"), bad], any))
    expect(error).toBeInstanceOf(InvalidEvent)
    expect(error.message).toMatch(/ObservationRecorded/)
    expect(count(db)).toBe(0)
  })

  it("rejects an empty batch and an empty stream id", () => {
    const { log } = freshLog()
    expect(failure(log.append("s", [], any)).message).toMatch(/nothing to append/)
    expect(failure(log.append("", [started("a")], any)).message).toMatch(/stream id is empty/)
  })

  it("returns the original events for a reused idempotency key and writes nothing", () => {
    const { log, db } = freshLog()
    const first = run(log.append("s", [started("a"), observed("a", "x")], { ...any, idempotencyKey: "tool-1" }))
    const again = run(
      log.append("s", [started("a"), observed("a", "x")], { ...any, idempotencyKey: "tool-1", expectedVersion: 0 })
    )
    expect(first.written).toBe(true)
    expect(again.written).toBe(false)
    expect(again.events.map((e) => e.eventId)).toEqual(first.events.map((e) => e.eventId))
    expect(count(db)).toBe(2)
  })

  it("refuses a reused idempotency key for a different batch", () => {
    const { log, db } = freshLog()
    run(log.append("s", [started("a"), observed("a", "x")], { ...any, idempotencyKey: "k" }))
    for (
      const [stream, events] of [
        ["other", [started("a"), observed("a", "x")]],
        ["s", [started("a")]],
        ["s", [observed("a", "x"), observed("a", "x")]]
      ] as const
    ) {
      expect(failure(log.append(stream, events, { ...any, idempotencyKey: "k" }))).toBeInstanceOf(IdempotencyConflict)
    }
    expect(count(db)).toBe(2)
  })

  it("runs listeners inside the transaction: a throwing listener rolls the append back", () => {
    const seen: Array<string> = []
    const { log, db } = freshLog({
      listeners: [
        (_, events) => {
          for (const e of events) seen.push(`${e.position}:${e.event?._tag}`)
          if (events.some((e) => e.event?._tag === "SessionEnded")) throw new Error("projection failed")
        }
      ]
    })
    run(log.append("s", [started("a")], any))
    const error = failure(log.append("s", [{ _tag: "SessionEnded", sessionId: "a", reason: "exit" }], any))
    expect(error).toBeInstanceOf(StorageError)
    expect(error.message).toMatch(/projection failed/)
    expect(seen).toEqual(["1:SessionStarted", "2:SessionEnded"])
    expect(count(db)).toBe(1)
    // the position freed by the rollback is reused: still gap-free
    expect(run(log.append("s", [observed("a", "x")], any)).events[0]!.position).toBe(2)
  })
})

describe("immutability, enforced by SQLite", () => {
  it("refuses UPDATE and DELETE of events", () => {
    const { log, db } = freshLog()
    run(log.append("s", [started("a")], any))
    expect(() => db.prepare("DELETE FROM event_rows").run()).toThrow(/immutable/)
    expect(() => db.prepare("UPDATE event_rows SET type = type + 1").run()).toThrow(/immutable/)
    expect(() => db.prepare("UPDATE event_rows SET stream = stream + 1").run()).toThrow(/immutable/)
    // Stream ids and types are stored once each: renaming one would rewrite every event that has it.
    expect(() => db.prepare("UPDATE streams SET name = 'other'").run()).toThrow(/immutable/)
    expect(() => db.prepare("DELETE FROM streams").run()).toThrow(/immutable/)
    expect(() => db.prepare("UPDATE event_types SET name = 'SessionEnded'").run()).toThrow(/immutable/)
    expect(() => db.prepare("DELETE FROM event_types").run()).toThrow(/immutable/)
    expect(() => db.prepare("UPDATE event_rows SET payload = '{}'").run()).toThrow(/immutable/)
    expect(() => db.prepare("UPDATE event_rows SET stream_version = 9").run()).toThrow(/immutable/)
    // Readers see the log through a view, which takes no writes at all.
    expect(() => db.prepare("DELETE FROM events").run()).toThrow(/it is a view/)
  })

  it("refuses non-contiguous stream versions and invalid JSON even from raw SQL", () => {
    const { log, db } = freshLog()
    run(log.append("s", [started("a")], any))
    const insert = db.prepare(
      "INSERT INTO event_rows (event_id, stream, stream_version, type, schema_version, payload, metadata, occurred_at)"
        + " VALUES (?, 1, ?, 1, 1, ?, '{}', 0)"
    )
    expect(() => insert.run("x1", 3, "{}")).toThrow(/contiguous/)
    expect(() => insert.run("x2", 2, "{not json")).toThrow(/CHECK constraint/)
  })

  it("redacts, in the same append, the events a MemoryForgotten names, keeping ids and positions", () => {
    const { log, db } = freshLog()
    const { events } = run(log.append("s", [started("a"), observed("a", "my secret plan")], any))
    const target = events[1]!
    const forget = run(
      log.append("memory:forgets", [{ _tag: "MemoryForgotten", eventIds: [target.eventId], selector: "id" }], any)
    ).events[0]!
    const stored = collect(readEvents(log, { streamId: "s" }))
    expect(stored[1]).toMatchObject({
      position: target.position,
      eventId: target.eventId,
      streamVersion: 2,
      redactedBy: forget.eventId
    })
    expect(JSON.stringify(stored[1]!.payload)).toBe(REDACTED_PAYLOAD)
    expect(stored[0]!.redactedBy).toBeNull()
    expect(run(log.decode(stored[1]!)).event).toBeNull()
    // one way: a redacted event cannot be changed again, not even un-redacted
    expect(() => db.prepare("UPDATE event_rows SET redacted_by = NULL, payload = '{}' WHERE position = 2").run())
      .toThrow(/immutable/)
  })

  it("permits a redaction only on behalf of a MemoryForgotten event, even from raw SQL", () => {
    const { log, db } = freshLog()
    const { events } = run(log.append("s", [started("a"), observed("a", "x")], any))
    const redact = db.prepare(
      `UPDATE event_rows SET payload = '${REDACTED_PAYLOAD}', redacted_by = ? WHERE position = 2`
    )
    expect(() => redact.run(events[0]!.eventId)).toThrow(/redaction by a MemoryForgotten/)
    expect(() => redact.run("no-such-event")).toThrow(/redaction by a MemoryForgotten/)
    expect(() =>
      db.prepare(`UPDATE event_rows SET payload = '{"redacted":false}', redacted_by = ? WHERE position = 2`).run(
        events[0]!.eventId
      )
    ).toThrow(/immutable/)
  })
})

describe("reading", () => {
  const seed = () => {
    const fixture = freshLog()
    for (let i = 0; i < 25; i++) {
      const stream = `session:${i % 3}`
      run(
        fixture.log.append(stream, [i < 3 ? started(String(i)) : observed(String(i % 3), `step ${i}`)], {
          ...any,
          occurredAt: 1000 + i * 10
        })
      )
    }
    return fixture
  }

  it("reads everything from a global position, in order, across pages", () => {
    const { log } = seed()
    const all = collect(readEvents(log, { pageSize: 4 }))
    expect(all.map((e) => e.position)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    expect(collect(readEvents(log, { afterPosition: 20, pageSize: 2 })).map((e) => e.position)).toEqual([
      21,
      22,
      23,
      24,
      25
    ])
  })

  it("reads one stream from a version", () => {
    const { log } = seed()
    const stream = collect(readEvents(log, { streamId: "session:1", fromStreamVersion: 7, pageSize: 2 }))
    expect(stream.map((e) => e.streamVersion)).toEqual([7, 8])
    expect(stream.every((e) => e.streamId === "session:1")).toBe(true)
  })

  it("reads by type and by time range, with a limit", () => {
    const { log } = seed()
    expect(collect(readEvents(log, { types: ["SessionStarted"] })).map((e) => e.position)).toEqual([1, 2, 3])
    expect(collect(readEvents(log, { since: 1050, until: 1100 })).map((e) => e.occurredAt)).toEqual([
      1050,
      1060,
      1070,
      1080,
      1090
    ])
    expect(collect(readEvents(log, { types: ["ObservationRecorded"], limit: 3, pageSize: 2 })).map((e) => e.position))
      .toEqual([4, 5, 6])
  })

  it("counts the events a query matches, whatever its limit, as reading them would find them", () => {
    const { log } = seed()
    const queries: ReadonlyArray<ReadQuery> = [
      {},
      { types: ["ObservationRecorded"] },
      { streamId: "session:1", fromStreamVersion: 3 },
      { since: 1050, until: 1100, newestFirst: true },
      { beforePosition: 10, newestFirst: true, types: ["SessionStarted", "ObservationRecorded"] },
      { streamId: "nothing" }
    ]
    for (const query of queries) {
      const matching = collect(readEvents(log, query)).length
      expect(run(log.count(query)), JSON.stringify(query)).toBe(matching)
      expect(run(log.count({ ...query, limit: 1 })), JSON.stringify(query)).toBe(matching)
    }
    expect(run(log.count({}))).toBe(25)
  })

  it("decodes what it reads into domain events", () => {
    const { log } = seed()
    const first = collect(readEvents(log, { limit: 1 }))[0]!
    expect(run(log.decode(first)).event).toEqual(started("0"))
  })

  it("streams a large log in pages without holding it in memory", () => {
    const { log } = freshLog()
    const batch = Array.from({ length: 500 }, (_, i) => observed("big", `line ${i}`))
    for (let i = 0; i < 20; i++) run(log.append("session:big", batch, any))
    let seen = 0
    let last = 0
    Effect.runSync(
      Stream.runForEach(readEvents(log, { pageSize: 256 }), (e) =>
        Effect.sync(() => {
          expect(e.position).toBe(last + 1)
          last = e.position
          seen++
        }))
    )
    expect(seen).toBe(10_000)
  })
})
