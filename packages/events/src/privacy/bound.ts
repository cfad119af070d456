/**
 * Bounds the text a hook scans for secrets, whatever the payload's size. A hook stores at most the head
 * and the tail of a tool's output, a prompt or a reply (their size limits), so each long string keeps
 * its first and last SCAN_EDGE characters around a cut, and once SCAN_BUDGET characters have been kept
 * the nested strings, items and fields met after them are cut (one marker for the rest of each
 * list); a nested list or object counts as its two brackets. What a hook stores then lies inside what
 * was scanned in full, and a 60 MB tool response costs the filter what a 200 KB one does.
 */

/** Characters kept at each end of a long string: more than any stored head or tail needs. */
export const SCAN_EDGE = 100_000

/** Characters of a payload's strings scanned in all; top-level fields (ids, paths) are always kept. */
export const SCAN_BUDGET = 500_000

/** How the marker that replaces a long string's middle ends: what follows it is the string's kept tail. */
export const CUT_MARKER_END = " characters cut before scanning] …\n"

const cutMarker = (characters: number): string => `\n… [${characters}${CUT_MARKER_END}`

type Container = Record<string, unknown>

/** Defines rather than assigns, so a `__proto__` key from JSON.parse stays a plain property. */
const setOwn = (target: Container, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A copy of a JSON value (as JSON.parse makes it) with its strings bounded as the file's comment says. */
export function boundForScan(value: unknown): unknown {
  let kept = 0
  const bound = (text: string, depth: number): string => {
    if (depth > 1 && kept >= SCAN_BUDGET) return text.length === 0 ? text : cutMarker(text.length)
    const bounded = text.length <= 2 * SCAN_EDGE
      ? text
      : text.slice(0, SCAN_EDGE) + cutMarker(text.length - 2 * SCAN_EDGE) + text.slice(text.length - SCAN_EDGE)
    kept += bounded.length
    return bounded
  }
  if (typeof value === "string") return bound(value, 0)
  if (typeof value !== "object" || value === null) return value
  const root: Container = Array.isArray(value) ? [] as unknown as Container : {}
  // A work list, not recursion: payloads may nest deeper than the call stack allows. A container's own
  // strings are bounded before its children's; whatever the order, every string kept is scanned.
  const pending: Array<{ readonly source: Container; readonly copy: Container; readonly depth: number }> = [
    { source: value as Container, copy: root, depth: 1 }
  ]
  for (let work = pending.pop(); work !== undefined; work = pending.pop()) {
    const { source, copy, depth } = work
    const children: Array<{ readonly source: Container; readonly copy: Container; readonly depth: number }> = []
    const isArray = Array.isArray(source)
    // An array's indices are not listed (Object.keys of a million items makes a million strings).
    const keys = isArray ? undefined : Object.keys(source)
    const length = keys?.length ?? (source as unknown as Array<unknown>).length
    for (let index = 0; index < length; index++) {
      const key = keys?.[index] ?? String(index)
      if (depth > 1 && kept >= SCAN_BUDGET) {
        // The rest of a long list goes in one marker: a million small strings cost what a few do.
        const marker = `… [${length - index} more ${isArray ? "items" : "fields"} cut before scanning] …`
        setOwn(copy, isArray ? key : "…", marker)
        break
      }
      const child = source[key]
      let copied: unknown = child
      if (typeof child === "string") copied = bound(child, depth)
      else if (typeof child === "object" && child !== null) {
        // A list or object costs its two brackets: ten million empty ones (or one list nested ten million deep)
        // hold no string, and copied whole they took a hook past its timeout and gigabytes of memory.
        kept += 2
        copied = Array.isArray(child) ? [] : {}
        children.push({ source: child as Container, copy: copied as Container, depth: depth + 1 })
      }
      setOwn(copy, key, copied)
    }
    // Reversed onto the stack, so the first child is visited next.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!)
  }
  return root
}
