/**
 * Word splitting shared by indexing (`text.ts`) and querying (`query.ts`), so both see the same words
 * and the same identifier parts.
 */

/**
 * Builds a regex on first use. A Unicode property class takes about half a millisecond to build, and
 * every hook loads this module (the observations projection indexes with it): most text is ASCII, and
 * most hooks never need one.
 */
export const lazyRegExp = (build: () => RegExp): () => RegExp => {
  let built: RegExp | undefined
  return () => (built ??= build())
}

/** About what the unicode61 tokenizer keeps as one token: a run of letters, digits and combining marks. */
const WORD = lazyRegExp(() => /[\p{L}\p{N}\p{M}]+/gu)

/**
 * Nearly all tool output is ASCII, and Unicode property classes cost several times more than plain
 * ranges; for ASCII text these patterns match exactly what their Unicode versions would.
 */
const ASCII = /^[\x00-\x7f]*$/
const ASCII_WORD = /[A-Za-z0-9]+/g
const ASCII_IDENTIFIER_PART = /[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+|[0-9]+/g

/**
 * One identifier part: a capitalised word (`Token`), an acronym not followed by lower case (`HTTP` in
 * `HTTPServer`), a lower-case run, a digit run, or a run of uncased letters (Hangul, CJK).
 */
const IDENTIFIER_PART = lazyRegExp(() =>
  new RegExp(
    [
      String.raw`[\p{Lu}\p{Lt}][\p{Ll}\p{M}]+`,
      String.raw`[\p{Lu}\p{Lt}][\p{Lu}\p{Lt}\p{M}]*(?!\p{Ll})`,
      String.raw`[\p{Ll}\p{M}]+`,
      String.raw`[\p{N}\p{M}]+`,
      String.raw`[\p{Lo}\p{Lm}\p{M}]+`
    ].join("|"),
    "gu"
  )
)

/** Longer words are data (base64, minified code), not identifiers; the cap also bounds the regex's backtracking. */
const MAX_IDENTIFIER_LENGTH = 100

/** Hex ids and hashes (`550e8400`, `a1b2c3`) split into meaningless digit and letter runs. */
const HEX_ID = /^(?=.*\d)(?=.*[a-f])[\da-f]+$/i

/**
 * Most words are plain (`error`, `PASS`, `Token`, `42`, `인증을`) and cannot split; recognising them with a
 * cheap regex first keeps indexing fast (the full Unicode-class split costs several times more).
 */
const PLAIN_WORD = /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+|[0-9]+|[\uAC00-\uD7A3]+)$/

/** Single letters and digits match too much to be worth a term of their own. */
const MIN_PART_LENGTH = 2

/** The words of `text`, lazily, in order. */
export function* wordsOf(text: string): Generator<string> {
  for (const match of text.matchAll(wordPattern(isAscii(text)))) yield match[0]
}

/** The word pattern for a text: plain ranges when it is ASCII. */
export const wordPattern = (ascii: boolean): RegExp => (ascii ? ASCII_WORD : WORD())

export const isAscii = (text: string): boolean => ASCII.test(text)

/**
 * The lower-cased parts of an identifier-like word (`HTTPServerError` -> `http`, `server`, `error`), or none
 * when the word does not split. Underscores, hyphens, dots and slashes never reach here: they already
 * separate words, for `wordsOf` and for unicode61 alike.
 */
export const identifierParts = (word: string): ReadonlyArray<string> => {
  if (PLAIN_WORD.test(word) || word.length > MAX_IDENTIFIER_LENGTH || HEX_ID.test(word)) return []
  const parts = word.match(isAscii(word) ? ASCII_IDENTIFIER_PART : IDENTIFIER_PART()) ?? []
  if (parts.length < 2) return []
  return parts.filter((part) => part.length >= MIN_PART_LENGTH).map((part) => part.toLowerCase())
}
