/**
 * How much of the query a hit covers. Each word of the query is a concept, held by a row that holds the word
 * or a term that stands for it. A row holding one concept scores its relevance times 1 / concepts, one
 * holding two or more 2 / concepts, one holding all of them in full, so a short note that
 * repeats one word of the query does not bury an older memory about all of it (in a language or words the
 * user did not type). Which rows hold two or all concepts is asked of the index as such (no bm25: only
 * which rows), for the newest 300 of each, on queries of 2 to 8 concepts (pairs up to 5). Function words
 * (`the`, `on`) are no concepts.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { termsByWord } from "./query.ts"
import { type Judged, newestHolding, type StandIn } from "./terms.ts"

export const MAX_CONCEPTS = 8
const MAX_CONCEPTS_FOR_PAIRS = 5
const COVERED_ROWS = 300

/** English words that say nothing about what a hit is about: a hit need not hold them to cover the query. */
const FUNCTION_WORDS = new Set(
  ["a", "an", "the", "at", "on", "in", "to", "of", "for", "with", "by", "from", "as", "and", "or", "but", "is", "are"]
    .concat(["was", "be", "it", "its", "this", "that", "when", "while", "after", "before", "our", "my", "we", "i", "you"])
    .concat(["can", "t", "not"])
    .map((w) => `"${w}"`)
)

export const conceptsOf = (
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
export const coverageOf = (db: SqliteDatabase, concepts: ReadonlyArray<ReadonlyArray<string>>): Map<number, number> => {
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
