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
  readonly hint: RegExp
}

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

/**
 * What every match of a credential rule contains: a sensitive name's last word, then what the rule
 * requires next. Names are common words in tool output (`PASS`, `key`, `token`), and each credential
 * pattern is large: a hook that compiled the six of them for every `PASS src/x.test.ts` would pay about
 * 1.5 ms. Every alternative of SENSITIVE_NAME ends with one of NAME_END, so this is a necessary
 * condition of each pattern below (tested in secret-rules.test.ts), never a narrower filter:
 * - an assignment or a key (`password=`, `"token":`, `API_KEY"] =`, `token?: string =`): the name, at
 *   most a backslash, a quote and a bracket, an optional `?`, blanks, then `:` or `=`;
 * - a CLI flag (`--api-key=x`): the name, then `=` or a blank, looking back to the flag's dash only then;
 * - a Kubernetes entry: the name, its closing quote, a comma or a line break, then `value`.
 * Each alternative starts with the name, and scans only what may follow it (or, for a flag, precede it):
 * linear on any input, like the patterns.
 */
const NAME_END = String.raw`(?:pass|passwd|password|passphrase|secrets?|token|key|auth|credentials?|cookie)`
const CREDENTIAL_HINT = new RegExp(
  String.raw`${NAME_END}[\\"'\]]{0,3}\??[ \t]*[:=]|${NAME_END}[= \t](?<=-[\w.-]{0,64}.)|${NAME_END}[\\"']{0,2}[ \t,]*(?:\r?\n[ \t]*)?[\\"']{0,2}value`,
  "i"
)

const credential = (source: string): SecretRule => ({ kind: "credential", pattern: new RegExp(source, "gim"), hint: CREDENTIAL_HINT })

export const SECRET_RULES: ReadonlyArray<SecretRule> = [
  // PEM blocks span lines. A BEGIN without its END masks to the end of the text: truncated keys must not leak.
  {
    kind: "private-key",
    pattern: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----|$)/g, hint: /PRIVATE KEY/
  },
  { kind: "anthropic-key", pattern: /(?<![\w-])sk-ant-[\w-]{20,}/g, hint: /sk-ant-/ },
  // After anthropic-key, which also starts with `sk-`. A digit is required so kebab-case words never match.
  { kind: "openai-key", pattern: /(?<![\w-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]*\d)[\w-]{20,}/g, hint: /sk-/ },
  { kind: "github-token", pattern: /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})/g, hint: /gh[pousr]_|github_pat_/ },
  { kind: "gitlab-token", pattern: /(?<![\w-])glpat-[\w-]{20,}/g, hint: /glpat-/ },
  { kind: "slack-token", pattern: /(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}/g, hint: /xox[abposr]-/ },
  { kind: "slack-webhook", pattern: /(?<keep>https:\/\/hooks\.slack\.com\/services\/)[\w\/-]+/g, hint: /hooks\.slack\.com/ },
  { kind: "stripe-key", pattern: /(?<![\w-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g, hint: /_(?:live|test)_/ },
  { kind: "google-api-key", pattern: /(?<![\w-])AIza[\w-]{35}(?![\w-])/g, hint: /AIza/ },
  { kind: "npm-token", pattern: /(?<![\w-])npm_[A-Za-z0-9]{36}(?![\w-])/g, hint: /npm_/ },
  { kind: "aws-access-key", pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, hint: /A[KSBC][IC]A/ },
  { kind: "jwt", pattern: /(?<![\w-])eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]*/g, hint: /eyJ/ },
  // scheme://user:password@host keeps the user and host; `@` may appear unencoded in the password.
  { kind: "url-password", pattern: /(?<keep>(?<![\w+.-])[A-Za-z][\w+.-]{0,30}:\/\/[^\s:\/@]{0,256}:)[^\s\/]{1,256}(?=@)/g, hint: /:\/\// },
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
