/**
 * The search engine, in three layers of detail:
 *   1. index:    ranked hits, one line each (~50-100 tokens), with a total token estimate;
 *   2. timeline: each hit with the observations just before and after it in its session;
 *   3. full:     complete content, metadata and files of chosen observations.
 *
 * Ranking: relevance is FTS5's bm25 (negated, so higher is better), with column weights (tool and
 * input 3, text and files 1, identifier parts 0.5); when words find fewer hits than asked for,
 * substring matches on identifiers (index terms that contain a piece of the query) fill in at half weight. Recency multiplies it: score = relevance * ((1 - w) + w * 0.5^(ageDays / halfLife)),
 * so with the defaults (w = 0.3, halfLife = 14 days) a month-old hit keeps about 76% of its relevance
 * and ties go to the newer one. Both are configurable (memory.search in the config).
 *
 * Words: any term of the query (see query.ts) may match. A Latin word of 4+ letters also matches the
 * longer words that start with it (`auth` finds `authentication`) while fewer than 100 observations hold
 * the word itself; from then on it matches as written (`token`, not `tokens` or `tokenizer`): FTS5 merges
 * the rows of every longer word before it returns one. A Hangul word matches as the prefix of its stem
 * (`인증` finds `인증을`).
 *
 * Stand-ins: what the words also mean (lexicon.ts: Korean-English bridge, error knowledge, synonyms, English
 * word forms) is scored the same way in a pass of its own and added at half weight or less (`standInTerms`),
 * and every hit's relevance is then multiplied by the share of the query's words it holds, as typed or
 * through a stand-in (`coverageOf`).
 *
 * Bounded work on a large memory: words held by more than a fifth of the newest 2,000 observations are left
 * out of the query (when all are, the one whose rows reach back furthest stays), and a prefix is narrowed
 * to its word when one of its longer words is that common (`queue`, when `queues` is in every stack
 * trace). bm25 is computed for the newest 300 observations that hold any word and, when there were more,
 * for the newest 300 that hold every word and for every row that holds the query's rarest words (up to 300
 * rows), so an older row with all the words, or with the rarest of them, is still found; an older row with
 * only words that many newer rows hold is not. Session summaries: the newest 100 that hold any word. The
 * best by bm25 are checked against the filters until 5 per hit asked for pass (the scan widens when the
 * scored ones run out first), and only the hits are read from the log.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import type { Statement } from "better-sqlite3"
import { IDENTIFIER_LIKE, substringPieces } from "./identifiers.ts"
import { expansionsOf } from "./lexicon.ts"
import { isLatinPrefix, matchTerms, quote, termsByWord } from "./query.ts"
import { estimateTokens } from "./tokens.ts"
import { oneLine } from "../text.ts"

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

/** Prepared once per connection: a search runs a dozen small statements, and preparing is part of its cost. */
const prepared = new WeakMap<SqliteDatabase, Map<string, Statement>>()
const statement = (db: SqliteDatabase, sql: string): Statement => {
  let statements = prepared.get(db)
  if (statements === undefined) prepared.set(db, (statements = new Map()))
  let found = statements.get(sql)
  if (found === undefined) statements.set(sql, (found = db.prepare(sql)))
  return found
}
/** A statement whose rows are single values. */
const values = (db: SqliteDatabase, sql: string): Statement => statement(db, sql).pluck()

const DAY = 86_400_000
const CANDIDATES_PER_HIT = 5

/**
 * Terms held by more than this share of the newest observations are left out of the query: bm25 gives
 * them almost no weight, yet FTS5 would score every row they match (a query with "the" or "error" would
 * cost as much as scanning the table). The rarest term always stays.
 */
const COMMON_TERM_SHARE = 0.2
/** Below this many observations every query is cheap: nothing is left out. */
const PRUNE_FROM_ROWS = 500
/** How many of the newest observations judge whether a term is common. */
const COMMONNESS_SAMPLE = 2000
/**
 * A word this many observations hold finds enough on its own, so its prefix term is narrowed to it (`token`,
 * not `tokens` or `tokenizer`): FTS5 merges the rows of every longer word before it returns one, again for
 * bm25's document frequency, and in a large memory every identifier that starts with the word is one more.
 */
const ENOUGH_ROWS_FOR_A_WORD = 100

/** The newest observations, which judge whether a term is common. */
interface Sample {
  /** A term that more of the sample holds is common. */
  readonly most: number
  /** The oldest observation of the sample. */
  readonly floor: number
}

/** The sample, and how many observations the memory holds (exactly below the sample's size, else at least so many). */
interface Memory {
  readonly sample: Sample | undefined
  readonly rows: number
}

/**
 * The sample, or none on a memory too small to leave anything out. Counting every observation reads the
 * whole table (5 ms at 100,000 when its pages are not in memory, as in a hook): the sample is found from
 * the newest end, and the table counted only when it is smaller.
 */
const memoryOf = (db: SqliteDatabase): Memory => {
  const nthNewest = (n: number) => values(db, "SELECT id FROM observation_rows ORDER BY id DESC LIMIT 1 OFFSET ?").get(n - 1) as number | undefined
  const floor = nthNewest(COMMONNESS_SAMPLE)
  if (floor !== undefined) {
    return { sample: { most: Math.floor(COMMONNESS_SAMPLE * COMMON_TERM_SHARE), floor }, rows: COMMONNESS_SAMPLE }
  }
  const rows = values(db, "SELECT count(*) FROM observation_rows").get() as number
  const sample = rows < PRUNE_FROM_ROWS ? undefined : { most: Math.floor(rows * COMMON_TERM_SHARE), floor: nthNewest(rows)! }
  return { sample, rows }
}

/** The newest `count` observations holding `term`, newest first: FTS5 reads a word's rows from the newest end and stops there. */
const newestHolding = (db: SqliteDatabase, term: string, count: number): Array<number> =>
  values(db, "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? ORDER BY rowid DESC LIMIT ?").all(term, count) as Array<number>

/** Of a term's newest rows, the one past the sample's share (0 when fewer hold the term): the term is common when it is in the sample. */
const spreadOf = (newest: ReadonlyArray<number>, sample: Sample): number => newest[sample.most] ?? 0

const isCommon = (db: SqliteDatabase, term: string, sample: Sample): boolean =>
  spreadOf(newestHolding(db, term, sample.most + 1), sample) >= sample.floor

/** The longer words of a prefix term that more observations hold than the sample's share (only these can be common), quoted. */
const frequentExpansions = (db: SqliteDatabase, term: string, sample: Sample): Array<string> => {
  const word = term.slice(1, -2).replaceAll('""', '"')
  const longer = values(db, "SELECT term FROM observations_vocab WHERE term > ? AND term < ? AND doc > ?").all(word, `${word}\u{10FFFF}`, sample.most)
  return (longer as Array<string>).map(quote)
}

/** The quoted word of a term, without the prefix mark. */
const wordOf = (term: string): string => (term.endsWith("*") ? term.slice(0, -1) : term)

/**
 * What to ask the index for a term that is not common. A Latin prefix term is narrowed to its word when
 * enough observations hold the word, and any prefix when one of its longer words is common (`queue`, when
 * `queues` is in every stack trace: FTS5 would merge them all). Otherwise a Hangul stem stays a prefix
 * (its particles follow it), and so does a Latin word few rows hold (`auth` finds `authentication`).
 */
const narrowed = (db: SqliteDatabase, term: string, held: number, sample: Sample | undefined): string => {
  const word = wordOf(term)
  if (word === term) return term
  if (isLatinPrefix(term) && held >= ENOUGH_ROWS_FOR_A_WORD) return word
  if (sample !== undefined && frequentExpansions(db, term, sample).some((longer) => isCommon(db, longer, sample))) return word
  return term
}

interface Judged {
  readonly use: string
  readonly common: boolean
  /** The newest observation past the sample's share that holds the word: the older, the rarer the word lately. */
  readonly spread: number
  /** How many observations hold the word, counted up to the first 100 (or the sample's share, if more). */
  readonly held: number
}

/**
 * A term judged by the newest observations that hold its word: it is common when more than the sample's
 * share of them are in the sample. They are read from the newest end of the word's rows and the read
 * stops there, where counting all its rows would walk every one.
 */
const judge = (db: SqliteDatabase, term: string, sample: Sample | undefined): Judged => {
  // A Hangul stem is always asked as a prefix (its particles follow it), so its rows are the prefix's.
  const counted = isLatinPrefix(term) ? wordOf(term) : term
  const newest = newestHolding(db, counted, Math.max(ENOUGH_ROWS_FOR_A_WORD, (sample?.most ?? 0) + 1))
  const spread = sample === undefined ? 0 : spreadOf(newest, sample)
  const held = newest.length
  if (sample !== undefined && spread >= sample.floor) return { use: wordOf(term), common: true, spread, held }
  return { use: narrowed(db, term, held, sample), common: false, spread, held }
}

/** A term of the query as it is asked, with how many observations hold its word (counted up to 100 or more). */
interface Selected {
  readonly use: string
  readonly held: number
}

/** Judges each term once per search: the user's words and the terms that stand for them share many. */
const judgeOnce = (db: SqliteDatabase, memory: Memory, judged: Map<string, Judged>) => (term: string): Judged => {
  let found = judged.get(term)
  if (found === undefined) judged.set(term, (found = judge(db, term, memory.sample)))
  return found
}

/**
 * The words part of the query: every term, less the ones most of the newest rows hold (the one whose
 * rows reach back furthest stays when all do), prefixes narrowed to their word where `narrowed` says.
 */
const selectiveTerms = (terms: ReadonlyArray<string>, judgeTerm: (term: string) => Judged): ReadonlyArray<Selected> => {
  if (terms.length === 0) return []
  const judged = terms.map(judgeTerm)
  const selective = new Map<string, Selected>()
  for (const j of judged) if (!j.common && !selective.has(j.use)) selective.set(j.use, { use: j.use, held: j.held })
  if (selective.size > 0) return [...selective.values()]
  const widest = judged.reduce((a, b) => (b.spread < a.spread ? b : a))
  return [{ use: widest.use, held: widest.held }]
}

/**
 * FTS5's idf of a term `held` observations of `rows` hold. `rows` is a lower bound on a large memory, which
 * overstates how much rarer one term is than another: the weights below err on the side of the user's words.
 */
const idf = (held: number, rows: number): number => Math.max(1e-6, Math.log((rows - held + 0.5) / (held + 0.5)))

/**
 * Terms that stand for the user's words (lexicon.ts) count for at most half of what a word the user typed
 * counts: the bm25 of the terms that stand in, each asked twice or once, is divided by 4. A term counts
 * half when it is no more than twice as rare (by idf) as the rarest word it stands for, a quarter when no
 * more than four times, and is left out beyond, so a memory holding the user's word always outranks one
 * holding only a term that stands for it, other things equal.
 */
const STAND_IN_DIVISOR = 4

interface StandIn extends Selected {
  /** How many times the term is asked: its weight, over `STAND_IN_DIVISOR`. */
  readonly times: number
  /** The MATCH terms of the user's words it stands for. */
  readonly sources: ReadonlyArray<string>
}

const standInTerms = (
  db: SqliteDatabase,
  query: string,
  asked: ReadonlyArray<string>,
  memory: Memory,
  judgeTerm: (term: string) => Judged
): ReadonlyArray<StandIn> => {
  const terms = new Map<string, StandIn>()
  for (const { term, sources } of expansionsOf(query, asked)) {
    const judged = judgeTerm(term)
    if (terms.has(judged.use)) continue
    // A Latin prefix was judged by its word: its longer words may be all there is.
    if (judged.held === 0 && (!isLatinPrefix(judged.use) || newestHolding(db, judged.use, 1).length === 0)) continue
    const rarestSource = Math.min(...sources.map((source) => judgeTerm(source).held))
    const rarer = idf(judged.held, memory.rows) / idf(rarestSource, memory.rows)
    // A common term costs the most (bm25 counts every row of every term) and tells the least: it only counts
    // for coverage. Words near each other are scored as that many terms: such a term counts a quarter at most.
    const times = judged.common ? 0 : rarer <= 2 && !judged.use.startsWith("NEAR(") ? 2 : rarer <= 4 ? 1 : 0
    terms.set(judged.use, { use: judged.use, held: judged.held, times, sources })
  }
  return [...terms.values()]
}

/**
 * How much of the query a hit covers. Each word of the query is a concept, held by a row that holds the word
 * or a term that stands for it. A row holding one concept scores its relevance times 1 / concepts, one
 * holding two or more 2 / concepts, one holding all of them in full, so a short note that
 * repeats one word of the query does not bury an older memory about all of it (in a language or words the
 * user did not type). Which rows hold two or all concepts is asked of the index as such (no bm25: only
 * which rows), for the newest 300 of each, on queries of 2 to 8 concepts (pairs up to 5). Function words
 * (`the`, `on`) are no concepts.
 */
const MAX_CONCEPTS = 8
const MAX_CONCEPTS_FOR_PAIRS = 5
const COVERED_ROWS = 300

/** English words that say nothing about what a hit is about: a hit need not hold them to cover the query. */
const FUNCTION_WORDS = new Set(
  ["a", "an", "the", "at", "on", "in", "to", "of", "for", "with", "by", "from", "as", "and", "or", "but", "is", "are"]
    .concat(["was", "be", "it", "its", "this", "that", "when", "while", "after", "before", "our", "my", "we", "i", "you"])
    .concat(["can", "t", "not"])
    .map((w) => `"${w}"`)
)

const conceptsOf = (
  query: string,
  judgeTerm: (term: string) => Judged,
  standIns: ReadonlyArray<StandIn & { readonly sources: ReadonlyArray<string> }>
): ReadonlyArray<ReadonlyArray<string>> => {
  const concepts = new Map<string, Set<string>>()
  for (const terms of termsByWord(query)) {
    const key = terms[0]!
    if (FUNCTION_WORDS.has(key)) continue
    const held = concepts.get(key) ?? new Set<string>()
    for (const term of terms) {
      const judged = judgeTerm(term)
      if (!judged.common) held.add(judged.use)
    }
    for (const standIn of standIns) if (standIn.sources.includes(key)) held.add(standIn.use)
    concepts.set(key, held)
  }
  return [...concepts.values()].filter((terms) => terms.size > 0).map((terms) => [...terms])
}

/** The rows that hold two or more concepts, and those that hold all, with how many they cover (not those holding one). */
const coverageOf = (db: SqliteDatabase, concepts: ReadonlyArray<ReadonlyArray<string>>): Map<number, number> => {
  const covered = new Map<number, number>()
  if (concepts.length < 2 || concepts.length > MAX_CONCEPTS) return covered
  const rows = (match: string) =>
    newestHolding(db, match, COVERED_ROWS)
  const anyOfConcept = concepts.map((terms) => `(${terms.join(" OR ")})`)
  if (concepts.length > 2 && concepts.length <= MAX_CONCEPTS_FOR_PAIRS) {
    const pairs = anyOfConcept.flatMap((a, i) => anyOfConcept.slice(i + 1).map((b) => `(${a} AND ${b})`))
    for (const id of rows(pairs.join(" OR "))) covered.set(id, 2)
  }
  for (const id of rows(anyOfConcept.join(" AND "))) covered.set(id, concepts.length)
  return covered
}

/** Terms as one OR expression, each asked as many times as its weight says. */
const anyOf = (terms: ReadonlyArray<Selected & { readonly times?: number }>): string =>
  terms.flatMap((t) => Array<string>(t.times ?? 1).fill(t.use)).join(" OR ")

/**
 * The query's rarest terms, rarest first, as many as together hold at most this many observations (the
 * rarest always): every row holding one of them is scored, however old, so a memory holding the query's
 * rarest words is found however much later work holds its other words.
 */
const RARE_ROWS = 300

const rarestTerms = (db: SqliteDatabase, terms: ReadonlyArray<Selected>): ReadonlyArray<string> => {
  // A prefix term matches more rows than its word: those are counted (up to the bound) before it is taken.
  const rows = (term: Selected) =>
    term.use.endsWith("*") ? newestHolding(db, term.use, RARE_ROWS + 1).length : term.held
  const rare: Array<string> = []
  let total = 0
  for (const term of [...terms].sort((x, y) => x.held - y.held)) {
    const held = rows(term)
    if (rare.length > 0 && total + held > RARE_ROWS) break
    rare.push(term.use)
    total += held
  }
  return rare
}


const recencyFactor = (createdAt: number, now: number, recency: Recency) =>
  1 - recency.weight + recency.weight * 0.5 ** (Math.max(0, now - createdAt) / DAY / recency.halfLifeDays)

/** At most this many index terms stand in for the query's substrings. */
const MAX_SUBSTRING_TERMS = 64

/**
 * The index terms that contain a piece (3+ characters) of the query's identifier-like words (paths,
 * snake_case, CamelCase, with digits), as quoted terms: `xpiredErr` finds `tokenexpirederror`. Plain
 * words are left to the word index and its prefix matching.
 */
const substringQuery = (db: SqliteDatabase, query: string): string | undefined => {
  const words = [...new Set(query.match(/[A-Za-z0-9_./-]{3,}/g) ?? [])].filter((w) => IDENTIFIER_LIKE.test(w)).slice(0, 16)
  const pieces = [...new Set(words.flatMap(substringPieces))]
  if (pieces.length === 0) return undefined
  const terms = values(
    db,
    `SELECT term FROM observations_vocab WHERE EXISTS (SELECT 1 FROM json_each(?) WHERE instr(term, value) > 0) LIMIT ${MAX_SUBSTRING_TERMS}`
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

const observationScorer: Scorer = {
  sql: "SELECT rowid, bm25(observations_fts, 1.0, 3.0, 0.5) FROM observations_fts WHERE observations_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
  scored: SCORED_OBSERVATIONS
}
const summaryScorer: Scorer = {
  sql: "SELECT rowid, bm25(sessions_fts) FROM sessions_fts WHERE sessions_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
  scored: SCORED_SUMMARIES
}

type Ranked = Array<[id: number, rank: number]>

/** The bm25 (lower is better) of the newest `count` matches, best first; ties go to the newer. */
const scoredMatches = (db: SqliteDatabase, scorer: Scorer, match: string, count: number): Ranked =>
  (statement(db, scorer.sql).raw().all(match, count) as Ranked).sort((a, b) => a[1] - b[1])

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
const candidates = <Row extends { readonly id: number }>(
  db: SqliteDatabase,
  scorer: Scorer,
  match: string,
  wanted: number,
  passing: (ids: ReadonlyArray<number>) => Array<Row>
): { readonly rows: Array<Row & { readonly rank: number }>; readonly complete: boolean } => {
  for (let scored = Math.max(scorer.scored, wanted); ; scored *= 8) {
    const ranked = scoredMatches(db, scorer, match, scored)
    const complete = ranked.length < scored
    const rows = bestPassing(ranked, wanted, passing)
    if (rows.length === wanted || complete) return { rows, complete }
  }
}

interface SearchFilters {
  readonly project: string | null
  readonly session: string | null
  readonly exclude: string | null
  readonly types: string | null
  readonly since: number
  readonly until: number
}

interface ObservationRow {
  readonly id: number
  readonly sessionId: string | null
  readonly type: string
  readonly createdAt: number
}

const observationsPassing = (db: SqliteDatabase, filters: SearchFilters) => (ids: ReadonlyArray<number>) =>
  statement(
    db,
    `SELECT o.id, o.session_id AS sessionId, o.type, e.occurred_at AS createdAt FROM observation_rows o JOIN events e ON e.position = o.id
     WHERE o.id IN (SELECT value FROM json_each(@ids))
       AND (@project IS NULL OR o.project_path = @project)
       AND (@session IS NULL OR o.session_id = @session)
       AND (@exclude IS NULL OR o.session_id IS NULL OR o.session_id != @exclude)
       AND (@types IS NULL OR o.type IN (SELECT value FROM json_each(@types)))
       AND e.occurred_at >= @since AND e.occurred_at < @until`
  ).all({ ...filters, ids: JSON.stringify(ids) }) as Array<ObservationRow>

interface SummaryRow {
  readonly id: number
  readonly sessionId: string
  readonly summary: string
  readonly createdAt: number
}

const summariesPassing = (db: SqliteDatabase, filters: SearchFilters) => (ids: ReadonlyArray<number>) =>
  statement(
    db,
    `SELECT s.id, s.session_id AS sessionId, s.summary, s.started_at AS createdAt FROM sessions s
     WHERE s.id IN (SELECT value FROM json_each(@ids))
       AND (@project IS NULL OR s.project_path = @project)
       AND (@session IS NULL OR s.session_id = @session)
       AND (@exclude IS NULL OR s.session_id != @exclude)
       AND s.started_at >= @since AND s.started_at < @until`
  ).all({ ...filters, ids: JSON.stringify(ids) }) as Array<SummaryRow>

interface HitText {
  readonly eventId: string
  readonly title: string
}

/** Each hit's event id and one line: tool and input, then the start of the text (read from the log for the hits only). */
const hitTexts = (db: SqliteDatabase, ids: ReadonlyArray<number>): Map<number, HitText> => {
  const rows = statement(
    db,
    `SELECT id, event_id AS eventId, tool_name AS toolName, input_summary AS inputSummary, substr(content, 1, 400) AS content
     FROM observations WHERE id IN (SELECT value FROM json_each(?))`
  ).all(JSON.stringify(ids)) as Array<{ id: number; eventId: string; toolName: string | null; inputSummary: string | null; content: string }>
  return new Map(rows.map((r) => [r.id, {
    eventId: r.eventId,
    title: oneLine([r.toolName, r.inputSummary].filter(Boolean).join(" ") + (r.toolName || r.inputSummary ? ": " : "") + r.content, 160)
  }]))
}

const withTokens = (hit: Omit<IndexHit, "tokens">): IndexHit => ({
  ...hit,
  tokens: estimateTokens(`${hit.id} ${hit.type} ${hit.sessionId ?? ""} ${new Date(hit.createdAt).toISOString()} ${hit.title}`)
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
export const searchIndex = (db: SqliteDatabase, options: SearchOptions): { readonly hits: ReadonlyArray<IndexHit>; readonly totalTokens: number } =>
  db.transaction(() => rankedHits(db, options))()

type Scored = Map<number, ObservationRow & { readonly relevance: number }>

/** Keeps each observation's best relevance (`factor` times its negated bm25). */
const keepBest = (into: Scored, rows: ReadonlyArray<ObservationRow & { readonly rank: number }>, factor: number) => {
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
const scoredByTerms = (
  db: SqliteDatabase,
  terms: ReadonlyArray<Selected & { readonly times?: number }>,
  wanted: number,
  passing: (ids: ReadonlyArray<number>) => Array<ObservationRow>
): Scored => {
  const scored: Scored = new Map()
  if (terms.length === 0) return scored
  const byAny = candidates(db, observationScorer, anyOf(terms), wanted, passing)
  keepBest(scored, byAny.rows, 1)
  if (byAny.complete || terms.length === 1) return scored
  // The rows holding every word rank first, yet may be older than the newest matches scored above.
  const all = terms.map((t) => `(${anyOf([t])})`).join(" AND ")
  keepBest(scored, candidates(db, observationScorer, all, wanted, passing).rows, 1)
  const rare = new Set(rarestTerms(db, terms))
  const anyRare = anyOf(terms.filter((t) => rare.has(t.use)))
  const rest = terms.filter((t) => !rare.has(t.use))
  keepBest(scored, candidates(db, observationScorer, anyRare, wanted, passing).rows, 1)
  if (rest.length > 0) {
    keepBest(scored, candidates(db, observationScorer, `(${anyRare}) AND (${anyOf(rest)})`, wanted, passing).rows, 1)
  }
  return scored
}

const rankedHits = (db: SqliteDatabase, options: SearchOptions): { readonly hits: ReadonlyArray<IndexHit>; readonly totalTokens: number } => {
  const limit = options.limit ?? 10
  const wanted = limit * CANDIDATES_PER_HIT
  const asked = matchTerms(options.query)
  const memory = memoryOf(db)
  const judgeTerm = judgeOnce(db, memory, new Map())
  const selected = selectiveTerms(asked, judgeTerm)
  const words = selected.length === 0 ? undefined : anyOf(selected)
  const now = options.now ?? Date.now()
  const recency = options.recency ?? defaultRecency
  const filters: SearchFilters = {
    project: options.project ?? null,
    session: options.sessionId ?? null,
    exclude: options.excludeSessionId ?? null,
    types: options.types === undefined ? null : JSON.stringify(options.types),
    since: options.since ?? 0,
    until: options.until ?? Number.MAX_SAFE_INTEGER
  }
  const passing = observationsPassing(db, filters)
  // The best relevance per observation, from the user's words or substrings of them.
  const best = scoredByTerms(db, selected, wanted, passing)
  // Substrings are the fallback for what words cannot find (`xpiredErr`): the pieces of a common
  // identifier are in nearly every row, and would cost more than everything else.
  if (best.size < limit) {
    const substrings = substringQuery(db, options.query)
    if (substrings !== undefined) {
      keepBest(best, candidates(db, observationScorer, substrings, wanted, passing).rows, 0.5)
    }
  }
  // What the words also mean (other languages, error codes, synonyms, word forms), at a lower weight.
  const standIns = options.standIns === false ? [] : standInTerms(db, options.query, asked, memory, judgeTerm)
  for (const [id, row] of scoredByTerms(db, standIns.filter((t) => t.times > 0), wanted, passing)) {
    const relevance = row.relevance / STAND_IN_DIVISOR
    const seen = best.get(id)
    best.set(id, { ...(seen ?? row), relevance: (seen?.relevance ?? 0) + relevance })
  }
  // Coverage orders hits that hold the query in other words than the user's: without those, bm25 does.
  const concepts = standIns.length === 0 ? [] : conceptsOf(options.query, judgeTerm, standIns)
  const covered = coverageOf(db, concepts)
  if (concepts.length >= 2 && concepts.length <= MAX_CONCEPTS) {
    for (const [id, row] of best) {
      best.set(id, { ...row, relevance: (row.relevance * (covered.get(id) ?? 1)) / concepts.length })
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
  if (words !== undefined && options.types === undefined) {
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
  const top = ranked.sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.position - a.position).slice(0, limit)
  const texts = hitTexts(db, top.flatMap((h) => (h.kind === "observation" ? [h.position] : [])))
  const hits = top.map(({ position, summary, ...hit }) => {
    if (summary !== undefined) return withTokens({ ...hit, id: hit.sessionId!, title: oneLine(summary, 160) })
    const { eventId, title } = texts.get(position)!
    return withTokens({ ...hit, id: eventId, title })
  })
  return { hits, totalTokens: hits.reduce((sum, h) => sum + h.tokens, 0) }
}

export interface ObservationDetail {
  readonly id: string
  readonly position: number
  readonly sessionId: string | null
  readonly type: string
  readonly toolName: string | null
  readonly inputSummary: string | null
  readonly content: string
  readonly errorMessage: string | null
  readonly files: ReadonlyArray<string>
  readonly metadata: Record<string, unknown>
  readonly createdAt: number
  readonly tokens: number
}

const DETAIL_COLUMNS = `event_id AS id, id AS position, session_id AS sessionId, type, tool_name AS toolName,
  input_summary AS inputSummary, content, error_message AS errorMessage, files, metadata, created_at AS createdAt`

type DetailRow = Omit<ObservationDetail, "files" | "metadata" | "tokens"> & { files: string; metadata: string }

const toDetail = (row: DetailRow): ObservationDetail => {
  const detail = { ...row, files: JSON.parse(row.files) as Array<string>, metadata: JSON.parse(row.metadata) as Record<string, unknown> }
  return { ...detail, tokens: estimateTokens(JSON.stringify(detail)) }
}

/**
 * Layer 3: complete observations by event id, or by the short id injected text shows (`@12`, the event's
 * position in the log; `12` too). Unknown ids are left out.
 */
export const fullDetails = (db: SqliteDatabase, ids: ReadonlyArray<string>): ReadonlyArray<ObservationDetail> =>
  (db
    .prepare(
      `SELECT ${DETAIL_COLUMNS} FROM observations
       WHERE event_id IN (SELECT value FROM json_each(@ids)) OR id IN (SELECT value FROM json_each(@positions)) ORDER BY id`
    )
    .all({ ids: JSON.stringify(ids), positions: JSON.stringify(ids.flatMap((id) => positionOfRef(id) ?? [])) }) as Array<DetailRow>)
    .map(toDetail)

/** The position a short id (`@12` or `12`) names, if it is one. */
export const positionOfRef = (id: string): number | undefined => (/^@?\d{1,15}$/.test(id.trim()) ? Number(id.trim().replace("@", "")) : undefined)

export interface TimelineEntry {
  readonly hit: IndexHit
  /** Observations of the same session just before the hit, oldest first. */
  readonly before: ReadonlyArray<ObservationDetail>
  readonly after: ReadonlyArray<ObservationDetail>
  readonly tokens: number
}

/** Layer 2: each hit with its neighbours in time within its session. */
export const timelineOf = (db: SqliteDatabase, hits: ReadonlyArray<IndexHit>, around = 2): ReadonlyArray<TimelineEntry> => {
  const before = db.prepare(`SELECT ${DETAIL_COLUMNS} FROM observations WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`)
  const after = db.prepare(`SELECT ${DETAIL_COLUMNS} FROM observations WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`)
  const positionOf = db.prepare("SELECT id FROM observations WHERE event_id = ?").pluck()
  return hits.map((hit) => {
    // A session summary's neighbours are its session's last observations.
    const position = hit.kind === "observation" ? (positionOf.get(hit.id) as number) : Number.MAX_SAFE_INTEGER
    const earlier = hit.sessionId === null ? [] : (before.all(hit.sessionId, position, around) as Array<DetailRow>).map(toDetail).reverse()
    const later = hit.sessionId === null || hit.kind === "session" ? [] : (after.all(hit.sessionId, position, around) as Array<DetailRow>).map(toDetail)
    const tokens = hit.tokens + [...earlier, ...later].reduce((sum, d) => sum + Math.min(d.tokens, 100), 0)
    return { hit, before: earlier, after: later, tokens }
  })
}
