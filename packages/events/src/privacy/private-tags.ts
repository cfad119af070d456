/**
 * Removes `<private>...</private>` blocks, failing safe both ways: an unclosed block hides everything
 * after it, and a closing tag with no opening one hides everything before it (the block was opened in
 * another field: stdout opens it, stderr closes it).
 */

export const PRIVATE_MARKER = "[private]"

/**
 * An opening, closing or self-closing `<private>` tag, forgiving about case, any whitespace and
 * attributes of any length (`<private data="x">`, `<   /  private >`). Linear: each run of whitespace
 * follows one `<`, and an attribute scan stops at the next `<` or `>`, where the next try starts.
 */
const PRIVATE_TAG = /<\s*(?<closing>\/\s*)?private(?=[\s/>])[^<>]*>/gi

export interface StrippedText {
  readonly text: string
  /** How many private blocks were replaced by the marker. */
  readonly redactions: number
}

/**
 * Replaces each outermost private block (tags and content) by `[private]`. Nested blocks go with
 * their outermost block; a self-closing `<private/>` is just dropped. A closing tag before any opening
 * one ends a block that began before this text: what precedes it becomes `[private]`.
 */
export function stripPrivateBlocks(text: string): StrippedText {
  if (!/private/i.test(text)) return { text, redactions: 0 }
  let output = ""
  let cursor = 0
  let depth = 0
  let redactions = 0
  let opened = false
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
    if (role === "close" && !opened) {
      // Nothing was opened yet in this text: the block began elsewhere, so everything so far is private.
      output = PRIVATE_MARKER
      cursor = end
      redactions = 1
      continue
    }
    output += text.slice(cursor, tag.index)
    if (role === "open") {
      depth = 1
      opened = true
    } else cursor = end // a stray closing tag after a closed block, or an empty <private/>, is just dropped
  }
  // Still inside a block at the end: whatever follows the opening tag stays private.
  if (depth > 0) return { text: output + PRIVATE_MARKER, redactions: redactions + 1 }
  return { text: output + text.slice(cursor), redactions }
}

function tagRole(tag: RegExpExecArray): "open" | "close" | "empty" {
  if (tag.groups?.["closing"] !== undefined) return "close"
  return tag[0].endsWith("/>") ? "empty" : "open"
}
