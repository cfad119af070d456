/**
 * The privacy filter's searches, and what it does when V8's regex engine cannot finish one. A loop of alternatives
 * (`(?:[^"\\]|\\.)+`), or a count with a long minimum (`[\w-]{20,}`), costs the engine's backtracking stack an entry
 * each time round, and run over one value of millions of characters it fills the stack's 64 MB: the search throws a
 * RangeError ("Maximum call stack size exceeded"). Thrown on, it failed the write that called the filter (a loop's
 * snapshot of a large file). What the pattern would have found past where that search started cannot be known, so the
 * caller masks all of it: a secret is never stored because a rule could not read it.
 */

/**
 * Calls `found` with each match of a global pattern in `text`, in order, searched on the pattern itself (matchAll
 * clones it on every call). Returns -1 once every match was found, or where the search that could not finish started.
 */
export function forEachMatch(text: string, pattern: RegExp, found: (match: RegExpExecArray) => void): number {
  let searched = 0
  pattern.lastIndex = 0
  try {
    for (let match = pattern.exec(text); match !== null; searched = pattern.lastIndex, match = pattern.exec(text)) {
      if (match[0] === "") pattern.lastIndex++ // an empty match would loop forever; no pattern should produce one
      else found(match)
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    pattern.lastIndex = 0
    return searched
  }
  return -1
}
