/**
 * Extra text indexed next to an observation so identifiers are found by their parts: unicode61 keeps
 * `TokenExpiredError` as one token, so `token expired` would not find it without `token expired error`.
 */
import { identifierParts, wordsOf } from "./words.ts"

/**
 * The identifier parts of `text` that are not already words of it, lower-cased, deduplicated, space-separated.
 * Index `text + "\n" + searchableText(text)`. One pass over the text. Bounded without a cap: each part is a
 * distinct piece of some word, at least 2 characters long, so the output is under 1.5 times the input.
 */
export const searchableText = (text: string): string => {
  const words = new Set<string>()
  const parts = new Set<string>()
  for (const word of wordsOf(text)) {
    words.add(word.toLowerCase())
    for (const part of identifierParts(word)) parts.add(part)
  }
  // A part that is also a word on its own would only inflate its term frequency.
  return [...parts].filter((part) => !words.has(part)).join(" ")
}
