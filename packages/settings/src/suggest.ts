/** "Did you mean" for misspelt keys: plain Levenshtein distance, close enough to catch typos only. */

const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/** The candidate nearest to `name`, if it is near enough to be a typo of it (a third of its length, at least 2). */
const closestName = (name: string, candidates: Iterable<string>): string | undefined => {
  const allowed = Math.max(2, Math.floor(name.length / 3))
  let best: { readonly name: string; readonly distance: number } | undefined
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate)
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name: candidate, distance }
  }
  return best?.name
}

/** A key as problems name it: a plain word as written, anything else (a file's text) by its length only. */
const plainKey = /^[A-Za-z0-9_.[\]-]{1,80}$/

export const unknownKeyProblem = (key: string, name: string, siblings: Iterable<string>): string => {
  if (!plainKey.test(key)) {
    // `key` is `<section>.<name>`, and only known sections are entered, so the section is safe to name.
    const section = key.slice(0, Math.max(0, key.length - name.length - 1))
    return `${section === "" ? "" : `${section}: `}an unknown key of ${[...name].length} characters, not a plain name`
  }
  const suggestion = closestName(name, siblings)
  return suggestion === undefined ? `unknown key ${key}` : `unknown key ${key}; did you mean ${suggestion}?`
}
