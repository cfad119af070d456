/**
 * What a query may also mean: the lexicon (data in lexicon/: a Korean-English bridge for software terms, error
 * codes with the words people use for them, developer synonyms) and English word forms (a Porter stemmer).
 * The search asks for these terms besides the user's own, at a lower weight (terms.ts, hits.ts).
 *
 * The data is loaded on first use, once per process. Its phrases are stored as the search splits words (lower
 * case, one space between words), so a query's words are looked up as they are.
 */
import { stemmer } from "stemmer"
import { type LexiconFile, lexiconText, prebuiltLinkParts } from "./lexicon/files.ts"
import { HANGUL_SYLLABLE, quote, toMatchTerm, withoutParticle } from "./query.ts"
import { wordsOf } from "./words.ts"

/** The lines of a data file as their tab-separated fields, without comments and blank lines. */
export const lexiconEntries = (name: LexiconFile): Array<Array<string>> =>
  lexiconText(name)
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.split("\t"))

/** A phrase as the lexicon stores it: its words as the search splits them, lower-cased, one space apart. */
export const phraseOf = (text: string): string =>
  [...wordsOf(text.normalize("NFC"))].map((w) => w.toLowerCase()).join(" ")

type Links = Map<string, Array<string>>

/** Each phrase the lexicon knows -> the phrases linked to it: the bridge's, the errors' and the synonyms' in turn. */
export type LinkIndex = Readonly<Record<string, ReadonlyArray<string>>>

/**
 * The link index, from the data files. The bundles hold it already built (scripts/bundle.mjs calls this at build
 * time): building it takes milliseconds a prompt hook cannot spare.
 */
export const buildLinkIndex = (): LinkIndex => {
  const link = (links: Links, from: string, to: string) => {
    let list = links.get(from)
    if (list === undefined) links.set(from, list = [])
    if (!list.includes(to)) list.push(to)
  }
  const grouped = (file: LexiconFile): Links => {
    const links: Links = new Map()
    for (const group of lexiconEntries(file)) {
      for (const a of group) for (const b of group) if (a !== b) link(links, a, b)
    }
    return links
  }
  const bridge: Links = new Map()
  for (const [korean, english] of lexiconEntries("bridge.tsv")) {
    link(bridge, korean!, english!)
    link(bridge, english!, korean!)
  }
  const files = [bridge, grouped("errors.tsv"), grouped("synonyms.tsv")]
  const index: Record<string, ReadonlyArray<string>> = {}
  for (const phrase of new Set(files.flatMap((links) => [...links.keys()]))) {
    const lists = files.map((links) => links.get(phrase) ?? [])
    const linked = new Set<string>()
    const longest = Math.max(...lists.map((l) => l.length))
    for (let i = 0; i < longest; i++) for (const list of lists) if (list[i] !== undefined) linked.add(list[i]!)
    index[phrase] = [...linked].slice(0, MAX_EXPANSIONS_PER_PHRASE)
  }
  return index
}

/** The phrases linked to a phrase, or undefined when the lexicon does not know it. */
type LinkLookup = (phrase: string) => ReadonlyArray<string> | undefined

/** Own keys only: a query word such as `constructor` is no phrase of the lexicon. */
const lookupIn = (index: LinkIndex): LinkLookup => (phrase) => Object.hasOwn(index, phrase) ? index[phrase] : undefined

/**
 * The index cut by each phrase's first character, each part as JSON, for the bundles: a query parses only the
 * parts its words start with (parsing the whole index would cost a prompt hook over a millisecond).
 */
export const linkIndexParts = (index: LinkIndex): Record<string, string> => {
  const parts: Record<string, Record<string, ReadonlyArray<string>>> = {}
  for (const [phrase, links] of Object.entries(index)) (parts[phrase[0]!] ??= {})[phrase] = links
  return Object.fromEntries(Object.entries(parts).map(([first, part]) => [first, JSON.stringify(part)]))
}

const lookupInParts = (parts: Readonly<Record<string, string>>): LinkLookup => {
  const parsed = new Map<string, LinkLookup>()
  return (phrase) => {
    const first = phrase[0]
    if (first === undefined || !Object.hasOwn(parts, first)) return undefined
    let part = parsed.get(first)
    if (part === undefined) parsed.set(first, part = lookupIn(JSON.parse(parts[first]!) as LinkIndex))
    return part(phrase)
  }
}

let loaded: LinkLookup | undefined
const lexicon = (): LinkLookup => {
  if (loaded !== undefined) return loaded
  const parts = prebuiltLinkParts()
  return (loaded = parts === undefined ? lookupIn(buildLinkIndex()) : lookupInParts(parts))
}

/** At most this many phrases stand in for one phrase of the query (the first the lexicon links to it). */
export const MAX_EXPANSIONS_PER_PHRASE = 6
/** At most this many terms are added to one query, whatever its length. */
export const MAX_EXPANSIONS = 16
/**
 * Only a query's first words are looked up: a pasted page costs what a sentence does (only its first 32 terms are
 * asked).
 */
const MAX_WORDS = 48
/** The longest phrase the lexicon is searched for, in words. */
const MAX_PHRASE_WORDS = 5
/** A Hangul word matches the longest entry that starts it, of at least this many syllables (`재시작됨` -> `재시작`). */
const MIN_HANGUL_ENTRY = 2
/** English words this long are stemmed (`expires` -> `expir`): shorter stems match too many words as prefixes. */
const MIN_STEM_LENGTH = 4

/** The forms of an English word the lexicon may hold: itself, then its stem and the word the stem was cut from. */
const englishForms = (word: string): ReadonlyArray<string> => {
  if (word.length < MIN_STEM_LENGTH || !/^[a-z]+$/.test(word)) return [word]
  const stem = stemmer(word)
  // Porter turns a final y into i (`retries` -> `retri`) and drops a final e (`expired` -> `expir`).
  return [word, stem, `${stem}e`, stem.endsWith("i") ? `${stem.slice(0, -1)}y` : stem]
}

/**
 * The forms of a query's word the lexicon may hold, most specific first. A Hangul word carries particles and
 * endings (`연결이`, `재시작됨`): as the last word of a phrase, or alone, it may be itself or any start of it
 * of 2+ syllables (`재시작`); inside a phrase, itself or its stem without a particle.
 */
const formsOf = (word: string, last: boolean): ReadonlyArray<string> => {
  const lower = word.toLowerCase()
  if (!HANGUL_SYLLABLE.test(lower)) return last ? englishForms(lower) : [lower]
  if (!last) return [...new Set([lower, withoutParticle(lower)])]
  const starts = Array.from(
    { length: Math.max(0, lower.length - MIN_HANGUL_ENTRY) },
    (_, i) => lower.slice(0, lower.length - 1 - i)
  )
  return [lower, ...starts]
}

/** The lexicon's phrase for `words` (all of them), if it holds one in any of their forms. */
const entryFor = (words: ReadonlyArray<string>, known: LinkLookup): string | undefined => {
  let phrases = [""]
  words.forEach((word, i) => {
    const forms = formsOf(word, i === words.length - 1)
    phrases = phrases.flatMap((start) => forms.map((form) => (start === "" ? form : `${start} ${form}`)))
  })
  return phrases.find((phrase) => known(phrase) !== undefined)
}

interface KnownPhrase {
  readonly phrase: string
  readonly words: ReadonlyArray<string>
}

/**
 * The phrases of `words` the lexicon knows, of at most `longest` words, longest first at each word (a matched
 * phrase's words are not matched again).
 */
const knownPhrases = (
  words: ReadonlyArray<string>,
  known: LinkLookup,
  longest = MAX_PHRASE_WORDS
): Array<KnownPhrase> => {
  const found: Array<KnownPhrase> = []
  for (let at = 0; at < words.length;) {
    let matched = 1
    for (let n = Math.min(longest, words.length - at); n >= 1; n--) {
      const phrase = entryFor(words.slice(at, at + n), known)
      if (phrase !== undefined) {
        found.push({ phrase, words: words.slice(at, at + n) })
        matched = n
        break
      }
    }
    at += matched
  }
  return found
}

/**
 * A phrase of the lexicon as one safe MATCH term. A word is matched as a query word is (see query.ts). An
 * English phrase is an FTS5 phrase, its last word a prefix (`"rate limit"*` finds `rate limited`); a phrase
 * with Hangul is its words near each other, each a prefix of its stem, since particles follow Hangul words
 * (`디스크 공간 부족` finds `디스크 공간이 부족합니다`).
 */
export const phraseTerm = (phrase: string): string => {
  const words = phrase.split(" ")
  // A short word stands in as a prefix too (`oom` finds `oomkilled`, `pod` finds `pods`): it counts for less.
  if (words.length === 1) return /^[a-z]{3}$/.test(phrase) ? `${quote(phrase)}*` : toMatchTerm(phrase)
  if (HANGUL_SYLLABLE.test(phrase)) return `NEAR(${words.map(toMatchTerm).join(" ")}, ${words.length})`
  const last = words.at(-1)!
  return /^[a-z]{4,}$/.test(last) ? `${quote(phrase)}*` : quote(phrase)
}

export interface Expansion {
  /** A safe MATCH term. */
  readonly term: string
  /** The MATCH terms of the user's words it stands for. */
  readonly sources: ReadonlyArray<string>
}

/**
 * The terms a query also means: what the lexicon links to its phrases, taking each phrase's first link in
 * turn, then each one's second, and so on, so one ordinary word cannot take the whole budget; then English
 * stems of its words (`expires` -> `expir*`); then what the lexicon links to the parts of its longer phrases.
 * At most 6 for a phrase and 16 for the query; none that the query already asks for.
 */
export const expansionsOf = (query: string, asked: ReadonlyArray<string>): ReadonlyArray<Expansion> => {
  const words: Array<string> = []
  for (const word of wordsOf(query.normalize("NFC"))) if (words.push(word) === MAX_WORDS) break
  if (words.length === 0) return []
  const taken = new Set(asked)
  const found: Array<Expansion> = []
  const add = (term: string, sources: ReadonlyArray<string>) => {
    if (found.length < MAX_EXPANSIONS && !taken.has(term)) {
      taken.add(term)
      found.push({ term, sources })
    }
  }
  const sourceTerms = (of: ReadonlyArray<string>) => of.map((w) => toMatchTerm(w.toLowerCase()))
  const known = lexicon()
  const linkedIn = (tier: ReadonlyArray<KnownPhrase>) => {
    const linked = tier.map(({ phrase, words: of }) => ({ targets: known(phrase)!, sources: sourceTerms(of) }))
    for (let round = 0; round < MAX_EXPANSIONS_PER_PHRASE; round++) {
      for (const { targets, sources } of linked) {
        const target = targets[round]
        if (target !== undefined) add(phraseTerm(target), sources)
      }
    }
  }
  const phrases = knownPhrases(words, known)
  linkedIn(phrases)
  for (const word of words) {
    const lower = word.toLowerCase()
    if (lower.length < MIN_STEM_LENGTH || !/^[a-z]+$/.test(lower)) continue
    const stem = stemmer(lower)
    // A plural is its singular, as written (`tests` -> `test`, where `redis` -> `redi` finds nothing); other
    // stems are prefixes (`expir` finds `expired` and `expiry`), without Porter's y -> i (`retri` -> `retr`).
    if (`${stem}s` === lower) add(quote(stem), sourceTerms([word]))
    else {
      const prefix = stem.endsWith("i") && stem.length > MIN_STEM_LENGTH ? stem.slice(0, -1) : stem
      if (prefix !== lower && prefix.length >= MIN_STEM_LENGTH) add(`${quote(prefix)}*`, sourceTerms([word]))
    }
  }
  // The parts of a long phrase also count, after every whole one (`테스트 시간 초과` is also `시간 초과`).
  linkedIn(phrases.filter((p) => p.words.length > 1).flatMap((p) => knownPhrases(p.words, known, p.words.length - 1)))
  return found
}
