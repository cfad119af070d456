/**
 * Free text -> a safe FTS5 MATCH expression. Every term is quoted, so no user input can reach FTS5 syntax
 * (`AND`, `NEAR`, `col:`, `^`, `*`, parentheses); terms are joined with OR, so any term matches and bm25
 * ranks documents that match more terms higher.
 */
import { identifierParts, wordsOf } from "./words.ts"

/** Keeps queries fast however long the pasted text; later terms are dropped. */
const MAX_TERMS = 32

/**
 * Latin (and other non-Hangul) terms this long match as prefixes (`auth` -> `authentication`), until the
 * memory holds the word often enough to find it alone (the engine narrows them then). Shorter ones stay
 * exact: `log`, `err`, `get` as prefixes match too many unrelated words.
 */
const MIN_LATIN_PREFIX_LENGTH = 4

export const HANGUL_SYLLABLE = /[\uAC00-\uD7A3]/

/** Common particles, longest first: `인증에서는` loses all of `에서는`, not just `는`. */
const PARTICLES = [
  "에서는",
  "으로는",
  "에서",
  "으로",
  "에게",
  "에는",
  "까지",
  "부터",
  "을",
  "를",
  "이",
  "가",
  "은",
  "는",
  "에",
  "로",
  "와",
  "과",
  "의",
  "도"
]

/** A stem shorter than this is more likely a word that merely ends like a particle (`사이`, `나는`). */
const MIN_STEM_LENGTH = 2

/** `인증을` -> `인증`. Safe for recall: the stem becomes a prefix term, so it still matches the word as typed. */
export const withoutParticle = (term: string): string => {
  const particle = PARTICLES.find((p) => term.endsWith(p) && term.length - p.length >= MIN_STEM_LENGTH)
  return particle === undefined ? term : term.slice(0, -particle.length)
}

/** A term as an FTS5 string: nothing in it is syntax. */
export const quote = (term: string): string => `"${term.replaceAll("\"", "\"\"")}"`

/** Hangul words carry particles (`인증을`, `인증에서`), so they always match as prefixes of their stem. */
export const toMatchTerm = (term: string): string => {
  if (HANGUL_SYLLABLE.test(term)) return `${quote(withoutParticle(term))}*`
  return term.length >= MIN_LATIN_PREFIX_LENGTH ? `${quote(term)}*` : quote(term)
}

/**
 * A Latin word matched as a prefix, which the engine narrows to the word; not a Hangul stem, whose particles follow it.
 */
export const isLatinPrefix = (term: string): boolean => term.endsWith("*") && !HANGUL_SYLLABLE.test(term)

/** The word itself and, for identifiers, its parts, since the index holds both (see `searchableText`). */
const termsOf = (word: string): ReadonlyArray<string> => [word.toLowerCase(), ...identifierParts(word)].map(toMatchTerm)

function* termsOfText(text: string): Generator<string> {
  for (const word of wordsOf(text)) yield* termsOf(word)
}

/** The query's terms, each a safe MATCH term (quoted, perhaps a prefix), at most 32. */
export const matchTerms = (userText: string): ReadonlyArray<string> => {
  const terms = new Set<string>()
  for (const term of termsOfText(userText)) {
    terms.add(term)
    if (terms.size === MAX_TERMS) break
  }
  return [...terms]
}

/**
 * The query's words with their terms, the word's own term first: a hit covers a word when it holds any of its terms.
 * Only the words whose terms the search asks for (its first 32 terms): a pasted page costs what a sentence does.
 */
export const termsByWord = (userText: string): ReadonlyArray<readonly [word: string, terms: ReadonlyArray<string>]> => {
  const words: Array<readonly [string, ReadonlyArray<string>]> = []
  const asked = new Set<string>()
  for (const word of wordsOf(userText)) {
    if (asked.size >= MAX_TERMS) break
    const terms = termsOf(word)
    words.push([word, terms])
    for (const term of terms) asked.add(term)
  }
  return words
}

/** A MATCH expression for `userText`, or `undefined` when it has no searchable word (only punctuation, say). */
export const buildMatchQuery = (userText: string): string | undefined => {
  const terms = matchTerms(userText)
  return terms.length === 0 ? undefined : terms.join(" OR ")
}
