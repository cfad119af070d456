/**
 * Extra text indexed next to an observation so identifiers are found by their parts: unicode61 keeps
 * `TokenExpiredError` as one token, so `token expired` would not find it without `token expired error`.
 */
import { identifierParts, isAscii, lazyRegExp, wordPattern } from "./words.ts"

/**
 * Where a word can split: a case change (`tokenExpired`, `HTTPServer`), a letter next to a digit
 * (`sha256`), or a script change (`로그인Token`). Testing this first keeps indexing fast: most words of
 * real output are plain and never reach the (costlier) split.
 */
const SPLIT_POINT = lazyRegExp(() =>
  /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}|[\p{Ll}\p{Lu}]\p{Lo}|\p{Lo}[\p{Ll}\p{Lu}]/u
)

/** An ASCII word (a maximal run of letters and digits) with a split point in it. */
const ASCII_SPLITTABLE_WORD =
  /(?<![A-Za-z0-9])[A-Za-z0-9]*?(?:[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z])[A-Za-z0-9]*/g

/**
 * Identifiers recur (the same class, function and file names in output after output): their parts are
 * remembered, up to a bound, so indexing splits each one once.
 */
const knownParts = new Map<string, ReadonlyArray<string>>()
const MAX_KNOWN = 10_000

const partsOf = (word: string): ReadonlyArray<string> => {
  let parts = knownParts.get(word)
  if (parts === undefined) {
    if (knownParts.size === MAX_KNOWN) knownParts.clear()
    parts = identifierParts(word)
    knownParts.set(word, parts)
  }
  return parts
}

/** Whether the code unit at `i` of lower-cased ASCII text is a letter or digit (out of range: no). */
const isLowerWordChar = (lower: string, i: number): boolean => {
  const c = lower.charCodeAt(i)
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)
}

/** Whether `part` is a whole word of `lower` (ASCII text, lower-cased). */
const isAsciiWordOf = (lower: string, part: string): boolean => {
  for (let at = lower.indexOf(part); at !== -1; at = lower.indexOf(part, at + 1)) {
    if (!isLowerWordChar(lower, at - 1) && !isLowerWordChar(lower, at + part.length)) return true
  }
  return false
}

/**
 * The identifier parts of `text` that are not already words of it, lower-cased, deduplicated, space-separated.
 * Index `text + "\n" + searchableText(text)`. One pass over the text. Bounded without a cap: each part is a
 * distinct piece of some word, at least 2 characters long, so the output is under 1.5 times the input.
 */
export const searchableText = (text: string): string => {
  // Nearly all tool output is ASCII: one regex finds just the words that can split.
  if (isAscii(text)) {
    const parts = new Set<string>()
    ASCII_SPLITTABLE_WORD.lastIndex = 0
    for (let word = ASCII_SPLITTABLE_WORD.exec(text); word !== null; word = ASCII_SPLITTABLE_WORD.exec(text)) {
      for (const part of partsOf(word[0])) parts.add(part)
    }
    if (parts.size === 0) return ""
    // A part that is also a word on its own would only inflate its term frequency.
    const lower = text.toLowerCase()
    return [...parts].filter((part) => !isAsciiWordOf(lower, part)).join(" ")
  }
  const words: Array<string> = []
  const parts = new Set<string>()
  for (const [word] of text.matchAll(wordPattern(false))) {
    words.push(word)
    if (SPLIT_POINT().test(word)) { for (const part of identifierParts(word)) parts.add(part) }
  }
  if (parts.size === 0) return ""
  // Parts are few, so comparing them with the words beats lower-casing every word into a set.
  const isWord = (part: string) => words.some((word) => word.length === part.length && word.toLowerCase() === part)
  return [...parts].filter((part) => !isWord(part)).join(" ")
}
