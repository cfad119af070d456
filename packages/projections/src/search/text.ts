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
const SPLIT_POINT = lazyRegExp(() => /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}|[\p{Ll}\p{Lu}]\p{Lo}|\p{Lo}[\p{Ll}\p{Lu}]/u)
const ASCII_SPLIT_POINT = /[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]/

/**
 * The identifier parts of `text` that are not already words of it, lower-cased, deduplicated, space-separated.
 * Index `text + "\n" + searchableText(text)`. One pass over the text. Bounded without a cap: each part is a
 * distinct piece of some word, at least 2 characters long, so the output is under 1.5 times the input.
 */
export const searchableText = (text: string): string => {
  const ascii = isAscii(text)
  const splitPoint = ascii ? ASCII_SPLIT_POINT : SPLIT_POINT()
  const words: Array<string> = []
  const parts = new Set<string>()
  for (const [word] of text.matchAll(wordPattern(ascii))) {
    words.push(word)
    if (splitPoint.test(word)) for (const part of identifierParts(word)) parts.add(part)
  }
  if (parts.size === 0) return ""
  // A part that is also a word on its own would only inflate its term frequency. Parts are few, so
  // comparing them with the words beats lower-casing every word into a set.
  const isWord = (part: string) => words.some((word) => word.length === part.length && word.toLowerCase() === part)
  return [...parts].filter((part) => !isWord(part)).join(" ")
}
