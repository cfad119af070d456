/**
 * Removes `<private>...</private>` blocks, failing safe both ways: an unclosed block hides everything
 * after it, and a closing tag with no opening one hides what precedes it (the block was opened where this
 * text cannot show it: in another field, as stdout opens it and stderr closes it, or in the middle of a
 * long text cut before scanning).
 */
import { CUT_MARKER_END } from "./bound.ts"
import { forEachMatch } from "./matches.ts"

export const PRIVATE_MARKER = "[private]"

/**
 * An opening, closing or self-closing `<private>` tag, forgiving about case, any whitespace and
 * attributes of any length (`<private data="x">`, `<   /  private >`). A quoted attribute value may hold
 * `>` or `/>` (`<private note="a/>b">` opens a block). Linear: each run of whitespace follows one `<`, and
 * an attribute scan stops at the next `<` or `>` outside quotes (or at the end of a quote), where the
 * next try starts.
 *
 * The same tags escaped: as JSON writes `<` and `>` when Go encodes it (`\u003cprivate reason=\"x\"\u003e`: gh,
 * kubectl, docker print bodies so, quotes escaped and whitespace perhaps as `\n`) and as HTML and XML write them
 * (`&lt;private class="a"&gt;`, quotes perhaps as `&quot;`). The user's block is no less private for being printed by
 * a tool that escapes it. Their attributes are read as the plain tag's are: a scan stops at the next `<` or `>`,
 * escaped or not, outside quotes of any of these kinds.
 *
 * Each loop goes round once for each quoted value or escape, the plain characters between them read as one run: a loop
 * that went round once a character cost V8's regex engine a backtracking stack entry each time, and 12 MB of a tag's
 * attributes overflowed it (matches.ts).
 */
const ESCAPED_BLANKS = String.raw`\s*(?:\\[nrt]\s*)*`
const ESCAPED_ATTRIBUTES = String.raw`[^<>"'\\&]*(?:(?:\\(?!u003[ce]|")|&(?!lt;|gt;|quot;)|"[^"]*"|'[^']*'`
  + String.raw`|\\"[^"\\]*(?:\\(?!")[^"\\]*)*\\"|&quot;[^&]*(?:&(?!quot;)[^&]*)*&quot;)[^<>"'\\&]*)*`
const PRIVATE_TAG = new RegExp(
  String.raw`<\s*(?<closing>\/\s*)?private(?=[\s/>])[^<>"']*(?:(?:"[^"]*"|'[^']*')[^<>"']*)*>`
    + String.raw`|(?:\\u003c|&lt;)${ESCAPED_BLANKS}(?<escapedClosing>\/${ESCAPED_BLANKS})?private`
    + String.raw`(?=\s|\\[nrt]|\/|\\u003e|&gt;)${ESCAPED_ATTRIBUTES}(?:\\u003e|&gt;)`,
  "gi"
)

export interface StrippedText {
  readonly text: string
  /** How many private blocks were replaced by the marker. */
  readonly redactions: number
}

/**
 * Replaces each outermost private block (tags and content) by `[private]`. Nested blocks go with
 * their outermost block; a self-closing `<private/>` is just dropped. A closing tag with no opening one
 * ends a block whose opening this text does not show: see `strayBlockStart`.
 */
export function stripPrivateBlocks(text: string): StrippedText {
  if (!/private/i.test(text)) return { text, redactions: 0 }
  // What precedes the last block's marker, and the text shown since (a stray close may still take it back).
  let output = ""
  let shown = ""
  let cursor = 0
  let depth = 0
  let redactions = 0
  const unsearched = forEachMatch(text, PRIVATE_TAG, (tag) => {
    const role = tagRole(tag)
    const end = tag.index + tag[0].length
    if (depth > 0) {
      if (role === "open") depth++
      else if (role === "close" && --depth === 0) {
        output += shown + PRIVATE_MARKER
        shown = ""
        cursor = end
        redactions++
      }
      return
    }
    shown += text.slice(cursor, tag.index)
    cursor = end
    if (role === "open") depth = 1
    else if (role === "close") {
      // A close we see means an open we did not: what precedes it, back to where that open can be, is private.
      output += keptBeforeStrayBlock(shown, redactions > 0) + PRIVATE_MARKER
      shown = ""
      redactions++
    } // an empty <private/> is just dropped
  })
  // A tag the search could not finish reading (matches.ts) is taken for an opening one: what follows stays private.
  if (unsearched !== -1 && depth === 0) {
    shown += text.slice(cursor, unsearched)
    depth = 1
  }
  // Still inside a block at the end: whatever follows the opening tag stays private.
  if (depth > 0) return { text: output + shown + PRIVATE_MARKER, redactions: redactions + 1 }
  return { text: output + shown + text.slice(cursor), redactions }
}

/**
 * What stays of the text shown since the last block when a stray closing tag ends it. Before any block,
 * nothing: the block may have been opened in another field. After a block, its opening tag lies between
 * that block and the close (this text would have shown it, but for a tag too malformed to read), or in the
 * middle cut out of a long text: then what precedes the cut stays, and the kept tail after it goes.
 */
function keptBeforeStrayBlock(shown: string, afterBlock: boolean): string {
  const cut = afterBlock ? shown.lastIndexOf(CUT_MARKER_END) : -1
  return cut < 0 ? "" : shown.slice(0, cut + CUT_MARKER_END.length)
}

function tagRole(tag: RegExpExecArray): "open" | "close" | "empty" {
  if (tag.groups?.["closing"] !== undefined || tag.groups?.["escapedClosing"] !== undefined) return "close"
  const text = tag[0]
  if (text.startsWith("<")) return text.endsWith("/>") ? "empty" : "open"
  return escapedSelfClosing(text) ? "empty" : "open"
}

/**
 * Whether an escaped tag closes itself: a `/` before its closing bracket (`\u003e` or `&gt;`), blanks between them,
 * plain or escaped (`\n`). Read back from the end, not by a regex anchored at it, which would be tried from every
 * blank of a long run.
 */
function escapedSelfClosing(tag: string): boolean {
  let end = tag.length - (tag.endsWith(";") ? "&gt;".length : "\\u003e".length)
  for (;;) {
    if (end > 0 && /\s/.test(tag[end - 1]!)) end--
    else if (end > 1 && tag[end - 2] === "\\" && "nrtNRT".includes(tag[end - 1]!)) end -= 2
    else return tag[end - 1] === "/"
  }
}
