/**
 * Masks the secret formats of a public catalogue (gitleaks' rules, converted into catalogue/gitleaks.ts):
 * some 200 vendors' token shapes the filter's own rules do not name.
 *
 * Cost is what shapes this module: a hook pays for every regex it compiles and runs. So a rule is tried
 * only when the text holds one of its keywords (as gitleaks does), found with one pass of plain substring
 * searches over the lowercased text, and its regex is compiled the first time it is needed.
 */
import { GITLEAKS_JSON } from "./catalogue/gitleaks.ts"
import type { CatalogueAllow, CatalogueData, CatalogueRule } from "./catalogue/types.ts"
import { shannonEntropy } from "./entropy.ts"

/** A found secret: `[start, end)` in the text, and the rule that found it. */
export interface CatalogueMatch {
  readonly start: number
  readonly end: number
  readonly id: string
}

interface CompiledAllow {
  readonly target: CatalogueAllow["target"]
  readonly regexes: ReadonlyArray<RegExp>
  readonly stopwords: ReadonlyArray<string>
}

let data: CatalogueData | undefined

/** The catalogue, parsed on first use. */
export const catalogue = (): CatalogueData => (data ??= JSON.parse(GITLEAKS_JSON) as CatalogueData)

const compiledPatterns = new Map<CatalogueRule, RegExp>()
const compiledAllows = new Map<CatalogueAllow, CompiledAllow>()

const patternOf = (rule: CatalogueRule): RegExp => {
  let pattern = compiledPatterns.get(rule)
  if (pattern === undefined) {
    pattern = new RegExp(rule.regex, "gd")
    compiledPatterns.set(rule, pattern)
  }
  return pattern
}

const allowOf = (allow: CatalogueAllow): CompiledAllow => {
  let compiled = compiledAllows.get(allow)
  if (compiled === undefined) {
    compiled = { target: allow.target, regexes: allow.regexes.map((source) => new RegExp(source)), stopwords: allow.stopwords }
    compiledAllows.set(allow, compiled)
  }
  return compiled
}

/** A pair of ASCII characters as a small integer (14 bits); -1 when either is not ASCII. */
const pairAt = (text: string, at: number): number => {
  const first = text.charCodeAt(at)
  const second = text.charCodeAt(at + 1)
  return first < 128 && second < 128 ? (first << 7) | second : -1
}

interface KeywordIndex {
  /** For each pair of characters a keyword starts with: the keywords, each with the rules it opens. */
  readonly byPair: ReadonlyArray<ReadonlyArray<readonly [string, ReadonlyArray<CatalogueRule>]> | undefined>
  readonly always: ReadonlyArray<CatalogueRule>
}

let index: KeywordIndex | undefined

const keywordIndex = (): KeywordIndex => {
  if (index !== undefined) return index
  const rulesOf = new Map<string, Array<CatalogueRule>>()
  for (const rule of catalogue().rules) {
    for (const keyword of rule.keywords) {
      if (keyword.length < 2 || pairAt(keyword, 0) === -1) throw new Error(`catalogue keyword ${JSON.stringify(keyword)} must start with two ASCII characters`)
      rulesOf.set(keyword, [...(rulesOf.get(keyword) ?? []), rule])
    }
  }
  const byPair: Array<Array<readonly [string, ReadonlyArray<CatalogueRule>]> | undefined> = new Array(1 << 14)
  for (const [keyword, rules] of rulesOf) (byPair[pairAt(keyword, 0)] ??= []).push([keyword, rules])
  index = { byPair, always: catalogue().rules.filter((rule) => rule.keywords.length === 0) }
  return index
}

/**
 * The rules worth trying on `text`: those with a keyword in it, found in one pass over the lowercased
 * text (an array lookup for each pair of characters), so a short string costs a few dozen lookups rather
 * than a substring search per keyword.
 */
const candidates = (text: string): ReadonlyArray<CatalogueRule> => {
  const { byPair, always } = keywordIndex()
  const lower = text.toLowerCase()
  let found: Set<CatalogueRule> | undefined
  for (let at = 0; at + 1 < lower.length; at++) {
    const pair = pairAt(lower, at)
    const keywords = pair === -1 ? undefined : byPair[pair]
    if (keywords === undefined) continue
    for (const [keyword, rules] of keywords) {
      if (lower.startsWith(keyword, at)) for (const rule of rules) (found ??= new Set(always)).add(rule)
    }
  }
  if (found === undefined) return always
  // In catalogue order, so a text's matches do not depend on where its keywords are.
  return catalogue().rules.filter((rule) => found.has(rule))
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
    const pattern = patternOf(rule)
    pattern.lastIndex = 0
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (match[0] === "") {
        pattern.lastIndex++
        continue
      }
      const span = secretSpan(rule, match)
      if (span === undefined || span[1] <= span[0]) continue
      const secret = text.slice(span[0], span[1])
      if (rule.entropy !== undefined && shannonEntropy(secret) < rule.entropy) continue
      const line = () => lineAround(text, match.index, match.index + match[0].length)
      if (allowed([catalogue().global, ...(rule.allow ?? [])], secret, match[0], line)) continue
      found.push({ start: span[0], end: span[1], id: rule.id })
    }
  }
  return found
}

/** How many rules the catalogue holds, and where it comes from (for status and the README). */
export const catalogueSource = (): { readonly source: string; readonly rules: number } => ({
  source: catalogue().source,
  rules: catalogue().rules.length
})
