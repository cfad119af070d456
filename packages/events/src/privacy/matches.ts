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

/**
 * A pattern's source read a token at a time: a class (`[\w-]`, read whole, so nothing inside it is taken for a count),
 * an escape (`\w`, `\x2b`, `\u00e9`) or any other character, then the count after it if it has a minimum and no
 * maximum (`{20,}`, lazy or not).
 */
const TOKEN = /(\[(?:\\.|[^\]\\])*\]|\\x[\da-fA-F]{2}|\\u[\da-fA-F]{4}|\\[^]|[^])(?:\{(\d+),\}(\??))?/g

/**
 * A pattern's source with each count that has a minimum of 4 or more and no maximum, after one character (`X{20,}`),
 * written as that many, then any more (`X{20}X*`): the same matches, but V8 runs the first as a counted loop, an entry
 * on its backtracking stack each time round, and a run of millions of such characters overflowed it (a catalogued
 * token of 12 MB). The second is a plain loop of one character, which costs it none. A group's count is left.
 */
export const withPlainLoops = (source: string): string =>
  source.replace(
    TOKEN,
    (token, atom: string, minimum: string | undefined, lazy: string) =>
      minimum === undefined || Number(minimum) < 4 || atom === ")" ? token : `${atom}{${minimum}}${atom}*${lazy}`
  )
