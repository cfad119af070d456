import type { RalphMemEvent, SqliteDatabase } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { fullDetails, searchIndex, timelineOf } from "../src/search/index.ts"
import { observation, started } from "./events.ts"
import { append, open, T0 } from "./spec.ts"

const DAY = 86_400_000

/** Null for each parameter of a statement, named (`@ids`) or not (`?`): enough to ask SQLite for its plan. */
const placeholders = (sql: string): Array<unknown> => {
  const named = [...sql.matchAll(/@(\w+)/g)].map((m) => m[1]!)
  if (named.length > 0) return [Object.fromEntries(named.map((name) => [name, null]))]
  return Array<null>(sql.split("?").length - 1).fill(null)
}

/**
 * What a connection prepares from now on (it prepares each statement of a search on its first search): the SQL of
 * each statement, the first argument of each `all` call (a MATCH expression, say), and the connection's own prepare.
 */
const watchStatements = (db: SqliteDatabase) => {
  const prepared: Array<string> = []
  const asked: Array<{ readonly sql: string; readonly first: unknown }> = []
  const prepare = db.prepare.bind(db)
  db.prepare = ((source: string) => {
    prepared.push(source)
    const statement = prepare(source)
    const all = statement.all.bind(statement)
    statement.all = ((...parameters: Array<unknown>) => {
      asked.push({ sql: source, first: parameters[0] })
      return all(...parameters)
    }) as typeof statement.all
    return statement
  }) as typeof db.prepare
  return { prepared, asked, prepare }
}

/** Two sessions in /work/app, one elsewhere; returns the event id of each observation by label. */
const corpus = () => {
  const memory = open()
  const ids: Record<string, string> = {}
  const add = (label: string, stream: string, event: RalphMemEvent, daysAgo: number) => {
    ids[label] = append(memory, [[stream, event]], T0 - daysAgo * DAY)[0]!.eventId
  }
  append(memory, [["session:a", started("a")], ["session:b", started("b")]], T0 - 40 * DAY)
  append(memory, [["session:x", {
    _tag: "SessionStarted",
    sessionId: "x",
    projectPath: "/elsewhere",
    source: "startup"
  }]], T0 - 40 * DAY)
  add("install", "session:a", observation("a", "npm install finished, 312 packages"), 30)
  add(
    "expired",
    "session:a",
    observation("a", "TokenExpiredError: jwt expired in refreshSession", { kind: "error", inputSummary: "npm test" }),
    29
  )
  add(
    "fix",
    "session:a",
    observation("a", "extended the token lifetime to one hour", {
      toolName: "Edit",
      files: ["src/auth/token_store.ts"]
    }),
    29
  )
  add(
    "green",
    "session:a",
    observation("a", "PASS src/auth.test.ts", { kind: "success", inputSummary: "npm test" }),
    28
  )
  add("old-timeout", "session:b", observation("b", "payment gateway timeout after 30s", { kind: "error" }), 20)
  add("new-timeout", "session:b", observation("b", "payment gateway timeout after 30s", { kind: "error" }), 1)
  add("elsewhere", "session:x", observation("x", "TokenExpiredError somewhere else", { kind: "error" }), 1)
  append(memory, [["session:a", {
    _tag: "SessionSummarized",
    sessionId: "a",
    summary: "Fixed login: refreshSession now renews tokens",
    summarizer: "local"
  }]], T0 - 27 * DAY)
  return { memory, ids }
}

describe("layer 1: the index", () => {
  it("ranks a project's hits, one line each, with token estimates that add up", () => {
    const { memory, ids } = corpus()
    const { hits, totalTokens } = searchIndex(memory.db, { query: "token expired", project: "/work/app", now: T0 })
    expect(hits[0]).toMatchObject({ kind: "observation", id: ids["expired"], type: "error", sessionId: "a" })
    expect(hits[0]!.title).toBe("Bash npm test: TokenExpiredError: jwt expired in refreshSession")
    expect(hits.map((h) => h.id)).not.toContain(ids["elsewhere"])
    for (const hit of hits) expect(hit.tokens).toBeGreaterThan(0)
    expect(totalTokens).toBe(hits.reduce((sum, h) => sum + h.tokens, 0))
  })

  it("finds session summaries too", () => {
    const { memory } = corpus()
    const { hits } = searchIndex(memory.db, { query: "login renews", project: "/work/app", now: T0 })
    // Its one summary holds every word, so bm25's idf gives them next to nothing: the observations holding
    // `session` (a synonym of login) may come first.
    expect(hits.find((h) => h.kind === "session")).toMatchObject({
      id: "a",
      type: "summary",
      title: "Fixed login: refreshSession now renews tokens"
    })
  })

  it("matches substrings of identifiers", () => {
    const { memory, ids } = corpus()
    expect(searchIndex(memory.db, { query: "xpiredErr", project: "/work/app", now: T0 }).hits[0]?.id).toBe(
      ids["expired"]
    )
    expect(searchIndex(memory.db, { query: "n_stor", project: "/work/app", now: T0 }).hits[0]?.id).toBe(ids["fix"])
  })

  it("breaks a tie by recency", () => {
    const { memory, ids } = corpus()
    const { hits } = searchIndex(memory.db, { query: "payment timeout", project: "/work/app", now: T0 })
    expect(hits.slice(0, 2).map((h) => h.id)).toEqual([ids["new-timeout"], ids["old-timeout"]])
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score)
  })

  it("filters by type, session, time and limit", () => {
    const { memory, ids } = corpus()
    const search = (extra: object) =>
      searchIndex(memory.db, { query: "npm test token timeout", project: "/work/app", now: T0, ...extra }).hits.map((
        h
      ) => h.id)
    expect(search({ types: ["success"] })).toEqual([ids["green"]])
    expect(search({ sessionId: "b" }).sort()).toEqual([ids["new-timeout"], ids["old-timeout"]].sort())
    expect(search({ since: T0 - 2 * DAY })).toEqual([ids["new-timeout"]])
    expect(search({ until: T0 - 25 * DAY, types: ["error"] })).toEqual([ids["expired"]])
    expect(search({ limit: 2 })).toHaveLength(2)
  })

  it("never fails on FTS syntax in the query, and finds nothing in punctuation", () => {
    const { memory } = corpus()
    for (const query of ["\"unterminated", "foo*", "NEAR(a b)", "-x", "col:val", "(paren", "AND OR NOT", "'"]) {
      expect(() => searchIndex(memory.db, { query, project: "/work/app", now: T0 })).not.toThrow()
    }
    expect(searchIndex(memory.db, { query: "!!! ... ???", now: T0 }).hits).toEqual([])
  })
})

describe("layers 2 and 3", () => {
  it("layer 2 shows each hit with its neighbours in its session, in time order", () => {
    const { memory, ids } = corpus()
    const { hits } = searchIndex(memory.db, { query: "extended lifetime", project: "/work/app", now: T0, limit: 1 })
    const [entry] = timelineOf(memory.db, hits)
    expect(entry!.before.map((d) => d.id)).toEqual([ids["install"], ids["expired"]])
    expect(entry!.after.map((d) => d.id)).toEqual([ids["green"]])
    expect(entry!.tokens).toBeGreaterThan(entry!.hit.tokens)
  })

  it("layer 3 gives complete observations by id, skipping unknown ids", () => {
    const { memory, ids } = corpus()
    const [detail] = fullDetails(memory.db, [ids["fix"]!, "no-such-id"])
    expect(detail).toMatchObject({
      id: ids["fix"],
      toolName: "Edit",
      content: "extended the token lifetime to one hour",
      files: ["src/auth/token_store.ts"],
      metadata: {}
    })
    expect(fullDetails(memory.db, ["no-such-id"])).toEqual([])
  })

  it("layer 3 takes short ids (`@12`, `12`) and event ids together, each observation once, in log order", () => {
    const { memory, ids } = corpus()
    const [fix] = fullDetails(memory.db, [ids["fix"]!])
    const [expired] = fullDetails(memory.db, [ids["expired"]!])
    const both = fullDetails(memory.db, [`@${fix!.position}`, ids["expired"]!, String(expired!.position), ids["fix"]!])
    expect(both.map((d) => d.id)).toEqual([fix!, expired!].sort((a, b) => a.position - b.position).map((d) => d.id))
    expect(fullDetails(memory.db, ["@999999"])).toEqual([])
  })
})

describe("common terms", () => {
  /** 600 observations: every one says "build", 1 in 4 "builder", 1 in 100 "flaky". */
  const large = () => {
    const memory = open()
    const events: Array<RalphMemEvent> = Array.from(
      { length: 600 },
      (_, i) => observation("a", `build step ${i}${i % 4 === 0 ? " builder" : ""}${i % 100 === 0 ? " flaky" : ""}`)
    )
    Effect.runSync(memory.log.append("session:a", events, { expectedVersion: "any", writer: "spec", occurredAt: T0 }))
    return memory
  }

  it("leaves out a term most rows hold, and a prefix whose expansions most rows hold, keeping the rare ones", () => {
    const memory = large()
    const flaky = [0, 100, 200, 300, 400, 500].map((i) => `Bash: build step ${i} builder flaky`)
    for (const query of ["build flaky", "buil flaky"]) {
      expect(searchIndex(memory.db, { query, now: T0, limit: 20 }).hits.map((h) => h.title).sort()).toEqual(
        flaky.sort()
      )
    }
  })

  it("narrows a prefix whose expansions most rows hold to its word, alone or with other words", () => {
    const memory = open()
    const events: Array<RalphMemEvent> = Array.from(
      { length: 600 },
      (_, i) =>
        observation(
          "a",
          i % 100 === 0
            ? `queue overflow in worker ${i}`
            : `at processTicksAndRejections (node:internal/process/task_queues:95:5) ${i}`
        )
    )
    Effect.runSync(memory.log.append("session:a", events, { expectedVersion: "any", writer: "spec", occurredAt: T0 }))
    const overflows = [0, 100, 200, 300, 400, 500].map((i) => `Bash: queue overflow in worker ${i}`).sort()
    for (const query of ["queue", "queue worker"]) {
      expect(searchIndex(memory.db, { query, now: T0, limit: 20 }).hits.map((h) => h.title).sort()).toEqual(overflows)
    }
  })

  it("keeps a prefix whose longer words are each in at most a fifth of the newest rows, however many they are", () => {
    const memory = open()
    const text = (
      i: number
    ) => (i < 100 ? `deploys ${i}` : i < 200 ? `deployed ${i}` : i < 206 ? `deploy ${i}` : `compile ${i}`)
    Effect.runSync(
      memory.log.append("session:a", Array.from({ length: 600 }, (_, i) => observation("a", text(i))), {
        expectedVersion: "any",
        writer: "spec",
        occurredAt: T0
      })
    )
    expect(searchIndex(memory.db, { query: "deploy", now: T0, limit: 300 }).hits).toHaveLength(206)
  })

  it("keeps the rarest term when every term is common", () => {
    const memory = large()
    const hits = searchIndex(memory.db, { query: "step builder", now: T0, limit: 200 }).hits
    expect(hits).toHaveLength(150)
    expect(hits.every((h) => h.title.includes("builder"))).toBe(true)
  })
})

describe("prefix terms", () => {
  /** `count` observations saying `word`, then one saying only a longer word that starts with it. */
  const memoryWith = (word: string, count: number, longer: string) => {
    const memory = open()
    const events = [
      ...Array.from({ length: count }, (_, i) => observation("a", `${word} step ${i}`)),
      observation("a", `only ${longer} here`)
    ]
    Effect.runSync(memory.log.append("session:a", events, { expectedVersion: "any", writer: "spec", occurredAt: T0 }))
    return memory
  }
  const titles = (memory: ReturnType<typeof open>, query: string) =>
    searchIndex(memory.db, { query, now: T0, limit: 200 }).hits.map((h) => h.title)

  it("find longer words while fewer than 100 observations hold the word itself", () => {
    expect(titles(memoryWith("token", 99, "tokens"), "token")).toContain("Bash: only tokens here")
  })

  it("find the word as written once 100 observations hold it", () => {
    const found = titles(memoryWith("token", 100, "tokens"), "token")
    expect(found).toHaveLength(100)
    expect(found).not.toContain("Bash: only tokens here")
  })

  it("stay prefixes for a Hangul stem, however many observations hold it", () => {
    expect(titles(memoryWith("인증", 150, "인증을"), "인증")).toContain("Bash: only 인증을 here")
  })
})

describe("a memory where more rows match than are scored", () => {
  /**
   * Old, in /work/b: three observations say "deploy rollback failed" and one just "deploy deploy" (the best
   * bm25 for "deploy" of all). Then 6,600 newer ones in /work/a, one in sixteen "deploy step N" (413: more
   * than the 300 newest matches a search scores, fewer than 1,000, and not common).
   */
  const crowded = () => {
    const memory = open()
    append(memory, [["session:b", {
      _tag: "SessionStarted",
      sessionId: "b",
      projectPath: "/work/b",
      source: "startup"
    }]], T0 - 3 * DAY)
    const old = append(
      memory,
      [0, 1, 2].map((i) =>
        ["session:b", observation("b", `deploy rollback failed, attempt ${i}`, { kind: "error" })] as const
      ),
      T0 - 2 * DAY
    )
    const strongest = append(memory, [["session:b", observation("b", "deploy deploy")]], T0 - 2 * DAY)[0]!.eventId
    append(memory, [["session:c", {
      _tag: "SessionStarted",
      sessionId: "c",
      projectPath: "/work/c",
      source: "startup"
    }]], T0 - 3 * DAY)
    const canary = append(
      memory,
      [["session:c", observation("c", "canary deploy halted at 10%", { kind: "error" })]],
      T0 - 2 * DAY
    )[0]!.eventId
    append(memory, [["session:a", started("a")]], T0 - DAY)
    const newer = Array.from(
      { length: 6600 },
      (_, i) => observation("a", i % 16 === 0 ? `deploy step ${i}` : `compile module ${i}`)
    )
    Effect.runSync(
      memory.log.append("session:a", newer, { expectedVersion: "any", writer: "spec", occurredAt: T0 - DAY / 2 })
    )
    return { memory, old: old.map((e) => e.eventId), strongest, canary }
  }

  it("still finds the older rows that hold every word", () => {
    const { memory, old } = crowded()
    const { hits } = searchIndex(memory.db, { query: "deploy rollback", now: T0 })
    expect(hits.slice(0, 3).map((h) => h.id).sort()).toEqual([...old].sort())
  })

  it("widens the scan past the newest matches when a filter leaves too few", () => {
    const { memory, old, strongest } = crowded()
    const { hits } = searchIndex(memory.db, { query: "deploy", project: "/work/b", now: T0 })
    expect(hits.map((h) => h.id).sort()).toEqual([...old, strongest].sort())
    expect(hits[0]!.id).toBe(strongest)
  })

  it("scores nothing for a project that holds none of the memory (one moved away from it), where it scored all", () => {
    const { memory } = crowded()
    // This connection has searched nothing yet: every statement a search runs is prepared on it now.
    const { prepared } = watchStatements(memory.db)
    expect(searchIndex(memory.db, { query: "deploy rollback", project: "/work/moved", now: T0 }).hits).toEqual([])
    expect(prepared.filter((sql) => sql.includes("MATCH"))).toEqual([])
    // The same words in a project that holds them: scored as ever.
    expect(searchIndex(memory.db, { query: "deploy rollback", project: "/work/b", now: T0 }).hits).toHaveLength(4)
    expect(prepared.some((sql) => sql.includes("bm25(observations_fts"))).toBe(true)
  })

  it("reads the log for the hits alone: the scored rows are filtered and ranked on the read model", () => {
    const { memory } = crowded()
    const { prepared, prepare } = watchStatements(memory.db)
    const since = T0 - 100 * DAY
    expect(searchIndex(memory.db, { query: "deploy rollback", project: "/work/b", since, now: T0 }).hits).toHaveLength(
      4
    )
    // Each statement's program, as SQLite would run it: which ones open the log's table.
    const log = prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'event_rows'").pluck().get()
    const readsTheLog = prepared.filter((sql) =>
      (prepare(`EXPLAIN ${sql}`).all(...placeholders(sql)) as Array<{ opcode: string; p2: number }>).some((step) =>
        step.opcode === "OpenRead" && step.p2 === log
      )
    )
    expect(readsTheLog).toHaveLength(1)
    expect(readsTheLog[0]).toMatch(/FROM observations WHERE id IN/)
  })

  it("scores the rarest word alone only when it is rare: every row holding it, however old", () => {
    const { memory } = crowded()
    const { asked } = watchStatements(memory.db)
    // What each bm25 pass of the observations asks.
    const passes = () => asked.filter((call) => call.sql.includes("bm25(observations_fts")).map((call) => call.first)
    // `step` and `deploy` are each in over 400 rows: the newest of them were scored with the other word's.
    searchIndex(memory.db, { query: "deploy step", standIns: false, now: T0 })
    expect(passes()).toEqual(["\"deploy\" OR \"step\"", "(\"deploy\") AND (\"step\")"])
    // `canary` is in one row: it is scored alone too, and found however many newer rows hold `deploy`.
    asked.length = 0
    searchIndex(memory.db, { query: "canary deploy", standIns: false, now: T0 })
    expect(passes()).toContain("\"canary\"*")
  })

  it("finds an older row holding the query's rarest word, though it lacks one of the words newer rows hold", () => {
    const { memory, canary } = crowded()
    const { hits } = searchIndex(memory.db, { query: "canary deploy step", now: T0 })
    expect(hits[0]?.id).toBe(canary)
  })

  it("scores only the newest 300 matches of a word: an older, better match is not among them", () => {
    const { memory, strongest } = crowded()
    const { hits } = searchIndex(memory.db, { query: "deploy", now: T0, limit: 5 })
    expect(hits).toHaveLength(5)
    expect(hits.every((h) => h.title.startsWith("Bash: deploy step"))).toBe(true)
    expect(hits.map((h) => h.id)).not.toContain(strongest)
  })
})

describe("session summaries", () => {
  /** One old session summarized "deploy deploy" (the best bm25 for "deploy"), then 120 newer ones "deploy step N". */
  const summarized = () => {
    const memory = open()
    const session = (id: string, summary: string, daysAgo: number) =>
      append(memory, [
        [`session:${id}`, { _tag: "SessionStarted", sessionId: id, projectPath: "/work/app", source: "startup" }],
        [`session:${id}`, { _tag: "SessionSummarized", sessionId: id, summary, summarizer: "local" }]
      ], T0 - daysAgo * DAY)
    session("old", "deploy deploy", 3)
    for (let i = 0; i < 120; i++) session(`s${i}`, `deploy step ${i}`, 2)
    return memory
  }

  it("are scored for the newest 100 that match: an older, better summary is not among them", () => {
    const { hits } = searchIndex(summarized().db, { query: "deploy", now: T0 })
    expect(hits).toHaveLength(10)
    expect(hits.every((h) => h.kind === "session" && h.title.startsWith("deploy step"))).toBe(true)
  })
})
