/**
 * The one privacy filter every write path calls before building an event: prompts, tool inputs and
 * outputs, assistant messages, summaries, notes, loop reasons. It removes `<private>` blocks and
 * masks secrets, in strings (`redactText`) and in any JSON-like value (`redactValue`).
 */
import { type CatalogueMatch, catalogueMatches } from "./catalogue.ts"
import { maskEnvEntries } from "./env-entries.ts"
import { maskKubernetesSecrets } from "./kubernetes.ts"
import { forEachMatch } from "./matches.ts"
import { stripPrivateBlocks } from "./private-tags.ts"
import { AUTH_SCHEMES, holdsAuthScheme, SECRET_RULES, type SecretRule, SENSITIVE_NAME } from "./secret-rules.ts"
import { maskSecretStores } from "./secret-stores.ts"

export interface RedactedText {
  readonly text: string
  /** Private blocks removed plus secrets masked; 0 means the text came back unchanged. */
  readonly redactions: number
}

export interface RedactedValue {
  readonly value: unknown
  readonly redactions: number
}

const SECRET_MARKER_PREFIX = "[secret:"

/** The text that replaces a masked secret, naming its kind so the context stays readable. */
export const secretMarker = (kind: string): string => `${SECRET_MARKER_PREFIX}${kind}]`

/**
 * Removes `<private>` blocks first (they may hide secrets in any shape), then masks secrets in what is
 * left: the filter's own rules (shapes, and values next to secret-like names), env entries read whole
 * (env-entries.ts), then the formats of the public catalogue (catalogue.ts) that the own rules did not already mask.
 */
export function redactText(text: string): RedactedText {
  const stripped = stripPrivateBlocks(text)
  // Before the rules: a Secret's values are masked by where they are, whatever their key (kubernetes.ts).
  const kubernetes = maskKubernetesSecrets(stripped.text)
  // So are a secret manager's: the value of a field named `value` or `SecretString` (secret-stores.ts).
  const stores = maskSecretStores(kubernetes.text)
  let current = stores.text
  let redactions = stripped.redactions + kubernetes.redactions + stores.redactions
  for (const rule of SECRET_RULES) {
    const masked = applyRule(current, rule)
    current = masked.text
    redactions += masked.redactions
  }
  // After the rules: an env entry read whole, its value wherever it stands from its name (env-entries.ts), keeping
  // the more precise kind a rule gave a value it masked whole.
  const entries = maskEnvEntries(current)
  const catalogued = maskCatalogued(entries.text)
  return { text: catalogued.text, redactions: redactions + entries.redactions + catalogued.redactions }
}

/**
 * Masks the catalogue's matches, merging overlapping ones; a match touching a marker already written is left. All from
 * where a rule's search could not finish is masked, markers included (matches.ts).
 */
function maskCatalogued(text: string): RedactedText {
  const found = catalogueMatches(text)
  if (found.length === 0) return { text, redactions: 0 }
  const cut = found.reduce<CatalogueMatch | undefined>(
    (first, match) => match.unsearched === true && match.start < (first?.start ?? Infinity) ? match : first,
    undefined
  )
  const end = cut?.start ?? text.length
  const matches = found.filter((match) => match.unsearched !== true && match.start < end)
    .sort((a, b) => a.start - b.start || b.end - a.end)
  let output = ""
  let cursor = 0
  let redactions = 0
  for (const match of matches) {
    if (match.start < cursor) continue
    const secret = text.slice(match.start, Math.min(match.end, end))
    if (secret.includes(SECRET_MARKER_PREFIX) || secret.includes("[private]")) continue
    output += text.slice(cursor, match.start) + secretMarker(match.id)
    cursor = Math.min(match.end, end)
    redactions++
  }
  if (cut !== undefined) {
    return { text: output + text.slice(cursor, end) + secretMarker(cut.id), redactions: redactions + 1 }
  }
  return { text: output + text.slice(cursor), redactions }
}

/** Masks a rule's matches; all a search that could not finish had yet to search too (matches.ts). */
function applyRule(text: string, rule: SecretRule): RedactedText {
  if (!rule.hint.test(text)) return { text, redactions: 0 }
  let output = ""
  let cursor = 0
  let redactions = 0
  const unsearched = forEachMatch(text, rule.pattern, (match) => {
    const keep = match.groups?.["keep"] ?? ""
    // An earlier rule already masked this value (GITHUB_TOKEN=[secret:github-token]): keep its more precise kind.
    if (match[0].startsWith(SECRET_MARKER_PREFIX, keep.length)) return
    // A setting named `auth` that holds a scheme (`<auth>basic</auth>`), not a credential.
    if (rule.kind === "credential" && holdsAuthScheme(keep, match[0].slice(keep.length))) return
    const value = match[0].length - keep.length
    const secret = rule.secretLength === undefined ? value : rule.secretLength(match[0].slice(keep.length))
    if (secret === 0) return
    output += text.slice(cursor, match.index) + keep + secretMarker(rule.kind)
    cursor = match.index + keep.length + secret
    redactions++
  })
  if (unsearched !== -1) {
    return { text: output + text.slice(cursor, unsearched) + secretMarker(rule.kind), redactions: redactions + 1 }
  }
  return redactions === 0 ? { text, redactions } : { text: output + text.slice(cursor), redactions }
}

/**
 * Keys whose whole value is a credential, whatever its shape: `password`, `apiKey`, `client_secret`,
 * `Authorization`.
 */
let sensitiveKey: RegExp | undefined

/**
 * How every sensitive key ends (case-insensitively): checked first, since compiling the regex costs a
 * hook process 0.15 ms and nearly no key of a payload (`session_id`, `command`) ends like this.
 */
const SENSITIVE_ENDINGS = [
  "pass",
  "passwd",
  "password",
  "passphrase",
  "pw",
  "pwd",
  "secret",
  "secrets",
  "token",
  "key",
  "auth",
  "ident",
  "credential",
  "credentials",
  "cookie",
  "authorization",
  // How the Korean names end (호: 비밀번호, 암호; 번: 비번; 드: 패스워드; 큰: 토큰; 키; 릿: 시크릿), built so the bundle
  // stays ASCII.
  ...[0xd638, 0xbc88, 0xb4dc, 0xd070, 0xd0a4, 0xb9bf].map((code) => String.fromCharCode(code))
]

/**
 * A value under a credential's name that is not one, as the text rules read it too (secret-rules.ts): `PWD` holding
 * an absolute path, the shell's working directory (`{ "PWD": "/home/alice" }` as `process.env` or `docker inspect`
 * prints it), and a name ending in `auth` holding a scheme (`{ "auth": "basic" }`).
 */
const holdsNoSecret = (key: string, value: unknown): boolean =>
  typeof value === "string"
  && ((value.startsWith("/") && /^pwd$/i.test(key))
    || (/auth$/i.test(key) && AUTH_SCHEMES.includes(value.toLowerCase())))

export const isSensitiveKey = (key: string): boolean => {
  const end = key.slice(-64)
  const lower = end.toLowerCase()
  if (!SENSITIVE_ENDINGS.some((ending) => lower.endsWith(ending))) return false
  return (sensitiveKey ??= new RegExp(String.raw`(?:${SENSITIVE_NAME}|authorization)$`, "i")).test(end)
}

type Container = Record<string, unknown>

/**
 * Returns a redacted copy of any JSON-like value: every string is passed through `redactText`, and
 * the value under a sensitive key (or the `value` of a `{ name: "DB_PASSWORD", value }` entry) is
 * masked whole. Keys are kept. Plain objects and arrays are copied; other objects (Date, class
 * instances) are passed through as they are. The input is never mutated; nesting depth is
 * unlimited (an explicit work list, no recursion) and shared or cyclic references are preserved.
 */
export function redactValue(value: unknown): RedactedValue {
  let redactions = 0
  const copies = new WeakMap<object, Container>()
  const pending: Array<{ readonly source: Container; readonly copy: Container }> = []

  const redactChild = (child: unknown): unknown => {
    if (typeof child === "string") {
      const redacted = redactText(child)
      redactions += redacted.redactions
      return redacted.text
    }
    if (!isContainer(child)) return child
    const existing = copies.get(child)
    if (existing !== undefined) return existing
    const copy: Container = Array.isArray(child) ? (new Array(child.length) as unknown as Container) : {}
    copies.set(child, copy)
    pending.push({ source: child, copy })
    return copy
  }
  const maskWhole = (child: unknown): unknown => {
    if (child === null || child === undefined || typeof child === "boolean" || child === "") return child
    redactions++
    return secretMarker("credential")
  }

  const root = redactChild(value)
  for (let work = pending.pop(); work !== undefined; work = pending.pop()) {
    const { source, copy } = work
    const masksValueEntry = holdsSensitiveEntry(source)
    for (const key of Object.keys(source)) {
      const child = source[key]
      const sensitive = (isSensitiveKey(key) && !holdsNoSecret(key, child))
        || (masksValueEntry && /^value$/i.test(key))
      setOwn(copy, key, sensitive ? maskWhole(child) : redactChild(child))
    }
  }
  return { value: root, redactions }
}

function isContainer(value: unknown): value is Container {
  if (Array.isArray(value)) return true
  if (typeof value !== "object" || value === null) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** `{ name: "DB_PASSWORD", value: "x" }`: environment entries as Kubernetes, Docker and AWS print them. */
function holdsSensitiveEntry(source: Container): boolean {
  const name = source["name"] ?? source["Name"] ?? source["key"] ?? source["Key"]
  return typeof name === "string" && isSensitiveKey(name)
    && !holdsNoSecret(name, source["value"] ?? source["Value"])
}

/** Defines rather than assigns, so a `__proto__` key from JSON.parse stays a plain property. */
function setOwn(target: Container, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Every string inside `value` through `redactText`, keys and shape kept. This is what the event log
 * applies to every event it appends: no write path can forget the filter. It is key-aware as hook
 * payloads are, within what an event's schema allows (a masked value stays a string):
 * - an entry naming a credential has its value masked (`{ key: "db-password", value: "x" }`: a belief),
 * - a string under a credential-like field name is masked whole,
 * - in an argv array, the word after a credential flag (`["mysql", "--password", "x"]`) and mysql's
 *   glued `-px` are masked (a criteria command).
 */
export const redactStrings = <A>(value: A): A => {
  if (typeof value === "string") return redactText(wellFormed(value)).text as A
  if (Array.isArray(value)) {
    const argv = value.every((item) => typeof item === "string") ? maskArgv(value as Array<string>) : value
    return argv.map(redactStrings) as A
  }
  if (typeof value === "object" && value !== null) {
    const masksValueEntry = holdsSensitiveEntry(value as Container)
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => {
        const sensitive = (isSensitiveKey(key) && !holdsNoSecret(key, inner))
          || (masksValueEntry && /^value$/i.test(key))
        const masked = sensitive && typeof inner === "string" && inner !== ""
        return [key, masked ? secretMarker("credential") : redactStrings(inner)]
      })
    ) as A
  }
  return value
}

/** A flag naming a credential, whose value is the next word: `--password`, `--api-key`, `-token`. */
const isCredentialFlag = (word: string): boolean => /^--?[\w.-]+$/.test(word) && isSensitiveKey(word)

/** mysql, mysqldump, mariadb...: the programs that take a password glued to `-p`. */
const takesGluedPassword = (program: string): boolean =>
  /^(?:mysql|mariadb)[\w-]*$/.test(program.split("/").pop() ?? "")

/** Masks the words of an argv that are credentials by position; other words are left to `redactText`. */
function maskArgv(argv: ReadonlyArray<string>): ReadonlyArray<string> {
  const glued = argv.length > 0 && takesGluedPassword(argv[0]!)
  return argv.map((word, index) => {
    if (index > 0 && isCredentialFlag(argv[index - 1]!) && word !== "") return secretMarker("credential")
    if (glued && index > 0 && /^-p./.test(word)) return `-p${secretMarker("credential")}`
    return word
  })
}

/**
 * Lone UTF-16 surrogates replaced by U+FFFD, as SQLite stores them anyway: a string then reads back
 * exactly as it was written (an id compared after a round trip still matches).
 */
export const wellFormed = (text: string): string =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
