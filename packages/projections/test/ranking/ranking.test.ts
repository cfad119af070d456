/**
 * Ranking on a realistic corpus: a real memory database built through the real store (event log +
 * projections), searched through the real engine. Each query's expected observation must be in the top 3.
 * A failure prints every query with its expected key and the top 3 hits, so a regression is easy to read.
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MemoryStore, openMemory } from "../../src/index.ts"
import { type IndexHit, searchIndex } from "../../src/search/index.ts"
import { allObservations, type FixtureObservation, OTHER, sessions, SHOP } from "./corpus.ts"
import { punctuationQueries, queries, type RankingQuery, TOP } from "./queries.ts"

/** Fixed, so the recency component is deterministic. */
const NOW = Date.parse("2026-11-20T09:00:00Z")
const DAY = 86_400_000
const MINUTE = 60_000

let folder: string
let memory: MemoryStore
/** Fixture key -> event id, and back. */
const eventIdOf = new Map<string, string>()
const keyOf = new Map<string, string>()
const otherSessions = new Set(sessions.filter((s) => s.projectPath === OTHER).map((s) => s.sessionId))
const otherEventIds = new Set<string>()

const observationEvent = (sessionId: string, o: FixtureObservation): RalphMemEvent => ({
  _tag: "ObservationRecorded",
  sessionId,
  kind: o.kind,
  ...(o.toolName === undefined ? {} : { toolName: o.toolName }),
  ...(o.inputSummary === undefined ? {} : { inputSummary: o.inputSummary }),
  content: o.content,
  files: o.files ?? [],
  ...(o.errorMessage === undefined ? {} : { errorMessage: o.errorMessage })
})

const append = (streamId: string, event: RalphMemEvent, occurredAt: number): string => {
  const result = Effect.runSync(
    memory.log.append(streamId, [event], { expectedVersion: "any", writer: "fixture", occurredAt })
  )
  const recorded = result.events[0]
  if (recorded === undefined) throw new Error(`nothing appended to ${streamId}`)
  return recorded.eventId
}

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "ralph-mem-ranking-"))
  memory = Effect.runSync(openMemory({ path: join(folder, "memory.db") }))
  for (const session of sessions) {
    const streamId = `session:${session.sessionId}`
    const count = session.observations.length
    // Within a session, observations are a minute apart, the last one at NOW - daysAgo days.
    const at = (o: FixtureObservation, i: number) => NOW - o.daysAgo * DAY - (count - i) * MINUTE
    const first = session.observations[0]
    if (first === undefined) continue
    append(streamId, {
      _tag: "SessionStarted",
      sessionId: session.sessionId,
      projectPath: session.projectPath,
      source: "startup"
    }, at(first, 0) - MINUTE)
    session.observations.forEach((o, i) => {
      const eventId = append(streamId, observationEvent(session.sessionId, o), at(o, i))
      eventIdOf.set(o.key, eventId)
      keyOf.set(eventId, o.key)
      if (session.projectPath === OTHER) otherEventIds.add(eventId)
    })
  }
})

afterAll(() => {
  if (memory?.db.open) memory.db.close()
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true })
})

const search = (query: string, limit = 10) => searchIndex(memory.db, { query, project: SHOP, now: NOW, limit })

const isFromOther = (hit: IndexHit) =>
  otherEventIds.has(hit.id) || (hit.sessionId !== null && otherSessions.has(hit.sessionId))

interface Outcome {
  readonly q: RankingQuery
  readonly rank: number | undefined
  readonly top: ReadonlyArray<IndexHit>
  readonly error: string | undefined
  readonly ok: boolean
}

const run = (q: RankingQuery): Outcome => {
  const expectedId = eventIdOf.get(q.expect)
  let hits: ReadonlyArray<IndexHit>
  try {
    hits = search(q.query).hits
  } catch (error) {
    return { q, rank: undefined, top: [], error: String(error), ok: false }
  }
  const rankOf = (id: string | undefined) => {
    const i = hits.findIndex((h) => h.id === id)
    return i === -1 ? undefined : i + 1
  }
  const rank = rankOf(expectedId)
  const beatsOk = q.beats === undefined ||
    (rank !== undefined && rank < (rankOf(eventIdOf.get(q.beats)) ?? Number.MAX_SAFE_INTEGER))
  return { q, rank, top: hits.slice(0, TOP), error: undefined, ok: rank !== undefined && rank <= TOP && beatsOk }
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

const table = (outcomes: ReadonlyArray<Outcome>): string => {
  const lines = outcomes.map(({ q, rank, top, error, ok }) => {
    const head = `${ok ? "ok  " : "FAIL"} [${q.category}] ${JSON.stringify(q.query)} -> ${q.expect}${
      q.beats === undefined ? "" : ` (above ${q.beats})`
    }: rank ${rank ?? "-"}`
    if (error !== undefined) return `${head}\n       threw: ${error}`
    const tops = top.map((h, i) =>
      `       ${i + 1}. ${keyOf.get(h.id) ?? `${h.kind}:${h.id}`} (${h.score.toFixed(3)}) ${cut(h.title, 90)}`
    )
    return [head, ...(ok ? [] : [`       note: ${q.note}`, ...tops])].join("\n")
  })
  const failed = outcomes.filter((o) => !o.ok).length
  return `${failed} of ${outcomes.length} queries missed their expected observation in the top ${TOP}:\n${
    lines.join("\n")
  }`
}

describe("ranking on a realistic corpus", () => {
  it("builds the corpus it claims: every fixture stored once, as written (no privacy redaction)", () => {
    expect(eventIdOf.size).toBe(allObservations.length)
    expect(allObservations.filter((o) => o.projectPath === SHOP).length).toBeGreaterThanOrEqual(150)
    const stored = memory.db.prepare("SELECT event_id AS id, content FROM observations").all() as Array<
      { id: string; content: string }
    >
    const byId = new Map(stored.map((r) => [r.id, r.content]))
    const changed = allObservations.filter((o) => byId.get(eventIdOf.get(o.key) ?? "") !== o.content).map((o) => o.key)
    expect(changed).toEqual([])
    const keys = new Set(allObservations.map((o) => o.key))
    expect(
      queries.filter((q) => !keys.has(q.expect) || (q.beats !== undefined && !keys.has(q.beats))).map((q) => q.expect)
    ).toEqual([])
    expect(queries.length).toBeGreaterThanOrEqual(40)
  })

  it(`finds each query's expected observation in the top ${TOP}`, () => {
    const outcomes = queries.map(run)
    const failed = outcomes.filter((o) => !o.ok)
    if (failed.length > 0) expect.fail(table(outcomes))
  })

  it("never returns an observation or session of another project", () => {
    const leaks: Array<string> = []
    for (const q of [...queries.map((q) => q.query), "error", "test", "npm", "결제", "token"]) {
      for (const hit of search(q, 100).hits) {
        if (isFromOther(hit)) leaks.push(`${JSON.stringify(q)} -> ${keyOf.get(hit.id) ?? hit.id}`)
      }
    }
    expect(leaks).toEqual([])
  })

  it("would find the other project's rows without the project filter (so the isolation check means something)", () => {
    const found = queries.flatMap((q) => searchIndex(memory.db, { query: q.query, now: NOW, limit: 100 }).hits).filter(
      isFromOther
    )
    expect(found.length).toBeGreaterThan(0)
  })

  it("returns no hits, and does not throw, for a query of only punctuation", () => {
    const found = punctuationQueries
      .map((query) => ({
        query,
        hits: search(query).hits.map((h) => `${keyOf.get(h.id) ?? h.id}: ${cut(h.title, 60)}`)
      }))
      .filter((r) => r.hits.length > 0)
    expect(found).toEqual([])
  })
})
