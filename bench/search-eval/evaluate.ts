/**
 * Runs the search evaluation: the corpus (corpus.ts) stored through the real event log and projections, then
 * optionally buried under later ordinary work (burial.ts), searched through the real engine as the
 * UserPromptSubmit hook searches (the project, 5 hits), each query checked for its memory in the top 1 and 3.
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import { type MemoryStore, openMemory } from "@ralph-mem/projections"
import { searchIndex } from "@ralph-mem/projections/search"
import * as Effect from "effect/Effect"
import { burialObservations } from "./burial.ts"
import { EVAL_PROJECT, type EvalMemory, memories } from "./corpus.ts"
import { type EvalGroup, evalQueries, type EvalQuery } from "./queries.ts"

/** Fixed, so recency is the same on every run. */
export const EVAL_NOW = Date.parse("2026-11-20T09:00:00Z")
const DAY = 86_400_000
const MINUTE = 60_000
/** The later work spans the days after the corpus's newest memory and before NOW. */
const BURIAL_DAYS = 18
const BURIAL_SESSION = 20
/** As the UserPromptSubmit hook asks. */
const HITS = 5

const observed = (sessionId: string, m: Omit<EvalMemory, "key" | "daysAgo">): RalphMemEvent => ({
  _tag: "ObservationRecorded",
  sessionId,
  kind: m.kind,
  ...(m.toolName === undefined ? {} : { toolName: m.toolName }),
  ...(m.inputSummary === undefined ? {} : { inputSummary: m.inputSummary }),
  content: m.content,
  files: m.files ?? [],
  ...(m.errorMessage === undefined ? {} : { errorMessage: m.errorMessage })
})

const started = (sessionId: string): RalphMemEvent => ({
  _tag: "SessionStarted",
  sessionId,
  projectPath: EVAL_PROJECT,
  source: "startup"
})

export interface EvalMemoryDatabase {
  readonly memory: MemoryStore
  /** Corpus key -> event id. */
  readonly eventIdOf: ReadonlyMap<string, string>
}

/** The corpus, each memory in a session of its own, then `buried` later observations in sessions of 20. */
export const buildEvalMemory = (path: string, buried: number): EvalMemoryDatabase => {
  const memory = Effect.runSync(openMemory({ path }))
  const append = (streamId: string, events: ReadonlyArray<RalphMemEvent>, occurredAt: number) =>
    Effect.runSync(memory.log.append(streamId, events, { expectedVersion: "any", writer: "eval", occurredAt })).events
  const eventIdOf = new Map<string, string>()
  for (const m of [...memories].sort((a, b) => b.daysAgo - a.daysAgo)) {
    const sessionId = `eval-${m.key}`
    const at = EVAL_NOW - m.daysAgo * DAY
    append(`session:${sessionId}`, [started(sessionId)], at - MINUTE)
    eventIdOf.set(m.key, append(`session:${sessionId}`, [observed(sessionId, m)], at)[0]!.eventId)
  }
  const later = burialObservations(buried)
  const start = EVAL_NOW - BURIAL_DAYS * DAY
  const step = (BURIAL_DAYS * DAY) / Math.max(1, later.length)
  for (let s = 0; s * BURIAL_SESSION < later.length; s++) {
    const sessionId = `work-${s}`
    const batch = later.slice(s * BURIAL_SESSION, (s + 1) * BURIAL_SESSION)
    const at = start + s * BURIAL_SESSION * step
    // One append per session: the events of a batch share its time, which is all recency looks at.
    append(`session:${sessionId}`, [started(sessionId), ...batch.map((o) => observed(sessionId, o))], at)
  }
  return { memory, eventIdOf }
}

export interface QueryOutcome extends EvalQuery {
  /** 1-based, or undefined when not among the hits. */
  readonly rank: number | undefined
}

export interface Score {
  readonly queries: number
  readonly top1: number
  readonly top3: number
}

export interface EvalReport {
  readonly buried: number
  readonly overall: Score
  readonly groups: Readonly<Record<EvalGroup, Score>>
  readonly outcomes: ReadonlyArray<QueryOutcome>
}

const scoreOf = (outcomes: ReadonlyArray<QueryOutcome>): Score => ({
  queries: outcomes.length,
  top1: outcomes.filter((o) => o.rank === 1).length / outcomes.length,
  top3: outcomes.filter((o) => o.rank !== undefined && o.rank <= 3).length / outcomes.length
})

export const GROUPS: ReadonlyArray<EvalGroup> = ["direct", "paraphrase", "ko-en", "en-ko", "error-code"]

export const runEval = (db: EvalMemoryDatabase, buried: number): EvalReport => {
  const outcomes = evalQueries.map((q) => {
    const { hits } = searchIndex(db.memory.db, { query: q.query, project: EVAL_PROJECT, now: EVAL_NOW, limit: HITS })
    const at = hits.findIndex((h) => h.id === db.eventIdOf.get(q.expect))
    return { ...q, rank: at === -1 ? undefined : at + 1 }
  })
  const groups = Object.fromEntries(GROUPS.map((g) => [g, scoreOf(outcomes.filter((o) => o.group === g))])) as Record<
    EvalGroup,
    Score
  >
  return { buried, overall: scoreOf(outcomes), groups, outcomes }
}

/** Every query names a memory of the corpus, and no two memories share a key. */
export const corpusProblems = (): ReadonlyArray<string> => {
  const keys = memories.map((m) => m.key)
  const duplicates = keys.filter((k, i) => keys.indexOf(k) !== i).map((k) => `duplicate key ${k}`)
  const unknown = evalQueries.filter((q) => !keys.includes(q.expect)).map((q) =>
    `${JSON.stringify(q.query)} expects unknown ${q.expect}`
  )
  return [...duplicates, ...unknown]
}
