/**
 * Term pruning: which of the query's terms (and of the terms that stand for them) are asked of the index, and
 * how. Words held by more than a fifth of the newest 2,000 observations are left out of the query (when all
 * are, the one whose rows reach back furthest stays), and a prefix is narrowed to its word when one of its
 * longer words is that common (`queue`, when `queues` is in every stack trace). A Latin word of 4+ letters
 * also matches the longer words that start with it (`auth` finds `authentication`) while fewer than 100
 * observations hold the word itself; from then on it matches as written. A Hangul word matches as the prefix
 * of its stem (`인증` finds `인증을`).
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { expansionsOf } from "./lexicon.ts"
import { isLatinPrefix, quote } from "./query.ts"
import { values } from "./statements.ts"

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
export interface Corpus {
  readonly sample: Sample | undefined
  readonly rows: number
}

/**
 * The sample, or none on a memory too small to leave anything out. Counting every observation reads the
 * whole table (5 ms at 100,000 when its pages are not in memory, as in a hook): the sample is found from
 * the newest end, and the table counted only when it is smaller.
 */
const corpusOf = (db: SqliteDatabase): Corpus => {
  const nthNewest = (n: number) =>
    values(db, "SELECT id FROM observation_rows ORDER BY id DESC LIMIT 1 OFFSET ?").get(n - 1) as number | undefined
  const floor = nthNewest(COMMONNESS_SAMPLE)
  if (floor !== undefined) {
    return { sample: { most: Math.floor(COMMONNESS_SAMPLE * COMMON_TERM_SHARE), floor }, rows: COMMONNESS_SAMPLE }
  }
  const rows = values(db, "SELECT count(*) FROM observation_rows").get() as number
  const sample = rows < PRUNE_FROM_ROWS
    ? undefined
    : { most: Math.floor(rows * COMMON_TERM_SHARE), floor: nthNewest(rows)! }
  return { sample, rows }
}

/**
 * The newest `count` observations holding `term`, newest first: FTS5 reads a word's rows from the newest end and stops
 * there.
 */
export const newestHolding = (db: SqliteDatabase, term: string, count: number): Array<number> =>
  values(db, "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? ORDER BY rowid DESC LIMIT ?").all(
    term,
    count
  ) as Array<number>

/**
 * Of a term's newest rows, the one past the sample's share (0 when fewer hold the term): the term is common when it is
 * in the sample.
 */
const spreadOf = (newest: ReadonlyArray<number>, sample: Sample): number => newest[sample.most] ?? 0

/** `newestHolding` as a search's statistics keep it (`TermStatistics.newest`). */
type NewestRows = (match: string, count: number) => ReadonlyArray<number>

const isCommon = (newest: NewestRows, term: string, sample: Sample): boolean =>
  spreadOf(newest(term, sample.most + 1), sample) >= sample.floor

/**
 * The longer words of a prefix term that more observations hold than the sample's share (only these can be common),
 * quoted.
 */
const frequentExpansions = (db: SqliteDatabase, term: string, sample: Sample): Array<string> => {
  const word = term.slice(1, -2).replaceAll("\"\"", "\"")
  const longer = values(db, "SELECT term FROM observations_vocab WHERE term > ? AND term < ? AND doc > ?").all(
    word,
    `${word}\u{10FFFF}`,
    sample.most
  )
  return (longer as Array<string>).map(quote)
}

/** The quoted word of a term, without the prefix mark. */
const wordOf = (term: string): string => (term.endsWith("*") ? term.slice(0, -1) : term)

/** The words of the terms judged common so far (unquoted): a prefix of one of them is common too. */
type CommonWords = Set<string>

/** A term's word, unquoted (`"token"*` -> `token`). */
const plainWord = (term: string): string => wordOf(term).slice(1, -1).replaceAll("\"\"", "\"")

/**
 * What to ask the index for a term that is not common. A Latin prefix term is narrowed to its word when
 * enough observations hold the word, and any prefix when one of its longer words is common (`queue`, when
 * `queues` is in every stack trace: FTS5 would merge them all). Otherwise a Hangul stem stays a prefix
 * (its particles follow it), and so does a Latin word few rows hold (`auth` finds `authentication`).
 * Finding the longer words' counts walks every row they hold, so a prefix of a word already judged common
 * (`expect*`, the stem of the user's `expected`) is narrowed without asking, and a Hangul stem (judged by all
 * the rows its prefix holds) or a phrase is never asked.
 */
const narrowed = (
  db: SqliteDatabase,
  newest: NewestRows,
  term: string,
  held: number,
  sample: Sample | undefined,
  common: CommonWords
): string => {
  const word = wordOf(term)
  if (word === term) return term
  // A Hangul stem was judged by its prefix's rows: none of its longer words can be common when it is not. The
  // index holds no phrase as a term, so its longer words cannot be asked.
  if (!isLatinPrefix(term) || word.includes(" ")) return term
  if (held >= ENOUGH_ROWS_FOR_A_WORD) return word
  if (sample === undefined) return term
  const start = plainWord(term)
  for (const known of common) if (known.startsWith(start)) return word
  const frequent = frequentExpansions(db, term, sample).find((longer) => isCommon(newest, longer, sample))
  if (frequent === undefined) return term
  common.add(plainWord(frequent))
  return word
}

export interface Judged {
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
const judge = (
  db: SqliteDatabase,
  newest: NewestRows,
  term: string,
  sample: Sample | undefined,
  common: CommonWords
): Judged => {
  // A Hangul stem is always asked as a prefix (its particles follow it), so its rows are the prefix's.
  const counted = isLatinPrefix(term) ? wordOf(term) : term
  const rows = newest(counted, Math.max(ENOUGH_ROWS_FOR_A_WORD, (sample?.most ?? 0) + 1))
  const spread = sample === undefined ? 0 : spreadOf(rows, sample)
  const held = rows.length
  if (sample !== undefined && spread >= sample.floor) {
    // Only a word: a phrase or words near each other are no index term another term could be a prefix of.
    if (term.startsWith("\"") && !plainWord(term).includes(" ")) common.add(plainWord(term))
    return { use: wordOf(term), common: true, spread, held }
  }
  return { use: narrowed(db, newest, term, held, sample, common), common: false, spread, held }
}

/** A term of the query as it is asked, with how many observations hold its word (counted up to 100 or more). */
export interface Selected {
  readonly use: string
  readonly held: number
}

/** What a search knows of the memory's terms: the sample that judges them, and each term judged. */
export interface TermStatistics {
  readonly corpus: Corpus
  readonly judgeTerm: (term: string) => Judged
  /**
   * `newestHolding`, kept like the judged terms: which rows hold a term (to judge it) or a concept, how many rows a
   * prefix holds.
   */
  readonly newest: NewestRows
}

/**
 * A long-lived process (the memory tools' server) searches many times: what it keeps is judged afresh once it holds
 * this many judged terms and row lists, or this many row ids in them (a list holds up to a few hundred, and a
 * concept's rows are kept again as a set by coverage.ts): a bound on its memory, not only on its count of entries.
 */
export interface KeptLimits {
  readonly entries: number
  readonly rowIds: number
}

const KEPT_LIMITS: KeptLimits = { entries: 10_000, rowIds: 500_000 }

interface Kept {
  readonly stamp: string
  readonly statistics: TermStatistics
  readonly judged: Map<string, Judged>
  readonly rows: Map<string, ReadonlyArray<number>>
  /** How many row ids `rows` and the reads behind it hold. */
  readonly rowIds: () => number
}

const withinLimits = (kept: Kept, limits: KeptLimits): boolean =>
  kept.judged.size + kept.rows.size < limits.entries && kept.rowIds() < limits.rowIds

/**
 * A match's newest rows as far as they were read: its newest `count` are the first `count` of a longer read, and all
 * of it when that read found fewer than it asked for.
 */
interface ReadRows {
  readonly asked: number
  readonly rows: ReadonlyArray<number>
}

const kept = new WeakMap<SqliteDatabase, Kept>()

/**
 * What the statistics are worked out from: the full-text index's structure record, which FTS5 writes again with
 * every change to the index (an observation indexed, deleted or merged), and the newest observation. A write
 * that indexes no observation (the memory tools record each call, a hook records a prompt) leaves both as they
 * were, so it keeps the statistics: a long-lived process (the memory tools' server) judges a word once, not
 * after each of its own calls.
 */
const STAMP = `SELECT coalesce((SELECT hex(block) FROM observations_fts_data WHERE id = 10), '')
  || ':' || coalesce((SELECT max(id) FROM observation_rows), 0)`

/**
 * The term statistics of a connection's memory, kept while its observations are unchanged (`STAMP`): a word is
 * judged once, not on every search (judging reads up to 400 of its rows, a prefix's frequent words more).
 */
export const termStatistics = (db: SqliteDatabase, limits: KeptLimits = KEPT_LIMITS): TermStatistics => {
  const stamp = values(db, STAMP).get() as string
  const found = kept.get(db)
  if (found !== undefined && found.stamp === stamp && withinLimits(found, limits)) return found.statistics
  const corpus = corpusOf(db)
  const judged = new Map<string, Judged>()
  const common: CommonWords = new Set()
  const judgeTerm = (term: string): Judged => {
    let one = judged.get(term)
    if (one === undefined) judged.set(term, one = judge(db, newest, term, corpus.sample, common))
    return one
  }
  const rows = new Map<string, ReadonlyArray<number>>()
  // A word's rows read to judge it hold the rows a concept of that word alone is asked for: the index is read once.
  const widest = new Map<string, ReadRows>()
  let rowIds = 0
  const newest = (match: string, count: number): ReadonlyArray<number> => {
    const key = `${count} ${match}`
    let found = rows.get(key)
    if (found === undefined) {
      const read = widest.get(match)
      if (read !== undefined && (read.asked >= count || read.rows.length < read.asked)) {
        found = read.rows.slice(0, count)
      } else {
        found = newestHolding(db, match, count)
        widest.set(match, { asked: count, rows: found })
        rowIds += found.length
      }
      rows.set(key, found)
      rowIds += found.length
    }
    return found
  }
  const statistics = { corpus, judgeTerm, newest }
  kept.set(db, { stamp, statistics, judged, rows, rowIds: () => rowIds })
  return statistics
}

/**
 * The words part of the query: every term, less the ones most of the newest rows hold (the one whose
 * rows reach back furthest stays when all do), prefixes narrowed to their word where `narrowed` says.
 */
export const selectiveTerms = (
  terms: ReadonlyArray<string>,
  judgeTerm: (term: string) => Judged
): ReadonlyArray<Selected> => {
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
export const idf = (held: number, rows: number): number => Math.max(1e-6, Math.log((rows - held + 0.5) / (held + 0.5)))

/**
 * Terms that stand for the user's words (lexicon.ts) count for at most half of what a word the user typed
 * counts: the bm25 of the terms that stand in, each asked twice or once, is divided by 4. A term counts
 * half when it is no more than twice as rare (by idf) as the rarest word it stands for, a quarter when no
 * more than four times, and is left out beyond, so a memory holding the user's word always outranks one
 * holding only a term that stands for it, other things equal.
 */
export const STAND_IN_DIVISOR = 4

export interface StandIn extends Selected {
  /** How many times the term is asked: its weight, over `STAND_IN_DIVISOR`. */
  readonly times: number
  /** The MATCH terms of the user's words it stands for. */
  readonly sources: ReadonlyArray<string>
}

/**
 * Whether any row holds a longer word of a Latin prefix (judged by its word, which no row holds): surely when a
 * word it stands for starts with it and some row holds that word (`"gatewa"*` for `gateway`), else as the index
 * says. Asking reads every row of every longer word (FTS5 merges them all for a prefix), so it is asked last.
 */
const longerWordsHeld = (
  prefix: string,
  sources: ReadonlyArray<string>,
  statistics: TermStatistics
): boolean => {
  const start = plainWord(prefix)
  return sources.some((source) => plainWord(source).startsWith(start) && statistics.judgeTerm(source).held > 0)
    || statistics.newest(prefix, 1).length > 0
}

export const standInTerms = (
  query: string,
  asked: ReadonlyArray<string>,
  statistics: TermStatistics
): ReadonlyArray<StandIn> => {
  const { corpus, judgeTerm } = statistics
  const terms = new Map<string, StandIn>()
  for (const { term, sources } of expansionsOf(query, asked)) {
    const judged = judgeTerm(term)
    if (terms.has(judged.use)) continue
    // A Latin prefix was judged by its word: its longer words may be all there is.
    if (judged.held === 0 && (!isLatinPrefix(judged.use) || !longerWordsHeld(judged.use, sources, statistics))) {
      continue
    }
    const rarestSource = Math.min(...sources.map((source) => judgeTerm(source).held))
    const rarer = idf(judged.held, corpus.rows) / idf(rarestSource, corpus.rows)
    // A common term costs the most (bm25 counts every row of every term) and tells the least: it only counts
    // for coverage. Words near each other are scored as that many terms: such a term counts a quarter at most.
    const times = judged.common ? 0 : rarer <= 2 && !judged.use.startsWith("NEAR(") ? 2 : rarer <= 4 ? 1 : 0
    terms.set(judged.use, { use: judged.use, held: judged.held, times, sources })
  }
  return [...terms.values()]
}
