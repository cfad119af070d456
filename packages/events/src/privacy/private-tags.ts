/** Removes `<private>...</private>` blocks, failing safe: an unclosed block hides everything after it. */

export const PRIVATE_MARKER = "[private]"

/**
 * An opening, closing or self-closing `<private>` tag, forgiving about case, whitespace and
 * attributes (`<private reason="x">`, `< /private >`). Every part is bounded, so scanning stays linear.
 */
const PRIVATE_TAG = /<\s{0,8}(?<closing>\/\s{0,8})?private(?=[\s\/>])[^<>]{0,256}>/gi

export interface StrippedText {
  readonly text: string
  /** How many private blocks were replaced by the marker. */
  readonly redactions: number
}

/**
 * Replaces each outermost private block (tags and content) by `[private]`. Nested blocks go with
 * their outermost block; a stray closing tag or a self-closing `<private/>` is just dropped.
 */
export function stripPrivateBlocks(text: string): StrippedText {
  if (!/private/i.test(text)) return { text, redactions: 0 }
  let output = ""
  let cursor = 0
  let depth = 0
  let redactions = 0
  for (const tag of text.matchAll(PRIVATE_TAG)) {
    const role = tagRole(tag)
    const end = tag.index + tag[0].length
    if (depth > 0) {
      if (role === "open") depth++
      else if (role === "close" && --depth === 0) {
        output += PRIVATE_MARKER
        cursor = end
        redactions++
      }
      continue
    }
    output += text.slice(cursor, tag.index)
    if (role === "open") depth = 1
    else cursor = end // a stray closing tag or an empty <private/> is just dropped
  }
  // Still inside a block at the end: whatever follows the opening tag stays private.
  if (depth > 0) return { text: output + PRIVATE_MARKER, redactions: redactions + 1 }
  return { text: output + text.slice(cursor), redactions }
}

function tagRole(tag: RegExpExecArray): "open" | "close" | "empty" {
  if (tag.groups?.["closing"] !== undefined) return "close"
  return tag[0].endsWith("/>") ? "empty" : "open"
}
