import { catalog, compactLog, makeEventLog, readEvents } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { failure, run } from "../../events/test/helpers.ts"
import { PARALLEL_FOLD_FROM_EVENTS } from "../src/fold-in-worker.ts"
import {
  allProjections,
  makeProjectionRunner,
  type MemoryStore,
  type Projection,
  replay,
  scrubAfterForget,
  sessions,
  sql,
  verify
} from "../src/index.ts"
import { openMemory } from "../src/memory-store.ts"
import { ended, observation, prompt, started } from "./events.ts"
import { append, dump, given, open, rows, T0 } from "./spec.ts"

const sample = [
  ["session:a", started("a")],
  ["session:a", prompt("a", "why does login fail?")],
  ["session:a", observation("a", "TokenExpiredError at refresh()", { kind: "error", files: ["src/auth.ts"] })],
  ["session:b", started("b")],
  ["session:b", observation("b", "npm test passed", { kind: "success" })],
  ["session:a", observation("a", "patched refresh window")],
  ["session:a", ended("a")]
] as const

describe("checkpoints", () => {
  it("advance with every append, inside the same transaction", () => {
    const memory = given(sample)
    for (const p of allProjections) {
      expect(memory.runner.checkpoint(p.name)).toEqual({ version: p.version, position: 7 })
    }
  })

  it("refuse an event applied twice: delivering the same batch again changes nothing", () => {
    const memory = given(sample)
    const before = dump(memory)
    const lastTwo = Effect.runSync(Stream.runCollect(readEvents(memory.log, { afterPosition: 5 })))
    const decoded = Effect.runSync(Effect.forEach(lastTwo, memory.log.decode))
    expect(decoded.map((e) => e.position)).toEqual([6, 7])
    memory.db.transaction(() => memory.runner.listener(memory.db, decoded))()
    expect(dump(memory)).toBe(before)
  })
})

describe("catching up", () => {
  it("after a crash between append and projection: the next open projects what was missed", () => {
    const memory = given(sample.slice(0, 3))
    // A writer that appended without projecting (it died before its projection ran).
    const bare = makeEventLog(memory.db, catalog)
    for (const [stream, event] of sample.slice(3)) {
      run(bare.append(stream, [event], { expectedVersion: "any", writer: "crashed" }))
    }
    expect(memory.runner.checkpoint("observations")!.position).toBe(3)
    memory.db.close()
    const reopened = open(memory.path)
    expect(reopened.runner.checkpoint("observations")!.position).toBe(7)
    expect(rows(reopened, "SELECT id FROM observations ORDER BY id")).toEqual([{ id: 3 }, { id: 5 }, { id: 6 }])
    expect(run(verify(reopened)).findings).toEqual([])
  })

  it("inline: an append that finds its projections behind catches them up first", () => {
    const memory = given(sample.slice(0, 2))
    const bare = makeEventLog(memory.db, catalog)
    run(
      bare.append("session:a", [observation("a", "missed by the projection")], {
        expectedVersion: "any",
        writer: "crashed"
      })
    )
    append(memory, [["session:a", observation("a", "seen")]])
    expect(rows(memory, "SELECT content FROM observations ORDER BY id")).toEqual([
      { content: "missed by the projection" },
      { content: "seen" }
    ])
  })

  it("rebuilds a projection whose version changed", () => {
    const memory = given(sample)
    memory.db.prepare("UPDATE sessions SET prompts = 99").run()
    memory.db.close()
    const bumped: Projection = { ...sessions, version: sessions.version + 1 }
    const reopened = run(openMemory({ path: memory.path, projections: [bumped] }))
    expect(rows(reopened, "SELECT session_id, prompts FROM sessions ORDER BY session_id")).toEqual([
      { session_id: "a", prompts: 1 },
      { session_id: "b", prompts: 0 }
    ])
    expect(reopened.runner.checkpoint("sessions")).toEqual({ version: sessions.version + 1, position: 7 })
    reopened.db.close()
  })
})

describe("upgrading", () => {
  it("drops what an earlier version created, whatever kind each object was, before building the new one", () => {
    const v1: Projection = {
      name: "notes",
      version: 1,
      create: "CREATE TABLE notes (id INTEGER PRIMARY KEY) STRICT; CREATE TABLE notes_extra (id INTEGER) STRICT;",
      finish: "CREATE INDEX notes_extra_by_id ON notes_extra (id);",
      tables: [{ name: "notes", orderBy: "id" }],
      indexes: [],
      apply: () => [],
      clearStream: () => []
    }
    const v2: Projection = {
      ...v1,
      version: 2,
      create: "CREATE TABLE note_rows (id INTEGER PRIMARY KEY) STRICT;",
      finish: "CREATE VIEW notes AS SELECT id FROM note_rows;",
      tables: [{ name: "note_rows", orderBy: "id" }],
      retired: ["notes_extra"]
    }
    const memory = given(sample)
    makeProjectionRunner(memory.db, [v1]).prepare()
    makeProjectionRunner(memory.db, [v2]).prepare()
    expect(rows(memory, "SELECT type, name FROM sqlite_schema WHERE name LIKE 'note%' ORDER BY name")).toEqual([
      { type: "table", name: "note_rows" },
      { type: "view", name: "notes" }
    ])
  })
})

describe("forgetting", () => {
  it("leaves no trace of a forgotten observation in the table or the index, and equals a replay", () => {
    const memory = given(sample)
    const [target] = rows(memory, "SELECT event_id FROM observations WHERE content LIKE 'TokenExpired%'") as Array<
      { event_id: string }
    >
    append(memory, [["memory:forgets", { _tag: "MemoryForgotten", eventIds: [target!.event_id], selector: "id" }]])
    expect(rows(memory, "SELECT content FROM observations ORDER BY id")).toEqual([
      { content: "npm test passed" },
      { content: "patched refresh window" }
    ])
    expect(
      rows(memory, "SELECT rowid FROM observations_fts WHERE observations_fts MATCH 'TokenExpiredError OR refresh'")
    ).toEqual([
      { rowid: 6 }
    ])
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("leaves none of its tokens readable in the file: the contentless index is purged in the same transaction", () => {
    const memory = given([...sample, [
      "session:b",
      observation("b", "zanzibarquokka leaked", { files: ["src/quokkaledger.ts"] })
    ]])
    const bytes = () =>
      ["", "-wal"].map((
        suffix
      ) => (existsSync(memory.path + suffix) ? readFileSync(memory.path + suffix).toString("latin1") : "")).join("")
    scrubAfterForget(memory.db, memory.path)
    expect(bytes()).toContain("zanzibarquokka")
    const [target] = rows(memory, "SELECT event_id FROM observations WHERE content LIKE 'zanzibar%'") as Array<
      { event_id: string }
    >
    append(memory, [["memory:forgets", { _tag: "MemoryForgotten", eventIds: [target!.event_id], selector: "id" }]])
    scrubAfterForget(memory.db, memory.path)
    expect(bytes()).not.toContain("zanzibarquokka")
    expect(bytes()).not.toContain("quokkaledger")
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("removes a whole forgotten session from every read model", () => {
    const memory = given(sample)
    const ids = memory.db.prepare("SELECT event_id FROM events WHERE stream_id = 'session:a'").pluck().all() as Array<
      string
    >
    append(memory, [["memory:forgets", { _tag: "MemoryForgotten", eventIds: ids, selector: "session a" }]])
    expect(rows(memory, "SELECT session_id FROM sessions")).toEqual([{ session_id: "b" }])
    expect(rows(memory, "SELECT DISTINCT session_id FROM observations")).toEqual([{ session_id: "b" }])
    expect(run(verify(memory)).findings).toEqual([])
  })
})

describe("replay", () => {
  it("rebuilds byte-identical content, twice in a row, equal to what appends built inline", () => {
    const memory = given(sample)
    const inline = dump(memory)
    const first = run(replay(memory))
    expect(first).toMatchObject({
      projections: ["sessions", "observations", "loop_runs", "failures", "decisions", "beliefs", "tasks"],
      events: 7,
      threads: 1
    })
    expect(dump(memory)).toBe(inline)
    run(replay(memory))
    expect(dump(memory)).toBe(inline)
  })

  it("drops replaced read models without zeroing them, then zeroes deleted content again, replayed or failed", () => {
    const memory = given(sample)
    run(replay(memory))
    expect(memory.db.pragma("secure_delete", { simple: true })).toBe(1)
    const failing: Projection = {
      ...sessions,
      apply: () => {
        throw new Error("disk on fire")
      }
    }
    expect(() => makeProjectionRunner(memory.db, [failing, ...allProjections.slice(1)]).rebuild()).toThrow(
      /disk on fire/
    )
    expect(memory.db.pragma("secure_delete", { simple: true })).toBe(1)
  })

  it("rebuilds one projection by name, and refuses an unknown name", () => {
    const memory = given(sample)
    memory.db.prepare("DELETE FROM sessions").run()
    expect(run(replay(memory, { projection: "sessions" })).projections).toEqual(["sessions"])
    expect(rows(memory, "SELECT count(*) AS n FROM sessions")).toEqual([{ n: 2 }])
    expect(failure(replay(memory, { projection: "nope" })).message).toMatch(
      /no projection named "nope"; known: sessions, observations, loop_runs/
    )
  })

  it("rebuilds what a projection depends on with it: an observation before its session's start stays a replay", () => {
    const memory = given([
      ["session:late", observation("late", "recorded before the session start arrived")],
      ["session:late", started("late")],
      ["session:late", observation("late", "recorded after it")]
    ])
    expect(run(replay(memory, { projection: "observations" })).projections).toEqual(["sessions", "observations"])
    expect(run(verify(memory)).findings).toEqual([])
    expect(rows(memory, "SELECT project_path FROM observations ORDER BY id")).toEqual([{ project_path: null }, {
      project_path: "/work/app"
    }])
  })

  it("survives a fold whose statements flush the full-text index at every event (each adds a segment)", () => {
    // A multi-row INSERT opens a savepoint, and FTS5 writes its pending rows as a new segment at each
    // one; FTS5 refuses more than 2,000 segments, so a rebuild must keep merging them as they pile up.
    const pairs: Projection = {
      name: "pairs",
      version: 1,
      create: `CREATE TABLE pairs (id INTEGER NOT NULL, side INTEGER NOT NULL CHECK (side IN (0, 1)),
               PRIMARY KEY (id, side)) STRICT;`,
      finish: "",
      tables: [{ name: "pairs", orderBy: "id, side" }],
      indexes: [],
      apply: (
        event
      ) => (event.event._tag === "ObservationRecorded"
        ? [sql("INSERT INTO pairs VALUES (?, 0), (?, 1)", event.position, event.position)]
        : []),
      clearStream: () => []
    }
    const memory = open()
    const events = Array.from({ length: 4100 }, (_, i) => observation("a", `step ${i}`))
    run(memory.log.append("session:a", events, { expectedVersion: "any", writer: "spec" }))
    const report = makeProjectionRunner(memory.db, [...allProjections, pairs]).rebuild()
    expect(report.events).toBe(4100)
    expect(rows(memory, "SELECT count(*) AS n FROM observations_fts WHERE observations_fts MATCH 'step'")).toEqual([{
      n: 4100
    }])
  })

  it("is atomic: a failure part-way leaves the old state exactly as it was", () => {
    const memory = given(sample)
    const before = dump(memory)
    let applied = 0
    const failing: Projection = {
      ...sessions,
      apply: (event) => {
        if (++applied === 5) throw new Error("disk on fire")
        return sessions.apply(event)
      }
    }
    const runner = makeProjectionRunner(memory.db, [failing, ...allProjections.slice(1)])
    expect(() => runner.rebuild()).toThrow(/disk on fire/)
    expect(dump(memory)).toBe(before)
  })
})

describe("replay of a long log, on two threads", () => {
  /** Each test appends, replays and verifies 50,000 events: minutes on a loaded 2-core machine. */
  const LONG_LOG_TIMEOUT_MS = 600_000
  /** `sessions` sessions of a start, 100 observations (identifiers, Korean, paths) and an end, one batch each. */
  const longLog = (memory: MemoryStore, sessions: number, log = memory.log) => {
    for (let s = 0; s < sessions; s++) {
      const events = [
        started(`s${s}`),
        ...Array.from(
          { length: 100 },
          (_, i) =>
            observation(`s${s}`, `step ${i} of ${s}: TokenExpiredError at refresh_${i % 7}() 인증에서 실패`, {
              kind: i % 9 === 0 ? "error" : "tool_use",
              inputSummary: `npm test -- auth-${i}`,
              files: [`src/auth/part${i % 13}.ts`]
            })
        ),
        ended(`s${s}`)
      ]
      run(log.append(`session:s${s}`, events, { expectedVersion: "any", writer: "spec", occurredAt: T0 + s * 1000 }))
    }
  }

  it("equals what appends built inline and what a one-thread fold builds (verify), with progress to the end", () => {
    const memory = open()
    longLog(memory, 520)
    const events = 520 * 102
    expect(events).toBeGreaterThan(PARALLEL_FOLD_FROM_EVENTS)
    const inline = dump(memory)
    const progress: Array<number> = []
    const report = memory.runner.rebuild(undefined, ({ done, total }) => {
      expect(total).toBe(events)
      progress.push(done)
    })
    expect(report).toMatchObject({ events, threads: 2 })
    expect(dump(memory)).toBe(inline)
    // verify folds on this thread into a fresh database and compares every row and every index token.
    expect(run(verify(memory)).findings).toEqual([])
    expect(progress.at(-1)).toBe(events)
    expect(progress.length).toBeGreaterThanOrEqual(5)
    expect([...progress].sort((a, b) => a - b)).toEqual(progress)
    expect(rows(memory, "SELECT count(*) AS n FROM observations_fts WHERE observations_fts MATCH '\"인증\"*'")).toEqual(
      [{ n: 52_000 }]
    )
  }, LONG_LOG_TIMEOUT_MS)

  it("from a log whose older half is packed into blocks, builds what appends built inline", () => {
    const memory = open()
    longLog(memory, 520)
    const inline = dump(memory)
    // Sessions idle for 260 s at that time are packed, the newer ones are not: a replay reads both kinds.
    const packed = compactLog(memory.db, { idleMs: 260_000, now: T0 + 520_000 })
    expect(packed.streams).toBeGreaterThan(200)
    expect(packed.streams).toBeLessThan(300)
    expect(memory.runner.rebuild(undefined)).toMatchObject({ events: 520 * 102, threads: 2 })
    expect(dump(memory)).toBe(inline)
    expect(run(verify(memory)).findings).toEqual([])
  }, LONG_LOG_TIMEOUT_MS)

  it.each([
    [
      "cannot decode (a schema version no ralph-mem wrote)",
      99,
      "{\"sessionId\":\"bad\"}",
      "UndecodableEvent",
      /^event #51001 cannot be decoded/
    ],
    [
      "cannot fold (stored as valid, yet without its files)",
      1,
      "{\"sessionId\":\"bad\",\"kind\":\"error\",\"content\":\"x\"}",
      "StorageError",
      /^replay failed: .*join/
    ]
  ])(
    "fails as a whole on an event the worker %s, saying why, and leaves the old state as it was",
    (_, schemaVersion, payload, tag, message) => {
      const memory = open()
      longLog(memory, 500, makeEventLog(memory.db, catalog))
      // Written behind the log's back, after every event the worker folds.
      memory.db
        .prepare(`INSERT INTO streams (name) VALUES ('session:bad')`)
        .run()
      memory.db
        .prepare(
          `INSERT INTO event_rows (event_id, stream, stream_version, type, schema_version, payload, metadata,
                                  occurred_at)
                VALUES ('01JBAD0000000000000000000', (SELECT id FROM streams WHERE name = 'session:bad'), 1,
                        (SELECT id FROM event_types WHERE name = 'ObservationRecorded'), ?, ?,
                        '{"writer":"spec","version":"0"}', 0)`
        )
        .run(schemaVersion, payload)
      const before = dump(memory)
      const failed = failure(replay(memory))
      expect(failed._tag).toBe(tag)
      expect(failed.message).toMatch(message)
      expect(dump(memory)).toBe(before)
    },
    LONG_LOG_TIMEOUT_MS
  )
})

describe("verify", () => {
  it("is clean on a healthy database", () => {
    const report = run(verify(given(sample)))
    expect(report).toMatchObject({ ok: true, events: 7, findings: [] })
    expect(report.checks).toContain("projections equal a replay")
  })

  it("reports a projection row that differs from a replay, naming table and row", () => {
    const memory = given(sample)
    memory.db.prepare("UPDATE sessions SET prompts = 5 WHERE session_id = 'a'").run()
    const report = run(verify(memory))
    expect(report.ok).toBe(false)
    expect(report.findings).toEqual([
      {
        check: "projections equal a replay",
        detail: expect.stringMatching(/^projection sessions, table sessions: row 1 differs: stored .*5.*replayed/)
      }
    ])
  })

  it("reports a full-text index that differs from a replay of the log, naming the token", () => {
    const memory = given(sample)
    memory.db.prepare("DELETE FROM observations_fts WHERE rowid = 3").run()
    memory.db.prepare("INSERT INTO observations_fts (rowid, body) VALUES (3, 'edited behind the index')").run()
    expect(run(verify(memory)).findings).toEqual([
      {
        check: "projections equal a replay",
        detail: expect.stringMatching(
          /^projection observations, full-text index observations_fts: term ".+" is missing from the stored index \(/
        )
      }
    ])
  })

  it("reports a term only the stored full-text index holds, and one instance more of a term both hold", () => {
    const memory = given(sample)
    memory.db.prepare("INSERT INTO observations_fts (rowid, body) VALUES (999, 'zzzplanted')").run()
    expect(run(verify(memory)).findings).toEqual([{
      check: "projections equal a replay",
      detail: "projection observations, full-text index observations_fts: "
        + "term \"zzzplanted\" is in the stored index (1 instance), not in a replay"
    }])
    memory.db.prepare("DELETE FROM observations_fts WHERE rowid = 999").run()
    expect(run(verify(memory)).findings).toEqual([])
    // A word the replay holds too, in one more document: the first instance that differs is named.
    const [term, held] = memory.db.prepare(
      "SELECT term, count(*) FROM temp.observations_fts_tokens GROUP BY term ORDER BY term LIMIT 1"
    ).raw().get() as [string, number]
    memory.db.prepare("INSERT INTO observations_fts (rowid, title) VALUES (999, ?)").run(`x ${term}`)
    expect(run(verify(memory)).findings).toEqual([{
      check: "projections equal a replay",
      detail: `projection observations, full-text index observations_fts: term ${JSON.stringify(term)}, instance ${
        held + 1
      } (document, column, offset) differs: stored 999,title,1, replayed none`
    }])
  })

  it("names the term the indexes differ by in SQLite's order, past U+FFFF too", () => {
    // A term of a letter past U+FFFF (an extension B ideograph) both indexes hold, and one of fullwidth letters only
    // the stored one does: SQLite orders them by UTF-8, the fullwidth first; JavaScript by UTF-16, the other way.
    const ideograph = `${String.fromCodePoint(0x20000)}x`
    const memory = given([...sample, ["session:b", observation("b", `read ${ideograph}`)]])
    memory.db.prepare("INSERT INTO observations_fts (rowid, body) VALUES (999, ?)").run("\uFF59\uFF59")
    expect(run(verify(memory)).findings).toEqual([{
      check: "projections equal a replay",
      detail: "projection observations, full-text index observations_fts: "
        + "term \"\uFF59\uFF59\" is in the stored index (1 instance), not in a replay"
    }])
  })

  it("reports a projection left behind the log", () => {
    const memory = given(sample)
    run(
      makeEventLog(memory.db, catalog).append("session:c", [started("c")], { expectedVersion: "any", writer: "bare" })
    )
    const findings = run(verify(memory)).findings
    expect(findings).toContainEqual({
      check: "checkpoints current",
      detail: "projection sessions is at position 7, the log at 8"
    })
  })
})
