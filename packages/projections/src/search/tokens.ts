/**
 * The one token estimate used everywhere (context budgets, truncation, reports):
 *
 *   tokens = ceil(dense + other / 4)
 *
 * `dense` counts Hangul (syllables and jamo), CJK ideographs and kana: BPE tokenizers spend about one token
 * on each. `other` counts the remaining UTF-16 code units: about four per token for English and code.
 * Non-empty text is therefore at least 1 token, and empty text 0.
 */

/** All ranges lie in the Basic Multilingual Plane, so each match is exactly one code unit. */
const DENSE_SCRIPT = /[\u1100-\u11FF\u3040-\u30FF\u3130-\u318F\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF]/g

export const estimateTokens = (text: string): number => {
  const dense = text.length - text.replace(DENSE_SCRIPT, "").length
  return Math.ceil(dense + (text.length - dense) / 4)
}
