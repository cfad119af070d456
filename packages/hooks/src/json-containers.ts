/**
 * How many lists and objects a payload's JSON holds, counted before JSON.parse builds them all at once (a hundred bytes
 * and more each): the most a 64 MiB payload can hold, thirty million `[]`, took a hook 3 GB, past the heap Node gives
 * itself on an 8 GB machine, where the process dies with nothing recorded. A payload holding more than
 * `MAX_JSON_CONTAINERS` is refused instead, and the refusal recorded like any malformed input.
 */

/** Well past any tool's answer (a million rows of objects is one million), well within an 8 GB machine's heap. */
export const MAX_JSON_CONTAINERS = 12_000_000

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const OPEN_BRACE = 0x7b

/**
 * Whether `text` opens more than `limit` lists and objects outside its strings. A text too short to hold that many
 * (each takes two characters) is not read. Strings are skipped from quote to closing quote, whatever they hold.
 */
export const holdsMoreContainers = (text: string, limit = MAX_JSON_CONTAINERS): boolean => {
  if (text.length <= 2 * limit) return false
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      // The closing quote is the next one after an even run of backslashes (`"a\"b\\"` ends at its last quote).
      for (;;) {
        const close = text.indexOf("\"", i + 1)
        // Unterminated: not JSON, which JSON.parse says without building anything.
        if (close === -1) return false
        let backslashes = 0
        while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++
        i = close
        if (backslashes % 2 === 0) break
      }
    } else if ((code === OPEN_BRACKET || code === OPEN_BRACE) && ++count > limit) {
      return true
    }
  }
  return false
}
