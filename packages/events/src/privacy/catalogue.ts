/**
 * Masks the secret formats of a public catalogue (gitleaks' rules, converted into catalogue/gitleaks.ts):
 * some 200 vendors' token shapes the filter's own rules do not name.
 *
 * Cost is what shapes this module: a hook pays for every regex it compiles and runs. So a rule is tried
 * only when the text holds one of its keywords (as gitleaks does), found with one pass of plain substring
 * searches over the lowercased text, and its regex is compiled the first time it is needed.
 */
import { GITLEAKS_GLOBAL, GITLEAKS_KEYWORDS, GITLEAKS_RULES, GITLEAKS_SOURCE } from "./catalogue/gitleaks.ts"
import type { CatalogueAllow, CatalogueData, CatalogueRule } from "./catalogue/types.ts"
import { shannonEntropy } from "./entropy.ts"
import { forEachMatch, withPlainLoops } from "./matches.ts"

const parsedRules: Array<CatalogueRule | undefined> = []
let parsedGlobal: CatalogueAllow | undefined

/** One rule, parsed on first use. */
const ruleAt = (
  index: number
): CatalogueRule => (parsedRules[index] ??= JSON.parse(GITLEAKS_RULES[index]!) as CatalogueRule)

const globalAllow = (): CatalogueAllow => (parsedGlobal ??= JSON.parse(GITLEAKS_GLOBAL) as CatalogueAllow)

/** The whole catalogue, every rule parsed (for tests and tools; the filter reads rules one by one). */
export const catalogue = (): CatalogueData => ({
  source: GITLEAKS_SOURCE,
  global: globalAllow(),
  rules: GITLEAKS_RULES.map((_, index) => ruleAt(index))
})

/**
 * A found secret: `[start, end)` in the text, and the rule that found it. Or, `unsearched`, where a search of that rule
 * the regex engine could not finish started: all from there is to be masked (matches.ts).
 */
export interface CatalogueMatch {
  readonly start: number
  readonly end: number
  readonly id: string
  readonly unsearched?: true
}

interface CompiledAllow {
  readonly target: CatalogueAllow["target"]
  readonly regexes: ReadonlyArray<RegExp>
  readonly stopwords: ReadonlyArray<string>
}

const compiledPatterns = new Map<CatalogueRule, RegExp>()
const compiledAllows = new Map<CatalogueAllow, CompiledAllow>()

const patternOf = (rule: CatalogueRule): RegExp => {
  let pattern = compiledPatterns.get(rule)
  if (pattern === undefined) {
    pattern = new RegExp(withPlainLoops(rule.regex), "gd")
    compiledPatterns.set(rule, pattern)
  }
  return pattern
}

const allowOf = (allow: CatalogueAllow): CompiledAllow => {
  let compiled = compiledAllows.get(allow)
  if (compiled === undefined) {
    const regexes = allow.regexes.map((source) => new RegExp(source))
    compiled = { target: allow.target, regexes, stopwords: allow.stopwords }
    compiledAllows.set(allow, compiled)
  }
  return compiled
}

/** The keywords, at the same index the rules each opens, and the shortest keyword's length: read on first use. */
let keywords: Keywords | undefined

interface Keywords {
  readonly words: ReadonlyArray<string>
  readonly rules: ReadonlyArray<ReadonlyArray<number>>
  readonly shortest: number
}

const readKeywords = (): Keywords => {
  const pairs = JSON.parse(GITLEAKS_KEYWORDS) as Array<[string, Array<number>]>
  const words = pairs.map(([word]) => word)
  return { words, rules: pairs.map(([, rules]) => rules), shortest: Math.min(...words.map((word) => word.length)) }
}

/**
 * The rules worth trying on `text`: those with a keyword in it (every converted rule has keywords). A
 * substring search per keyword runs in native code: a hook's short-lived process would interpret a
 * loop over the text's characters, at a hundred times the cost. The loop is a plain indexed one: a hook
 * runs it for every string of its payload, before any of it is optimised, and destructuring each pair
 * made it three times as slow.
 */
const candidates = (text: string): ReadonlyArray<CatalogueRule> => {
  const { words, rules, shortest } = (keywords ??= readKeywords())
  // Shorter than every keyword (an empty field): nothing to search.
  if (text.length < shortest) return []
  const lower = text.toLowerCase()
  let found: Set<number> | undefined
  for (let index = 0; index < words.length; index++) {
    if (lower.includes(words[index]!)) { for (const rule of rules[index]!) (found ??= new Set()).add(rule) }
  }
  // In catalogue order, so a text's matches do not depend on where its keywords are.
  return found === undefined ? [] : [...found].sort((a, b) => a - b).map(ruleAt)
}

const lineAround = (text: string, start: number, end: number): string => {
  const from = text.lastIndexOf("\n", start - 1) + 1
  const to = text.indexOf("\n", end)
  return text.slice(from, to === -1 ? text.length : to)
}

/** True when an allowlist says this match is not a secret (an example key, a placeholder, a known word). */
const allowed = (allows: ReadonlyArray<CatalogueAllow>, secret: string, match: string, line: () => string): boolean =>
  allows.some((raw) => {
    const allow = allowOf(raw)
    if (allow.stopwords.length > 0) {
      const lower = secret.toLowerCase()
      if (allow.stopwords.some((word) => lower.includes(word))) return true
    }
    const target = allow.target === "secret" ? secret : allow.target === "match" ? match : line()
    return allow.regexes.some((regex) => regex.test(target))
  })

/** Where the secret is in a match: the rule's group, else the first group that matched, else all of it. */
const secretSpan = (rule: CatalogueRule, match: RegExpExecArray): readonly [number, number] | undefined => {
  const indices = match.indices!
  if (rule.secretGroup !== undefined) return indices[rule.secretGroup]
  for (let group = 1; group < indices.length; group++) if (indices[group] !== undefined) return indices[group]
  return indices[0]
}

/** Every secret the catalogue finds in `text`, as spans (possibly overlapping, in no particular order). */
export function catalogueMatches(text: string): ReadonlyArray<CatalogueMatch> {
  const found: Array<CatalogueMatch> = []
  for (const rule of candidates(text)) {
    const unsearched = forEachMatch(text, patternOf(rule), (match) => {
      const span = secretSpan(rule, match)
      if (span === undefined || span[1] <= span[0]) return
      const secret = text.slice(span[0], span[1])
      if (rule.entropy !== undefined && shannonEntropy(secret) < rule.entropy) return
      const line = () => lineAround(text, match.index, match.index + match[0].length)
      if (allowed([globalAllow(), ...(rule.allow ?? [])], secret, match[0], line)) return
      found.push({ start: span[0], end: span[1], id: rule.id })
    })
    if (unsearched !== -1) found.push({ start: unsearched, end: text.length, id: rule.id, unsearched: true })
  }
  return found
}

/** How many rules the catalogue holds, and where it comes from (for status and the README). */
export const catalogueSource = (): { readonly source: string; readonly rules: number } => ({
  source: GITLEAKS_SOURCE,
  rules: GITLEAKS_RULES.length
})
