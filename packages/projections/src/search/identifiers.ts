/**
 * Identifier-like words, for substring search: words with a separator inside (`snake_case`,
 * `src/auth.ts`, `api-key`), a case change (`TokenExpired`) or a digit (`sha256`).
 */
export const IDENTIFIER_LIKE = /[_./-]|[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]/

/** Substrings shorter than this match too many terms to mean anything. */
const MIN_PIECE_LENGTH = 3

/**
 * The pieces of an identifier as the full-text index sees them (unicode61 splits at separators and
 * lower-cases), each of 3+ characters: `n_stor` -> `stor`, `xpiredErr` -> `xpirederr`.
 */
export const substringPieces = (word: string): ReadonlyArray<string> =>
  (word.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((piece) => piece.length >= MIN_PIECE_LENGTH)
