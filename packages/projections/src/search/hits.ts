/**
 * Layer 1 of the search: ranked hits, one line each (~50-100 tokens), with a total token estimate. Layers 2
 * and 3 (each hit's neighbours in its session, complete observations) are in details.ts.
 *
 * Ranking: relevance is FTS5's bm25 (negated, so higher is better), with column weights (tool and
 * input 3, text and files 1, identifier parts 0.5); when words find fewer hits than asked for, substring
 * matches on identifiers (index terms that contain a piece of the query) fill in at half weight. Recency
 * multiplies it: score = relevance * ((1 - w) + w * 0.5^(ageDays / halfLife)), so with the defaults (w = 0.3,
 * halfLife = 14 days) a month-old hit keeps about 76% of its relevance and ties go to the newer one. Both are
 * configurable (memory.search in the config).
 *
 * Words: any term of the query (see query.ts) may match; which are asked, and how, is term pruning (terms.ts).
 * Which rows are scored, and how filters apply, is candidates.ts: bounded work on a large memory.
 *
 * Stand-ins: what the words also mean (lexicon.ts: Korean-English bridge, error knowledge, synonyms, English
 * word forms) is scored the same way in a pass of its own and added at half weight or less (`standInTerms`),
 * and every hit's relevance is then multiplied by the share of the query's words it holds, as typed or
 * through a stand-in (coverage.ts). Only the hits are read from the log.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { oneLine } from "../text.ts"
import {
  anyOf,
  candidates,
  keepBest,
  observationsCanPass,
  observationScorer,
  observationsPassing,
  scoredByTerms,
  type SearchFilters,
  substringQuery,
  summariesCanPass,
  summariesPassing,
  summaryScorer
} from "./candidates.ts"
import { conceptsOf, coverageOf } from "./coverage.ts"
import { matchTerms } from "./query.ts"
import { statement } from "./statements.ts"
import { selectiveTerms, STAND_IN_DIVISOR, standInTerms, termStatistics } from "./terms.ts"
import { estimateTokens } from "./tokens.ts"

export type ObservationType = "tool_use" | "error" | "success" | "note"

export interface Recency {
  readonly halfLifeDays: number
  readonly weight: number
}

export const defaultRecency: Recency = { halfLifeDays: 14, weight: 0.3 }

export interface SearchOptions {
  readonly query: string
  readonly project?: string
  readonly sessionId?: string
  /** Leaves out one session (the current one: its memory is already in Claude's context). */
  readonly excludeSessionId?: string
  readonly types?: ReadonlyArray<ObservationType>
  /** ms, inclusive */
  readonly since?: number
  /** ms, exclusive */
  readonly until?: number
  /** default 10 */
  readonly limit?: number
  /** ms, for the recency component (default now) */
  readonly now?: number
  readonly recency?: Recency
  /**
   * Also ask for the terms that stand for the query's words (other languages, error codes, synonyms, word
   * forms: lexicon.ts). Default true; `forget` asks for the words only, so it never selects what was not named.
   */
  readonly standIns?: boolean
}

export interface IndexHit {
  readonly kind: "observation" | "session"
  /** The observation's event id, or the session id for a session summary. */
  readonly id: string
  /** Higher is better. */
  readonly score: number
  readonly sessionId: string | null
  readonly type: string
  readonly title: string
  readonly createdAt: number
  readonly tokens: number
}

const DAY = 86_400_000
const CANDIDATES_PER_HIT = 5

const recencyFactor = (createdAt: number, now: number, recency: Recency) =>
  1 - recency.weight + recency.weight * 0.5 ** (Math.max(0, now - createdAt) / DAY / recency.halfLifeDays)

interface HitText {
  readonly eventId: string
  readonly title: string
}

/**
 * Each hit's event id and one line: tool and input, then the start of the text (read from the log for the hits only).
 */
const hitTexts = (db: SqliteDatabase, ids: ReadonlyArray<number>): Map<number, HitText> => {
  const rows = statement(
    db,
    `SELECT id, event_id AS eventId, tool_name AS toolName, input_summary AS inputSummary,
            substr(content, 1, 400) AS content
     FROM observations WHERE id IN (SELECT value FROM json_each(?))`
  ).all(JSON.stringify(ids)) as Array<
    { id: number; eventId: string; toolName: string | null; inputSummary: string | null; content: string }
  >
  return new Map(rows.map((r) => [r.id, {
    eventId: r.eventId,
    title: oneLine(
      [r.toolName, r.inputSummary].filter(Boolean).join(" ") + (r.toolName || r.inputSummary ? ": " : "") + r.content,
      160
    )
  }]))
}

const withTokens = (hit: Omit<IndexHit, "tokens">): IndexHit => ({
  ...hit,
  tokens: estimateTokens(
    `${hit.id} ${hit.type} ${hit.sessionId ?? ""} ${new Date(hit.createdAt).toISOString()} ${hit.title}`
  )
})

/** A hit before its id and title are read: `position` is its event's (an observation's, or its session's first). */
interface RankedHit extends Omit<IndexHit, "id" | "title" | "tokens"> {
  readonly position: number
  readonly summary?: string
}

/**
 * Layer 1: ranked one-line hits for a free-text query, with their total token estimate. One read
 * transaction: every statement sees the same memory, and none takes the database's read lock again.
 */
export const searchIndex = (
  db: SqliteDatabase,
  options: SearchOptions
): { readonly hits: ReadonlyArray<IndexHit>; readonly totalTokens: number } =>
  db.transaction(() => rankedHits(db, options))()

const rankedHits = (
  db: SqliteDatabase,
  options: SearchOptions
): { readonly hits: ReadonlyArray<IndexHit>; readonly totalTokens: number } => {
  const limit = options.limit ?? 10
  const wanted = limit * CANDIDATES_PER_HIT
  const filters: SearchFilters = {
    project: options.project ?? null,
    session: options.sessionId ?? null,
    exclude: options.excludeSessionId ?? null,
    types: options.types === undefined ? null : JSON.stringify(options.types),
    since: options.since ?? 0,
    until: options.until ?? Number.MAX_SAFE_INTEGER
  }
  // A project with nothing to find is told so at once: the scans would widen to every match of the memory.
  const observationsFound = observationsCanPass(db, filters)
  const summariesFound = options.types === undefined && summariesCanPass(db, filters)
  if (!observationsFound && !summariesFound) return { hits: [], totalTokens: 0 }
  const asked = matchTerms(options.query)
  const statistics = termStatistics(db)
  const { corpus, judgeTerm } = statistics
  const selected = selectiveTerms(asked, judgeTerm)
  const words = selected.length === 0 ? undefined : anyOf(selected)
  const now = options.now ?? Date.now()
  const recency = options.recency ?? defaultRecency
  const passing = observationsPassing(db, filters)
  // The best relevance per observation, from the user's words or substrings of them.
  const best = observationsFound ? scoredByTerms(db, statistics, selected, wanted, passing) : new Map()
  // Substrings are the fallback for what words cannot find (`xpiredErr`): the pieces of a common
  // identifier are in nearly every row, and would cost more than everything else.
  if (observationsFound && best.size < limit) {
    const substrings = substringQuery(db, options.query)
    if (substrings !== undefined) {
      keepBest(best, candidates(db, observationScorer, substrings, wanted, passing).rows, 0.5)
    }
  }
  // What the words also mean (other languages, error codes, synonyms, word forms), at a lower weight.
  const standIns = options.standIns === false || !observationsFound
    ? []
    : standInTerms(options.query, asked, statistics)
  for (const [id, row] of scoredByTerms(db, statistics, standIns.filter((t) => t.times > 0), wanted, passing)) {
    const relevance = row.relevance / STAND_IN_DIVISOR
    const seen = best.get(id)
    best.set(id, { ...(seen ?? row), relevance: (seen?.relevance ?? 0) + relevance })
  }
  // Coverage orders hits that hold the query in other words than the user's: without those, bm25 does.
  const concepts = standIns.length === 0 ? [] : conceptsOf(options.query, corpus, judgeTerm, standIns)
  const coverage = coverageOf(statistics, concepts)
  if (coverage !== undefined) {
    for (const [id, row] of best) {
      best.set(id, { ...row, relevance: row.relevance * coverage(id) })
    }
  }
  const ranked: Array<RankedHit> = [...best.values()].map((c) => ({
    kind: "observation",
    position: c.id,
    score: c.relevance * recencyFactor(c.createdAt, now, recency),
    sessionId: c.sessionId,
    type: c.type,
    createdAt: c.createdAt
  }))
  if (words !== undefined && summariesFound) {
    for (const s of candidates(db, summaryScorer, words, wanted, summariesPassing(db, filters)).rows) {
      ranked.push({
        kind: "session",
        position: s.id,
        score: -s.rank * recencyFactor(s.createdAt, now, recency),
        sessionId: s.sessionId,
        type: "summary",
        summary: s.summary,
        createdAt: s.createdAt
      })
    }
  }
  // Ties go to the newer, then to the later event.
  const top = ranked.sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.position - a.position).slice(
    0,
    limit
  )
  const texts = hitTexts(db, top.flatMap((h) => (h.kind === "observation" ? [h.position] : [])))
  const hits = top.map(({ position, summary, ...hit }) => {
    if (summary !== undefined) return withTokens({ ...hit, id: hit.sessionId!, title: oneLine(summary, 160) })
    const { eventId, title } = texts.get(position)!
    return withTokens({ ...hit, id: eventId, title })
  })
  return { hits, totalTokens: hits.reduce((sum, h) => sum + h.tokens, 0) }
}
