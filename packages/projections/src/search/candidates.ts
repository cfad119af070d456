/**
 * Candidates and filters: which rows bm25 scores, and which of them pass the search's filters. bm25 is
 * computed for the newest 300 observations that hold any word and, when there were more, for the newest 300
 * that hold every word and, when at most 300 rows hold the query's rarest words, for every one of them, so an
 * older row with all the words, or with the rarest of them, is still found; an older row with only words that
 * many newer rows hold is not. Session summaries: the newest 100 that hold any word. The best by bm25 are
 * checked against the filters until 5 per hit asked for pass (the scan widens when the scored ones run out
 * first).
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { IDENTIFIER_LIKE, substringPieces } from "./identifiers.ts"
import { isLatinPrefix, quote } from "./query.ts"
import { statement, values } from "./statements.ts"
import type { Selected, TermStatistics } from "./terms.ts"

/** Terms as one OR expression, each asked as many times as its weight says. */
export const anyOf = (terms: ReadonlyArray<Selected & { readonly times?: number }>): string =>
  terms.flatMap((t) => Array<string>(t.times ?? 1).fill(t.use)).join(" OR ")

/**
 * The query's rarest terms, rarest first, as many as together hold at most this many observations (the
 * rarest always), and whether they are rare (hold no more): every row holding one of them is then scored,
 * however old, so a memory holding the query's rarest words is found however much later work holds its other
 * words.
 */
const RARE_ROWS = 300

const rarestTerms = (
  statistics: TermStatistics,
  terms: ReadonlyArray<Selected>
): { readonly terms: ReadonlyArray<string>; readonly rare: boolean } => {
  // A prefix term matches more rows than its word (`permiss*` holds no row as a word, yet `permission` is in
  // hundreds): its rows are counted, up to the bound, before the terms are ordered.
  const rows = (term: Selected) =>
    isLatinPrefix(term.use) ? statistics.newest(term.use, RARE_ROWS + 1).length : term.held
  const counted = terms.map((term) => ({ use: term.use, rows: rows(term) })).sort((x, y) => x.rows - y.rows)
  const rare: Array<string> = []
  let total = 0
  for (const term of counted) {
    if (rare.length > 0 && total + term.rows > RARE_ROWS) break
    rare.push(term.use)
    total += term.rows
  }
  // More rows than are scored hold even the rarest: it is no rare word, and its newest rows are scored anyway.
  return { terms: rare, rare: total <= RARE_ROWS }
}

/** At most this many index terms stand in for the query's substrings. */
const MAX_SUBSTRING_TERMS = 64

/**
 * The index terms that contain a piece (3+ characters) of the query's identifier-like words (paths,
 * snake_case, CamelCase, with digits), as quoted terms: `xpiredErr` finds `tokenexpirederror`. Plain
 * words are left to the word index and its prefix matching.
 */
export const substringQuery = (db: SqliteDatabase, query: string): string | undefined => {
  const words = [...new Set(query.match(/[A-Za-z0-9_./-]{3,}/g) ?? [])].filter((w) => IDENTIFIER_LIKE.test(w)).slice(
    0,
    16
  )
  const pieces = [...new Set(words.flatMap(substringPieces))]
  if (pieces.length === 0) return undefined
  const terms = values(
    db,
    `SELECT term FROM observations_vocab WHERE EXISTS (SELECT 1 FROM json_each(?) WHERE instr(term, value) > 0)
     LIMIT ${MAX_SUBSTRING_TERMS}`
  ).all(JSON.stringify(pieces)) as Array<string>
  return terms.length === 0 ? undefined : terms.map(quote).join(" OR ")
}

/**
 * FTS5 computes bm25 for every row it returns (about 1 µs a row, more when its pages are not in memory),
 * so on a large memory a query whose words many rows hold would cost milliseconds: only its newest
 * matches are scored, this many observations and summaries (a summary stands for a whole session: fewer
 * of them reach as far back). The score favours recent rows anyway; an older row is found when fewer
 * newer ones match its words.
 */
const SCORED_OBSERVATIONS = 300
const SCORED_SUMMARIES = 100

/** A `rowid, bm25` query of the newest matches of a full-text index. */
interface Scorer {
  readonly sql: string
  /** At least this many of the newest matches are scored. */
  readonly scored: number
}

/**
 * The bm25 (lower is better) of a full-text index's newest matches, best first; ties go to the newer. SQLite
 * sorts them: sorted in JavaScript, they cost a copy of the rows and a call of the comparison per step.
 */
const scorerSql = (table: string, bm25: string): string =>
  `SELECT rowid, score FROM (SELECT rowid, ${bm25} AS score FROM ${table} WHERE ${table} MATCH ?
                             ORDER BY rowid DESC LIMIT ?)
   ORDER BY score, rowid DESC`

export const observationScorer: Scorer = {
  sql: scorerSql("observations_fts", "bm25(observations_fts, 1.0, 3.0, 0.5)"),
  scored: SCORED_OBSERVATIONS
}
export const summaryScorer: Scorer = { sql: scorerSql("sessions_fts", "bm25(sessions_fts)"), scored: SCORED_SUMMARIES }

type Ranked = Array<[id: number, rank: number]>

/** The newest `count` matches, best first (`scorerSql`). */
const scoredMatches = (db: SqliteDatabase, scorer: Scorer, match: string, count: number): Ranked =>
  statement(db, scorer.sql).raw().all(match, count) as Ranked

/**
 * The best `wanted` of `ranked` that pass the filters, with their rank. `passing` reads the rows of the
 * best first, then of more and more of the rest: a common query reads few rows, a narrow filter reads on.
 */
const bestPassing = <Row extends { readonly id: number }>(
  ranked: Ranked,
  wanted: number,
  passing: (ids: ReadonlyArray<number>) => Array<Row>
): Array<Row & { readonly rank: number }> => {
  const found: Array<Row & { readonly rank: number }> = []
  for (let from = 0, batch = wanted; from < ranked.length && found.length < wanted; from += batch, batch *= 4) {
    const best = ranked.slice(from, from + batch)
    const rows = new Map(passing(best.map(([id]) => id)).map((row) => [row.id, row]))
    for (const [id, rank] of best) {
      const row = rows.get(id)
      if (row !== undefined) found.push({ ...row, rank })
    }
  }
  return found.slice(0, wanted)
}

/**
 * The best `wanted` matches by bm25 that pass the filters, among the newest scored. When filters leave
 * fewer, the scan widens, up to every match, so a narrow filter still finds its rows. `complete`: every
 * match was scored.
 */
export const candidates = <Row extends { readonly id: number }>(
  db: SqliteDatabase,
  scorer: Scorer,
  match: string,
  wanted: number,
  passing: (ids: ReadonlyArray<number>) => Array<Row>
): { readonly rows: Array<Row & { readonly rank: number }>; readonly complete: boolean } => {
  for (let scored = Math.max(scorer.scored, wanted);; scored *= 8) {
    const ranked = scoredMatches(db, scorer, match, scored)
    const complete = ranked.length < scored
    const rows = bestPassing(ranked, wanted, passing)
    if (rows.length === wanted || complete) return { rows, complete }
  }
}

export interface SearchFilters {
  readonly project: string | null
  readonly session: string | null
  readonly exclude: string | null
  readonly types: string | null
  readonly since: number
  readonly until: number
}

export interface ObservationRow {
  readonly id: number
  readonly sessionId: string | null
  readonly type: string
  readonly createdAt: number
}

export const observationsPassing = (db: SqliteDatabase, filters: SearchFilters) => (ids: ReadonlyArray<number>) =>
  statement(
    db,
    `SELECT o.id, o.session_id AS sessionId, o.type, o.created_at AS createdAt FROM observation_rows o
     WHERE o.id IN (SELECT value FROM json_each(@ids))
       AND (@project IS NULL OR o.project_path = @project)
       AND (@session IS NULL OR o.session_id = @session)
       AND (@exclude IS NULL OR o.session_id IS NULL OR o.session_id != @exclude)
       AND (@types IS NULL OR o.type IN (SELECT value FROM json_each(@types)))
       AND o.created_at >= @since AND o.created_at < @until`
  ).all({ ...filters, ids: JSON.stringify(ids) }) as Array<ObservationRow>

/**
 * Whether the filters' project holds any observation (any project does when none is asked for). With none, no match
 * can pass, and `candidates` would widen its scan to every match of the whole memory to find that out: a project
 * with no memory yet in a shared database, or one moved away from where its memory was recorded.
 */
export const observationsCanPass = (db: SqliteDatabase, filters: SearchFilters): boolean =>
  filters.project === null
  || values(db, "SELECT EXISTS (SELECT 1 FROM observation_rows WHERE project_path = ?)").get(filters.project) === 1

/** Whether the filters' project holds any summarised session, as `observationsCanPass` for observations. */
export const summariesCanPass = (db: SqliteDatabase, filters: SearchFilters): boolean =>
  filters.project === null
  || values(db, "SELECT EXISTS (SELECT 1 FROM sessions WHERE project_path = ? AND summary IS NOT NULL)").get(
      filters.project
    ) === 1

interface SummaryRow {
  readonly id: number
  readonly sessionId: string
  readonly summary: string
  readonly createdAt: number
}

export const summariesPassing = (db: SqliteDatabase, filters: SearchFilters) => (ids: ReadonlyArray<number>) =>
  statement(
    db,
    `SELECT s.id, s.session_id AS sessionId, s.summary, s.started_at AS createdAt FROM sessions s
     WHERE s.id IN (SELECT value FROM json_each(@ids))
       AND (@project IS NULL OR s.project_path = @project)
       AND (@session IS NULL OR s.session_id = @session)
       AND (@exclude IS NULL OR s.session_id != @exclude)
       AND s.started_at >= @since AND s.started_at < @until`
  ).all({ ...filters, ids: JSON.stringify(ids) }) as Array<SummaryRow>

export type Scored = Map<number, ObservationRow & { readonly relevance: number }>

/** Keeps each observation's best relevance (`factor` times its negated bm25). */
export const keepBest = (
  into: Scored,
  rows: ReadonlyArray<ObservationRow & { readonly rank: number }>,
  factor: number
) => {
  for (const { rank, ...row } of rows) {
    const seen = into.get(row.id)
    if (seen === undefined || -factor * rank > seen.relevance) into.set(row.id, { ...row, relevance: -factor * rank })
  }
}

/**
 * The relevance of the newest observations that match any of `terms`, and when more match than are scored,
 * of the newest that match all of them and of every one that holds the rarest of them, however old. bm25
 * adds up each term's share, so the rows that hold a rare word and others are scored by asking for both
 * (each term once): the same score the whole query gives them.
 */
export const scoredByTerms = (
  db: SqliteDatabase,
  statistics: TermStatistics,
  terms: ReadonlyArray<Selected & { readonly times?: number }>,
  wanted: number,
  passing: (ids: ReadonlyArray<number>) => Array<ObservationRow>
): Scored => {
  const scored: Scored = new Map()
  if (terms.length === 0) return scored
  const byAny = candidates(db, observationScorer, anyOf(terms), wanted, passing)
  keepBest(scored, byAny.rows, 1)
  if (byAny.complete || terms.length === 1) return scored
  const rarest = rarestTerms(statistics, terms)
  const rare = terms.filter((t) => rarest.terms.includes(t.use))
  const rest = terms.filter((t) => !rarest.terms.includes(t.use))
  // With no other word, the rare words are all the words, asked above.
  let everyWordScored = false
  if (rest.length > 0) {
    // The rows holding a rare word and another, with the same bm25 the whole query gives them (each word once).
    // The rows holding every word are among them: when all of these were scored, or when both passes ask the
    // same (one rare word, one other), so were they.
    const rareAndRest = candidates(db, observationScorer, `(${anyOf(rare)}) AND (${anyOf(rest)})`, wanted, passing)
    keepBest(scored, rareAndRest.rows, 1)
    everyWordScored = rareAndRest.complete || (rare.length === 1 && rest.length === 1)
    // Every row holding the rare words, alone: only when they are rare. The newest rows of a word many rows hold
    // were scored with the others' above, and its older rows holding only it are no better than theirs.
    if (rarest.rare) keepBest(scored, candidates(db, observationScorer, anyOf(rare), wanted, passing).rows, 1)
  }
  // The rows holding every word rank first, yet may be older than the newest matches scored above.
  if (!everyWordScored) {
    const all = terms.map((t) => `(${anyOf([t])})`).join(" AND ")
    keepBest(scored, candidates(db, observationScorer, all, wanted, passing).rows, 1)
  }
  return scored
}
