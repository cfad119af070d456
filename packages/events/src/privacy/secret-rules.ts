/**
 * The secret shapes the privacy filter masks, as one ordered table of data.
 *
 * Order matters: exact token shapes run before the generic "name = value" forms, so a labelled
 * GitHub token is reported as `github-token`, and a later rule never re-masks an earlier marker.
 *
 * Every pattern must stay linear-time on hostile input: each scan that can fail is bounded
 * (`{0,40}`) or stops at a character it cannot consume, and alternatives inside loops are disjoint.
 */

export interface SecretRule {
  /** Named in the marker, e.g. `[secret:github-token]`. */
  readonly kind: string
  /** Global regex. The whole match is masked, except an optional leading `keep` group (a label, a URL's user). */
  readonly pattern: RegExp
  /**
   * A cheap test that every match of `pattern` passes (a literal it must contain). Text without it skips
   * the rule: most text holds no secret, and a hook process pays for every regex it compiles and runs.
   */
  readonly hint: Hint
}

/** A RegExp, or a plain substring search. */
export interface Hint {
  readonly test: (text: string) => boolean
}

/**
 * Holds one of these strings. Compiling a regex, even a literal one, costs a hook process about 25 µs
 * the first time; most rules' hints are plain strings, tested here without one.
 */
const contains = (...literals: ReadonlyArray<string>): Hint => ({
  test: (text) => literals.some((literal) => text.includes(literal))
})

/**
 * Names whose value is a credential. A name must END with one (`DB_PASSWORD`, `clientSecret`,
 * `x-api-key`), so `token_count`, `max_tokens` or `password_hash` are left alone.
 * `pass` and `auth` only count as whole words (`DB_PASS`, `_auth`), not inside `bypass` or `oauth`.
 */
export const SENSITIVE_NAME = String.raw`(?:passw(?:or)?d|passphrase|(?<![a-z])pass|secrets?|token|api[_-]?key|private[_-]?key|secret[_-]?(?:access[_-]?)?key|(?<![a-z])auth|credentials?|cookie)`

/** The rest of an identifier before the sensitive suffix (`DB_`, `config.`, `x-`). Bounded: tried at every name start. */
const NAME_PREFIX = String.raw`[\w.-]{0,40}?`
const NAME_START = String.raw`(?<![\w.-])`

/** Values that name a type or an empty state rather than holding a secret (`password: string;`, `token = None`). */
const NOT_A_PLACEHOLDER = String.raw`(?!(?:true|false|null|nil|none|undefined|string|number|boolean|str|int|bool)(?![\w.-]))`

/**
 * A credential value, without its quotes so they stay as context. A quote that never closes on the
 * line masks the rest of the line (fail safe); a bare value runs to whitespace, a quote or `&`.
 */
const VALUE = NOT_A_PLACEHOLDER + String.raw`(?:(?<=\\")(?:[^"\\\r\n]|\\[^"\r\n])+(?=\\")|(?<=")(?:[^"\\\r\n]|\\.)+(?=")|(?<=')[^'\r\n]+(?=')|(?<=["'])[^\r\n]+|[^\s"'\x60&]+)`

/** An optional type annotation between a name and `=` (`password: string =`, `let token: &str =`). */
const TYPE_ANNOTATION = String.raw`(?:\??[ \t]*:[ \t]*[\w.<>\[\]|&, ]{1,60}?)?`

/** Every sensitive name contains one of these words (case-insensitively). */
const NAME_WORD = /pass|secret|token|key|auth|credential|cookie/gi

/** The letters a sensitive name may have after its word: `pass` + `phrase`, the longest. */
const NAME_TAIL = 6

const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
/** `[\w.-]` */
const isNameCharacter = (code: number): boolean =>
  isLetter(code) || (code >= 48 && code <= 57) || code === 95 || code === 45 || code === 46

/** Moves past at most `max` characters of `set`. */
const skip = (text: string, at: number, set: string, max = Infinity): number => {
  let i = at
  while (i < text.length && i - at < max && set.includes(text[i]!)) i++
  return i
}

/** `[\\"'\]]{0,3}\??[ \t]*[:=]`: a key or an assignment (`password=`, `"token":`, `API_KEY"] =`, `token?: string =`). */
const assignmentAt = (text: string, at: number): boolean => {
  let i = skip(text, at, `\\"']`, 3)
  if (text[i] === "?") i++
  i = skip(text, i, " \t")
  return text[i] === ":" || text[i] === "="
}

/** `=` or a blank, after a flag: a dash before the name, across name characters only (`--api-key=x`). */
const flagValueAt = (text: string, at: number): boolean => {
  if (text[at] !== "=" && text[at] !== " " && text[at] !== "\t") return false
  for (let i = at - 1; i >= 0 && at - i <= 64 && isNameCharacter(text.charCodeAt(i)); i--) if (text[i] === "-") return true
  return false
}

/** `[\\"']{0,2}[ \t,]*(?:\r?\n[ \t]*)?[\\"']{0,2}value`: a Kubernetes entry's value (`name: DB_PASSWORD\n  value: x`). */
const kubernetesValueAt = (text: string, at: number): boolean => {
  let i = skip(text, skip(text, at, `\\"'`, 2), " \t,")
  if (text[i] === "\r" && text[i + 1] === "\n") i += 2
  else if (text[i] === "\n") i++
  i = skip(text, skip(text, i, " \t"), `\\"'`, 2)
  return text.slice(i, i + 5).toLowerCase() === "value"
}

/**
 * What every match of a credential rule contains: a sensitive name, then what the rule requires right
 * after it. Names are common words in tool output (`PASS`, `key`, `token`), and each credential pattern
 * is large: compiling the six of them for every `PASS src/x.test.ts` cost a hook about 1.5 ms (and
 * a regex for this test itself 0.4 ms, so it is written out). For each sensitive word, at every point
 * where the name may end (the word, or up to NAME_TAIL more letters: `pass` + `word`), it looks for
 * - a key or an assignment (`password=`, `"token":`, `API_KEY"] =`, `token?: string =`),
 * - a CLI flag's value (`--api-key=x`), or
 * - a Kubernetes entry's value (`name: DB_PASSWORD` then `value: x`).
 * That is a necessary condition of each pattern below (tested in secret-rules.test.ts): it only skips
 * rules that cannot match. Every scan is bounded or stops at the first character it cannot take.
 */
const CREDENTIAL_HINT: Hint = {
  test: (text) => {
    NAME_WORD.lastIndex = 0
    for (let word = NAME_WORD.exec(text); word !== null; word = NAME_WORD.exec(text)) {
      const end = word.index + word[0].length
      for (let at = end; at <= end + NAME_TAIL; at++) {
        if (assignmentAt(text, at) || flagValueAt(text, at) || kubernetesValueAt(text, at)) return true
        if (at >= text.length || !isLetter(text.charCodeAt(at))) break
      }
    }
    return false
  }
}

/** The pattern is built on first use: the six are large (parsing them costs a hook 0.1 ms), and most text never needs them. */
const credential = (source: string): SecretRule => {
  let pattern: RegExp | undefined
  return {
    kind: "credential",
    get pattern() {
      return (pattern ??= new RegExp(source, "gim"))
    },
    hint: CREDENTIAL_HINT
  }
}

export const SECRET_RULES: ReadonlyArray<SecretRule> = [
  // PEM blocks span lines. A BEGIN without its END masks to the end of the text: truncated keys must not leak.
  {
    kind: "private-key",
    pattern: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----|$)/g, hint: contains("PRIVATE KEY")
  },
  { kind: "anthropic-key", pattern: /(?<![\w-])sk-ant-[\w-]{20,}/g, hint: contains("sk-ant-") },
  // After anthropic-key, which also starts with `sk-`. A digit is required so kebab-case words never match.
  { kind: "openai-key", pattern: /(?<![\w-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]*\d)[\w-]{20,}/g, hint: contains("sk-") },
  { kind: "github-token", pattern: /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})/g, hint: contains("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_") },
  { kind: "gitlab-token", pattern: /(?<![\w-])glpat-[\w-]{20,}/g, hint: contains("glpat-") },
  { kind: "slack-token", pattern: /(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}/g, hint: contains("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-") },
  { kind: "slack-webhook", pattern: /(?<keep>https:\/\/hooks\.slack\.com\/services\/)[\w\/-]+/g, hint: contains("hooks.slack.com") },
  { kind: "stripe-key", pattern: /(?<![\w-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g, hint: contains("_live_", "_test_") },
  { kind: "google-api-key", pattern: /(?<![\w-])AIza[\w-]{35}(?![\w-])/g, hint: contains("AIza") },
  { kind: "npm-token", pattern: /(?<![\w-])npm_[A-Za-z0-9]{36}(?![\w-])/g, hint: contains("npm_") },
  { kind: "aws-access-key", pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, hint: contains("AKIA", "ASIA", "ABIA", "ACCA") },
  { kind: "jwt", pattern: /(?<![\w-])eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]*/g, hint: contains("eyJ") },
  // scheme://user:password@host keeps the user and host; `@` may appear unencoded in the password.
  { kind: "url-password", pattern: /(?<keep>(?<![\w+.-])[A-Za-z][\w+.-]{0,30}:\/\/[^\s:\/@]{0,256}:)[^\s\/]{1,256}(?=@)/g, hint: contains("://") },
  // A header value runs to the end of the line or the closing quote, whatever the scheme.
  {
    kind: "authorization",
    pattern: /(?<keep>\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?(?:(?:bearer|basic|token|digest|negotiate|bot)[ \t]+)?)[^\s"'\\][^\r\n"'\\]*/gi, hint: /authorization/i
  },
  // Outside a header, only token-like credentials after Bearer/Basic: prose such as "Basic usage" has no digit.
  { kind: "bearer-token", pattern: /(?<keep>\b(?:bearer|basic)[ \t]+)(?=[A-Za-z._~+\/-]*\d)[\w.~+\/-]{16,}=*/gi, hint: /bearer|basic/i },
  {
    kind: "aws-secret-key",
    pattern: /(?<keep>(?<![\w-])(?:aws_?)?secret_?access_?key\\?["']?[ \t]*[:=][ \t]*\\?["']?)[A-Za-z0-9\/+=]{40}(?![A-Za-z0-9\/+=])/gi, hint: /secret_?access_?key/i
  },
  // Generic credentials, masking only the value. JSON/dict: "password": "x", or 'token': 123.
  credential(String.raw`(?<keep>["']${NAME_PREFIX}${SENSITIVE_NAME}\\?["'][ \t]*:[ \t]*\\?["']?)${VALUE}`),
  // JS/TS object literals and inline YAML: password: "x".
  credential(String.raw`(?<keep>${NAME_START}${NAME_PREFIX}${SENSITIVE_NAME}[ \t]*:[ \t]*\\?["'])${VALUE}`),
  // Env files, shell, code: DB_PASSWORD=x, const token: string = "x", os.environ["API_KEY"] = "x", password := "x".
  credential(
    String.raw`(?<keep>${NAME_START}${NAME_PREFIX}${SENSITIVE_NAME}\\?["']?\]?${TYPE_ANNOTATION}[ \t]*:?=(?![=>~])[ \t]*\\?["']?)${VALUE}`
  ),
  // CLI flags: --password foo, --api-key=foo. A value may start with "-", so `--token --verbose` masks the next flag.
  credential(String.raw`(?<keep>(?<![\w-])--?${NAME_PREFIX}${SENSITIVE_NAME}(?:=|[ \t]+)\\?["']?)${VALUE}`),
  // Kubernetes/Docker env entries: name: DB_PASSWORD, then value: x (YAML lines or JSON).
  credential(
    String.raw`(?<keep>\bname\\?["']?[ \t]*:[ \t]*\\?["']?${NAME_PREFIX}${SENSITIVE_NAME}\\?["']?[ \t]*,?[ \t]*(?:\r?\n[ \t]*)?\\?["']?value\\?["']?[ \t]*:[ \t]*\\?["']?)${VALUE}`
  ),
  // A YAML key or header line (password: x, X-Api-Key: x): the value is the rest of the line, as YAML reads it.
  credential(String.raw`(?<keep>^[ \t]*(?:[-*][ \t]+)?${NAME_PREFIX}${SENSITIVE_NAME}[ \t]*:[ \t]*)${NOT_A_PLACEHOLDER}[^\s"'][^\r\n]*`)
]
