/**
 * How much of the query a hit covers. Each word of the query is a concept (function words such as `the`,
 * `from`, `with` are none), held by a row that holds the word or a term that stands for it, and weighs what
 * the word tells: its idf, as bm25 weighs it. A hit's relevance is multiplied by the weight of the concepts
 * it holds over the weight of all, so a memory that holds three of four concepts in other words (another
 * language, an error code) outranks one that repeats one of them as typed, while of two memories holding
 * the same concepts, the one holding the words as typed still comes first (a stand-in scores half or less).
 *
 * Which rows hold a concept is asked of the index as such (no bm25: only which rows): the newest 300 rows
 * holding any of its terms and, when there are more, every row holding its rare terms (together at most 300),
 * however old. On queries of 2 to 8 concepts; a hit found holding none of them (an older row holding only
 * common terms) is taken to hold the lightest.
 */
import { isLatinPrefix, termsByWord } from "./query.ts"
import { type Corpus, idf, type Judged, type StandIn, type TermStatistics } from "./terms.ts"

export const MAX_CONCEPTS = 8
const COVERED_ROWS = 300

/**
 * English words that say nothing about what a hit is about: a hit need not hold them to cover the query. A
 * common stop-word list (NLTK's English one) without the words that carry a developer's meaning (`down`, `off`).
 */
const FUNCTION_WORDS = new Set(
  ["i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours", "yourself", "yourselves"]
    .concat(["he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself", "they", "them"])
    .concat(["their", "theirs", "themselves", "what", "which", "who", "whom", "this", "that", "these", "those", "am"])
    .concat(["is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does", "did"])
    .concat(["doing", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while", "of", "at", "by"])
    .concat(["for", "with", "about", "between", "into", "through", "during", "before", "after", "above", "below"])
    .concat(["to", "from", "up", "in", "out", "on", "over", "under", "again", "further", "then", "once", "here"])
    .concat(["there", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most", "other"])
    .concat(["some", "such", "no", "nor", "not", "only", "own", "same", "so", "than", "too", "very", "s", "t", "can"])
    .concat(["will", "just", "don", "should", "now"])
)

/** A word of the query and the terms that hold it: its own (those not common) and those that stand for it. */
export interface Concept {
  readonly terms: ReadonlyArray<{ readonly use: string; readonly held: number }>
  /** The idf of the word as typed. */
  readonly weight: number
}

export const conceptsOf = (
  query: string,
  corpus: Corpus,
  judgeTerm: (term: string) => Judged,
  standIns: ReadonlyArray<StandIn>
): ReadonlyArray<Concept> => {
  const concepts = new Map<string, { terms: Map<string, number>; weight: number }>()
  for (const [word, terms] of termsByWord(query)) {
    const key = terms[0]!
    if (FUNCTION_WORDS.has(word.toLowerCase()) || concepts.has(key)) continue
    const held = new Map<string, number>()
    for (const term of terms) {
      const judged = judgeTerm(term)
      if (!judged.common) held.set(judged.use, judged.held)
    }
    for (const standIn of standIns) if (standIn.sources.includes(key)) held.set(standIn.use, standIn.held)
    concepts.set(key, { terms: held, weight: idf(judgeTerm(key).held, corpus.rows) })
  }
  return [...concepts.values()]
    .filter((c) => c.terms.size > 0)
    .map((c) => ({ terms: [...c.terms].map(([use, held]) => ({ use, held })), weight: c.weight }))
}

/** The rows of the index that hold a concept, as far back as `coverageOf` asks. */
const rowsHolding = (newestHolding: TermStatistics["newest"], concept: Concept): ReadonlyArray<number> => {
  const newest = newestHolding(concept.terms.map((t) => t.use).join(" OR "), COVERED_ROWS)
  if (newest.length < COVERED_ROWS) return newest
  // A prefix's rows are more than its word's: only exact terms and Hangul stems are counted as rare.
  const rare: Array<string> = []
  let total = 0
  for (const term of [...concept.terms].sort((a, b) => a.held - b.held)) {
    if (total + term.held > COVERED_ROWS || isLatinPrefix(term.use)) break
    rare.push(term.use)
    total += term.held
  }
  return rare.length === 0 ? newest : [...newest, ...newestHolding(rare.join(" OR "), COVERED_ROWS)]
}

/**
 * Each concept's rows as a set, kept with the statistics they were read by: a search asks of its few dozen hits
 * which concepts hold them, where a map of every row holding a concept would be built anew for each search.
 */
const keptRows = new WeakMap<TermStatistics, Map<string, ReadonlySet<number>>>()

const rowSetHolding = (statistics: TermStatistics, concept: Concept): ReadonlySet<number> => {
  let sets = keptRows.get(statistics)
  if (sets === undefined) keptRows.set(statistics, sets = new Map())
  const key = concept.terms.map((t) => t.use).join(" OR ")
  let rows = sets.get(key)
  if (rows === undefined) sets.set(key, rows = new Set(rowsHolding(statistics.newest, concept)))
  return rows
}

/**
 * A row's share of the query's concepts, by weight, or the lightest concept's share for a row found holding
 * none. Undefined on queries of one concept or more than 8: bm25 orders those.
 */
export const coverageOf = (
  statistics: TermStatistics,
  concepts: ReadonlyArray<Concept>
): ((id: number) => number) | undefined => {
  if (concepts.length < 2 || concepts.length > MAX_CONCEPTS) return undefined
  const total = concepts.reduce((sum, c) => sum + c.weight, 0)
  const held = concepts.map((concept) => ({ rows: rowSetHolding(statistics, concept), share: concept.weight / total }))
  const lightest = Math.min(...concepts.map((c) => c.weight)) / total
  return (id) => {
    let share = 0
    for (const concept of held) if (concept.rows.has(id)) share += concept.share
    // Every concept weighs more than nothing: no share is a row holding none.
    return share === 0 ? lightest : share
  }
}
