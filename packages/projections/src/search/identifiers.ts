/**
 * The identifier-like words of a text, for substring search: words with a separator inside
 * (`snake_case`, `src/auth.ts`, `api-key`), a case change (`TokenExpired`) or a digit (`sha256`).
 * Plain words are left to the word index; trigrams of them would only grow the database.
 */
const CANDIDATE = /[A-Za-z0-9_][A-Za-z0-9_./-]{2,}/g
export const IDENTIFIER_LIKE = /[_./-]|[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]/

/** Distinct identifier-like words (at most 200), space-separated. */
export const identifiersOf = (text: string): string => {
  const found = new Set<string>()
  for (const [word] of text.matchAll(CANDIDATE)) {
    if (IDENTIFIER_LIKE.test(word)) found.add(word)
    if (found.size === 200) break
  }
  return [...found].join(" ")
}
