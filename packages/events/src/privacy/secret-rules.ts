/**
 * The secret shapes the privacy filter masks, as one ordered table of data.
 *
 * Order matters: exact token shapes run before the generic "name = value" forms, so a labelled
 * GitHub token is reported as `github-token`, and a later rule never re-masks an earlier marker.
 *
 * Every pattern must stay linear-time on hostile input: each scan that can fail is bounded
 * (`{0,40}`) or stops at a character it cannot consume, alternatives inside loops are disjoint, and no
 * two unbounded runs that can take the same characters meet (`[ \t]*,?[ \t]*`): a run of blanks they
 * could split between them costs time quadratic in its length when the match fails.
 *
 * Nor may a long value fill the regex engine's backtracking stack (64 MB; matches.ts): a loop goes round once for each
 * escape, not once a character (`[^"\\]*(?:\\.[^"\\]*)*`, or a character at a time lazily: UNESCAPED_QUOTE), and
 * a count with a minimum is written as that many then any more (`[\w-]{20}[\w-]*`, not `{20,}`: withPlainLoops).
 * Some still loop once a character or a line (ESCAPED_QUOTED, the env-entry rules, a key's base64 lines): on a value of
 * 8 MB or more their search stops, and the filter masks all it had yet to read.
 */

import { shannonEntropy } from "./entropy.ts"

export interface SecretRule {
  /** Named in the marker, e.g. `[secret:github-token]`. */
  readonly kind: string
  /** Global regex. The whole match is masked, except an optional leading `keep` group (a label, a URL's user). */
  readonly pattern: RegExp
  /**
   * How much of the value (what follows `keep`) is the secret: its length, or 0 when it does not look
   * like one (the prose rule's entropy check). Without it, the whole value is masked.
   */
  readonly secretLength?: (value: string) => number
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

/** The last text asked of `lowerCased`, and its lower case: the hints of several rules ask for it in turn. */
let lastLowered: { readonly text: string; readonly lower: string } | undefined

/** A text in lower case, for a hint of a rule that ignores case to test with plain strings rather than a regex. */
const lowerCased = (text: string): string => {
  if (lastLowered?.text !== text) lastLowered = { text, lower: text.toLowerCase() }
  return lastLowered.lower
}

/** Whether a text holds one of these strings (lower case) in any case: for a hint of a rule with the `i` flag. */
const holdsInAnyCase = (text: string, ...literals: ReadonlyArray<string>): boolean => {
  const lower = lowerCased(text)
  return literals.some((literal) => lower.includes(literal))
}

/**
 * Keys that are secrets by name (`ENCRYPTION_KEY`, `APP_KEY`, `JWT_SIGNING_KEY`, `api_key`, Azure's
 * `AccountKey` and `SharedAccessKey`), unlike
 * `primaryKey`, `sortKey` or `cacheKey`: the word before `key` says what it unlocks (`api key` in prose too).
 */
const KEY_NAME = String.raw`(?:account|api|app|auth|client|encryption|hmac|jwt|license|master|private|signing|`
  + String.raw`(?:secret|shared)[_ -]?(?:access[_ -]?)?)[_ -]?key`

/**
 * The same names in Korean: password (비밀번호, 비번, 암호, 패스워드), token (토큰, 인증 토큰), secret (시크릿), key (비밀
 * 키, API 키, 액세스 키, 시크릿 키). Escaped: the hook programs are bundled as ASCII. `시크릿 키` before `시크릿`: the
 * first that matches is taken, and `키는` is no secret.
 */
const KOREAN_NAME = String
  .raw`\uBE44\uBC00\uBC88\uD638|\uBE44\uBC88|\uC554\uD638|\uD328\uC2A4\uC6CC\uB4DC|(?:\uC778\uC99D ?)?\uD1A0\uD070`
  + String.raw`|(?:\uBE44\uBC00|API|\uC561\uC138\uC2A4|\uC2DC\uD06C\uB9BF) ?\uD0A4|\uC2DC\uD06C\uB9BF`

/**
 * The particles that follow a name in Korean prose, attached or after a blank (은, 는, 이, 가, and 을, 를 of the
 * object): `비밀번호는 X`, `password 는 X`, `비밀번호를 X로 바꿔`.
 */
const KOREAN_PARTICLE = String.raw`[\uC740\uB294\uC774\uAC00\uC744\uB97C]`

/**
 * The most backslashes before a quote the rules read: JSON encoded as a string five times. Once is `\"`, and each
 * encoding doubles the backslashes and adds one (3, 7, 15, 31): twice is JSON held in a string of other JSON (a kubectl
 * annotation, a log that stringifies twice), and each log or report that quotes such text as JSON adds a level.
 * Bounded, not `\\*`, so a long run of backslashes costs each try at most this many steps.
 */
export const MAX_ESCAPES = 31

/**
 * The backslashes before a quote, at any of those depths: the name and the value are the same credential at each of
 * them.
 */
export const ESCAPES = String.raw`\\{0,${MAX_ESCAPES}}`

/**
 * `PWD=/home/alice/project`: the shell's working directory (`env`, `docker inspect`, `/proc/<pid>/environ`), not a
 * password, though named as ODBC names one. The name alone, no prefix (`DB_PWD=/x` stays a password), with a value that
 * is an absolute path.
 */
const WORKING_DIRECTORY = String
  .raw`(?<=(?<![\w.-])pwd)${ESCAPES}["']?[ \t]*(?::?=|:)[ \t]*${ESCAPES}["']?\/`

/** Every sensitive name contains one of these words (case-insensitively). */
export const NAME_WORDS = String
  .raw`pass|pw|secret|token|key|auth|credential|cookie|\uD638|\uB4DC|\uD070|\uD0A4|\uBC88|\uB9BF`

/**
 * A line break escaped in a JSON string (`\n`, `\r\n`), as deeply as five encodings put it (16 backslashes before the
 * `n`): a YAML file or pretty-printed JSON held in a string of other JSON (a ConfigMap's data, a log line) keeps its
 * lines apart with these.
 */
const ESCAPED_BREAK = String.raw`(?:\\{1,16}r)?\\{1,16}n`

/**
 * Blanks at the start of an escaped line (ESCAPED_BREAK): spaces, and tabs escaped as deeply as its line break (`\t`:
 * JSON indented with tabs, as Go's MarshalIndent writes it, quoted as a string).
 */
const ESCAPED_BLANKS = String.raw`(?:[ \t]|\\{1,16}t)*`

/** A character of a line whose lines are escaped (ESCAPED_BREAK): a run of backslashes before `n` or `r` ends it. */
const ESCAPED_LINE_TEXT = String.raw`(?:[^\\\r\n]|\\+(?![\\nr]))`

/**
 * A comment after an env entry's name or value, to the end of its line (`- name: DB_PASSWORD # the app's`): a `#`
 * after a blank, as YAML reads one, then text holding nothing `stop` matches, up to a line break. Where the lines are
 * escaped (ESCAPED_BREAK), up to the first escaped one, the other branch: one escaped line's comment does not run on
 * into the next, while a comment on a line of its own may hold a `\n` (`# C:\new`). Each branch reads it once.
 */
const lineComment = (stop: string): string =>
  String.raw`(?<=[ \t])#(?:(?:(?!${stop})${ESCAPED_LINE_TEXT})*(?=${ESCAPED_BREAK})|(?:(?!${stop})[^\r\n])*(?=\r?\n))`

/**
 * A comment after an env entry's name (lineComment). It holds no `name:` that may name a credential, where the entry
 * rule is tried again: read past one to the line's end, a line of `name: pw #` repeated would be read to its end by
 * each try. Such a name has a sensitive word within 90 characters after its blanks (ESCAPES, a quote, NAME_PREFIX and
 * the start of SENSITIVE_NAME): the words rather than SENSITIVE_NAME, which the rule would then hold four times more,
 * doubling what compiling it costs.
 */
const NAME_COMMENT = lineComment(String.raw`\bname${ESCAPES}["']?[ \t]*:[ \t]*(?![ \t])[^\r\n]{0,90}?(?:${NAME_WORDS})`)

/**
 * How many blank or comment lines may stand between an env entry's name and its value (`- name: DB_PASSWORD`, a blank
 * line, `# rotated monthly`, then `value: x`). Neither holds another entry, or another key of this one. Bounded, so a
 * line is read by the tries of the few lines above it, not of every name before it.
 */
const ENTRY_GAP_LINES = 3

/**
 * The line breaks from an env entry's name to its value: one, then at most ENTRY_GAP_LINES blank or comment lines,
 * each ending in one; all of them escaped (ESCAPED_BREAK: `name: DB_PASSWORD\n  value: x` in a JSON string, its
 * indentation maybe escaped tabs: ESCAPED_BLANKS) or none.
 * A comment line is read whole: each line is read by the tries of ENTRY_GAP_LINES lines above it at most, as one try
 * at most goes on past a line's end (NAME_COMMENT).
 */
const ENTRY_LINES = String.raw`(?:\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n){0,${ENTRY_GAP_LINES}}[ \t]*`
  + String.raw`|${ESCAPED_BREAK}(?:${ESCAPED_BLANKS}(?:#${ESCAPED_LINE_TEXT}*)?${ESCAPED_BREAK}){0,${ENTRY_GAP_LINES}}`
  + String.raw`${ESCAPED_BLANKS})`

/**
 * From an env entry's name to its value (`name: DB_PASSWORD` then `value: x`, as YAML lines, `"name": "X",` then
 * `"value": "x"` as JSON, or on one line): the name's closing quote, a comma, a comment (NAME_COMMENT), the line
 * breaks (ENTRY_LINES) and `value:`. The blanks after the name are one run unless a comma splits them.
 */
const ENTRY_VALUE = String.raw`${ESCAPES}["']?[ \t]*(?:,[ \t]*)?(?:${NAME_COMMENT})?(?:${ENTRY_LINES})?`
  + String.raw`${ESCAPES}["']?value${ESCAPES}["']?[ \t]*:[ \t]*${ESCAPES}["']?`

/**
 * What a setting named `auth` holds when it names how to authenticate, not a credential: a scheme or a mode
 * (`<auth>basic</auth>`, `auth: ntlm`, `"auth": "none"`, `smtp_auth=login`). None of these words is a credential
 * or a placeholder for one.
 */
export const AUTH_SCHEMES: ReadonlyArray<string> = [
  "basic",
  "bearer",
  "digest",
  "negotiate",
  "ntlm",
  "kerberos",
  "gssapi",
  "spnego",
  "oauth",
  "oauth1",
  "oauth2",
  "oidc",
  "saml",
  "ldap",
  "jwt",
  "apikey",
  "api-key",
  "api_key",
  "hmac",
  "mtls",
  "tls",
  "x509",
  "cert",
  "certificate",
  "anonymous",
  "plain",
  "login",
  "md5",
  "cram-md5",
  "scram-sha-1",
  "scram-sha-256",
  "sasl",
  "iam",
  "sigv4",
  "aws-sigv4",
  "on",
  "off",
  "yes",
  "no",
  "required",
  "optional",
  "disabled",
  "enabled"
]

const AUTH_SCHEME_SET: ReadonlySet<string> = new Set(AUTH_SCHEMES)

const isBlank = (character: string | undefined): boolean => character === " " || character === "\t"

/**
 * A bare value without the comment or the blanks that end its line: `auth: basic # how the proxy logs in` is a YAML
 * line whose value is `basic`, as a YAML, TOML or shell parser reads it (a comment starts at a `#` after a blank).
 * Only where the value is bare, after a `:` or `=` (the YAML line rule reads the rest of the line as the value): in
 * quotes or an element (`"basic # x"`, `<auth>basic # x</auth>`) and glued to the word (`basic#x`), a `#` is part of
 * the value.
 */
const withoutComment = (keep: string, value: string): string => {
  let end = keep.length
  while (end > 0 && isBlank(keep[end - 1])) end--
  if (keep[end - 1] !== ":" && keep[end - 1] !== "=") return value
  let word = 0
  while (word < value.length && !isBlank(value[word])) word++
  let i = word
  while (i < value.length && isBlank(value[i])) i++
  return i === value.length || (i > word && value[i] === "#") ? value.slice(0, word) : value
}

/**
 * Whether a credential rule's match is a setting named `auth` holding a scheme (AUTH_SCHEMES): the value is one of
 * them, whole (but for a comment after a bare one: withoutComment), and the kept text before it ends with the name
 * and its separator (`auth=`, `"smtp_auth": "`, `<auth>`, padded `AUTH:     `). Checked on each match rather than
 * written into SENSITIVE_NAME: that pattern is part of every credential rule, and the list in each of them made
 * compiling the rules cost a hook twice as much.
 */
export const holdsAuthScheme = (keep: string, value: string): boolean => {
  if (!AUTH_SCHEME_SET.has(withoutComment(keep, value).toLowerCase())) return false
  let end = keep.length
  while (end > 0 && !isNameCharacter(keep.charCodeAt(end - 1))) end--
  return /(?<![a-z])auth$/i.test(keep.slice(Math.max(0, end - 5), end))
}

/**
 * Names whose value is a credential. A name must END with one (`DB_PASSWORD`, `clientSecret`,
 * `x-api-key`), so `token_count`, `max_tokens` or `password_hash` are left alone.
 * `pass`, `pw`, `pwd` and `auth` only count as whole words (`DB_PASS`, `"pw"`, ODBC's `Pwd`, `_auth`), not
 * inside `bypass`, `cwd`... or `oauth`. `authIdent` is Yarn's `npmAuthIdent`: `user:password`, or its base64.
 * `PWD` holding a path (WORKING_DIRECTORY) is not a credential, nor is `auth` holding a scheme (holdsAuthScheme).
 */
export const SENSITIVE_NAME = String
  .raw`(?:passw(?:or)?d|passphrase|(?<![a-z])pass|(?<![a-z])pwd?(?!${WORKING_DIRECTORY})|secrets?|token|`
  + String.raw`${KEY_NAME}|(?<![a-z])auth|authident|credentials?|cookie|${KOREAN_NAME})`

/**
 * The rest of an identifier before the sensitive suffix (`DB_`, `config.`, `x-`). Bounded: tried at every
 * name start.
 */
const NAME_PREFIX = String.raw`[\w.-]{0,40}?`
const NAME_START = String.raw`(?<![\w.-])`

/** Values that name a type or an empty state rather than holding a secret (`password: string;`, `token = None`). */
const NOT_A_PLACEHOLDER = String
  .raw`(?!(?:true|false|null|nil|none|undefined|string|number|boolean|str|int|bool)(?![\w.-]))`

/**
 * A value between escaped quotes (`\"x\"`, `\\\"x\\\"`), up to the quote that closes it. `escape` is the opening
 * quote's run of backslashes; the value's own escapes are escaped again at this depth, each backslash of them
 * becoming a `block` (`escape` and one more backslash). A run of backslashes before a quote is then blocks and
 * `escape`: an even number of blocks is backslashes of the value and the quote closes it (`\\\\\"` escaped once: a
 * value ending in a backslash), an odd number is a quote the value holds (`\\\"` escaped once). Each run is read whole
 * by the one branch that takes it, so a value is read once.
 */
const BLOCK = String.raw`\k<escape>\\`
/** ESCAPED_QUOTED, the value starting `prefix` after its opening quote (`\"root:x\"`, the value after `root:`). */
const escapedQuoted = (prefix: string): string =>
  String.raw`(?<=(?<!\\)(?<escape>\\{1,${MAX_ESCAPES}})"${prefix})`
  + String
    .raw`(?:[^"\\\r\n]|\\+(?![\\"\r\n])|(?:${BLOCK}${BLOCK})*(?:${BLOCK}\k<escape>"|${BLOCK}${BLOCK}(?=\k<escape>")))+`
  + String.raw`(?=\k<escape>")`
export const ESCAPED_QUOTED = escapedQuoted("")

/**
 * Not an empty string literal (`password = ""`, `\"token\":\"\"`): the quote that opened the value, escaped as
 * deeply, closes it at once, before what ends a value (a blank, `,`, `;`, a bracket, an operator). It holds nothing,
 * and what follows on its line is code, not the rest of an unclosed value. A quote followed by more of a word
 * (`PASSWORD=""hunter2`, which a shell reads as `hunter2`) is not empty.
 */
const NOT_EMPTY = String.raw`(?!(?<=(?<!\\)(?<open>${ESCAPES}["']))\k<open>(?![^\s,;)\]}+|&.:?\\]))`

/**
 * A quote after an even run of backslashes (none included): one a string's escapes leave closing it. Checked where a
 * value is read a character at a time, lazily, rather than by a loop of alternatives (`(?:[^"\\]|\\.)+`): each pass
 * of such a loop costs V8's regex engine an entry on its backtracking stack, and a value of 8 MB overflowed it
 * (matches.ts); a lazy loop costs it none. The quote first, so a run of backslashes is read only at the quote after it.
 */
const UNESCAPED_QUOTE = String.raw`"(?<=(?<!\\)(?:\\\\)*")`

/**
 * Between a call's arguments or a tuple's elements: blanks, and one line break, as a formatter wraps a long call
 * (`getConnection(\n    url, "bob", "x")`). The two runs of blanks are apart by the line break.
 */
const ARGUMENT_GAP = String.raw`[ \t]*(?:\r?\n[ \t]*)?`

/**
 * Not a tuple or a list of a user and a password (`auth=("bob", "x")`, `auth=(user, "x")`, `'auth' => ['bob', 'x']`):
 * a bare value does not start so. Read as one, its `(` was masked and the password after it left; the tuple rule
 * (CODE_CALL_RULES) masks the password there.
 */
const NOT_A_TUPLE = String
  .raw`(?![(\[]${ARGUMENT_GAP}(?:${ESCAPES}["'\x60]|[\w$.]{1,128}${ARGUMENT_GAP},${ARGUMENT_GAP}${ESCAPES}["'\x60]))`

/**
 * A credential value, without its quotes so they stay as context. A quote that never closes on the
 * line masks the rest of the line (fail safe); a bare value runs to whitespace, a quote or `&`, and does not start
 * with an escaped quote (that is a quoted value's opening, or an empty one's) or as a tuple (NOT_A_TUPLE). A
 * double-quoted one runs up to its first quote that is not escaped (UNESCAPED_QUOTE), as `(?:[^"\\]|\\.)+` would
 * read it.
 */
const VALUE = NOT_A_PLACEHOLDER + NOT_EMPTY
  + String.raw`(?:${ESCAPED_QUOTED}|(?<=")(?:(?!${UNESCAPED_QUOTE})[^\r\n])+?(?=${UNESCAPED_QUOTE})`
  + String.raw`|(?<=')[^'\r\n]+(?=')|(?<=["'])[^\r\n]+|(?!${ESCAPES}["'])${NOT_A_TUPLE}[^\s"'\x60&]+)`

/**
 * A bare value on a YAML line of its own (`- name: DB_PASSWORD` then `  value: correct horse battery`): the rest of the
 * line, as YAML reads it (a comment with it, as the YAML line rule takes one), where VALUE would take its first word.
 */
const LINE_VALUE = String.raw`(?=[^\s"'#])(?<=^[ \t]*value[ \t]*:[ \t]*)${NOT_A_PLACEHOLDER}[^\r\n]+`

/**
 * A bare value on an escaped line (`name: DB_PASSWORD\n  value: x y\n`, YAML in a JSON string): the rest of the line,
 * up to the escaped line break, which VALUE would read on past.
 */
const ESCAPED_LINE_VALUE = String.raw`(?=[^\s"'#\\])(?<=\\n[ \t]*value[ \t]*:[ \t]*)${NOT_A_PLACEHOLDER}`
  + String.raw`${ESCAPED_LINE_TEXT}+(?=${ESCAPED_BREAK})`

/**
 * A comment after an env entry's value (`- value: 'x' # rotated`: lineComment), as NAME_COMMENT after a name. It holds
 * no `value:`, where the rule for a value before its name is tried again.
 */
const VALUE_COMMENT = lineComment(String.raw`\bvalue${ESCAPES}["']?[ \t]*:`)

/**
 * An env entry's name (`name: DB_PASSWORD`), and the name PWD alone in group `pwd` (`DB_PWD` stays a password): that
 * entry is the working directory, not a password, when its value is an absolute path (`- name: PWD` then
 * `value: /home/alice/project`, a pod's env as kubectl prints it), as WORKING_DIRECTORY on one line. The value is
 * checked where it starts (NOT_A_WORKING_DIRECTORY), so the pattern holds what lies between them once: a lookahead
 * here for PWD, the path and all of ENTRY_VALUE doubled what compiling the rule costs.
 */
const ENTRY_NAME = String.raw`(?:(?<pwd>pwd)(?![\w.-])|(?!pwd(?![\w.-]))${NAME_PREFIX}${SENSITIVE_NAME})`

/**
 * Not an absolute path when the entry's name was PWD alone (ENTRY_NAME). `\k<pwd>` matches nothing when the group took
 * no part, and `pwd` itself, not found where a value starts, when it did: so `(?=\k<pwd>)` holds for any other name.
 */
const NOT_A_WORKING_DIRECTORY = String.raw`(?:(?=\k<pwd>)|(?!\/))`

/**
 * From the end of an env entry's value to its name, when the value comes first (`- value: x` then
 * `  name: DB_PASSWORD`, `{"value": "x", "name": "DB_PASSWORD"}`): blanks, a comma, a comment (VALUE_COMMENT), the
 * line breaks (ENTRY_LINES) and the name key, then a sensitive name that ends there. What may stand between them is
 * what may stand between a name and its value (ENTRY_VALUE): no other key, and so no other entry (`- name:`, or the
 * `}` that closes this one). The name PWD alone is refused after an absolute path: group `path` holds the `/` a value
 * starts with (VALUE_BEFORE_NAME), and `(?=\k<path>)`, a `/` where the name starts, holds only when it took no part
 * (as NOT_A_WORKING_DIRECTORY).
 */
const NAME_AFTER_VALUE = String.raw`[ \t]*(?:,[ \t]*)?(?:${VALUE_COMMENT})?(?:${ENTRY_LINES})?`
  + String.raw`${ESCAPES}["']?name${ESCAPES}["']?[ \t]*:[ \t]*${ESCAPES}["']?`
  + String.raw`(?:(?=\k<path>)|(?!pwd(?![\w.-])))${NAME_PREFIX}${SENSITIVE_NAME}(?![\w.-])`

/**
 * An env entry's value before its name (`- value: x` then `  name: DB_PASSWORD`, YAML or JSON, on one line or more),
 * after the `value:` key: quoted (escaped as deeply as its opening quote: ESCAPED_QUOTED) up to its closing quote, the
 * rest of a YAML line whose first key it is (`- value: correct horse`, a comment with it), or a bare word
 * (`{value: x, name: y}`); then the name, in a lookahead (NAME_AFTER_VALUE). A try that fails reads no further than
 * where the next one starts, or than its line: a quoted value runs to the first quote that can close it, a bare word
 * (taken whole) to the first character it cannot hold, and a YAML line is read by its first key's try only. A value
 * another rule masked is not one (`value: [secret:credential]` may end an escaped line whose next holds one). That
 * the value starts there is checked before the lookbehind that finds the line's start: were the key's blanks given
 * back one by one, each would be read back to the key again.
 */
const VALUE_BEFORE_NAME = String.raw`(?=(?<path>\/)?)` + NOT_A_PLACEHOLDER + String.raw`(?!\[secret:)`
  + String.raw`(?:(?:${ESCAPED_QUOTED}|(?<=(?<!\\)")(?:[^"\\\r\n]|\\.)+|(?<=(?<!\\)')[^'\r\n]+)(?=${ESCAPES}["'])`
  + String.raw`|(?=[^\s"'#])(?<=^[ \t]*(?:-[ \t]+)?value[ \t]*:[ \t]*)[^\r\n]+(?=\r?\n)`
  + String.raw`|(?=[^\s"'#\\])(?<=\\n[ \t]*(?:-[ \t]+)?value[ \t]*:[ \t]*)${ESCAPED_LINE_TEXT}+(?=${ESCAPED_BREAK})`
  + String.raw`|(?!${ESCAPES}["'])[^\s"'#,:{}\[\]\\]+(?![^\s"'#,:{}\[\]\\]))`
  + String.raw`(?=${ESCAPES}["']?${NAME_AFTER_VALUE})`

/**
 * A YAML block scalar's header (`|`, `>-`, `|2+`), alone on its line but for a comment: its value is on the
 * lines below.
 */
const YAML_BLOCK_INDICATOR = String.raw`[|>][-+1-9]{0,2}[ \t]*(?:#[^\r\n]*)?$`

/**
 * Not a block scalar's header where an env entry's value starts (`value: |`, `value: >- # c`, escaped `value: |\n`):
 * its value is on the lines below.
 */
const NOT_A_BLOCK_HEADER = String.raw`(?![|>][-+1-9]{0,2}[ \t]*(?:#|$|${ESCAPED_BREAK}))`

/**
 * An optional type annotation between a name and `=` (`password: string =`, `let token: &str =`), or a bare colon
 * (`password: = x`). The type starts with a character that is not a blank: were it allowed to start with the spaces
 * a type may hold (`A | B`), the blanks before it, the type and the blanks before `=` could split a long run of
 * blanks after a colon (`password:` and a page of spaces) in quadratically many ways, each tried before the match
 * fails.
 */
const TYPE_ANNOTATION = String.raw`(?:\??[ \t]*:(?:[ \t]*[\w.<>\[\]|&,][\w.<>\[\]|&, ]{0,59}?)?)?`

/** Any of NAME_WORDS, found in turn. */
const NAME_WORD = new RegExp(NAME_WORDS, "gi")

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

/**
 * `[\\"'\]]{0,33}\??[ \t]*[:=]`: a key or an assignment (`password=`, `"token":`, `API_KEY"] =`,
 * `token?: string =`, `\\\"token\\\":` in JSON escaped twice: ESCAPES, a quote and a bracket).
 */
const assignmentAt = (text: string, at: number): boolean => {
  let i = skip(text, at, `\\"']`, MAX_ESCAPES + 2)
  if (text[i] === "?") i++
  i = skip(text, i, " \t")
  return text[i] === ":" || text[i] === "="
}

const isHangulSyllable = (code: number): boolean => code >= 0xac00 && code <= 0xd7a3

/**
 * A character the flag rule's name may hold: a name character, a Hangul syllable of a Korean name, or the blank inside
 * one (`API 키`, `인증 토큰`), before a syllable.
 */
const isFlagNameCharacter = (text: string, i: number): boolean => {
  const code = text.charCodeAt(i)
  return isNameCharacter(code) || isHangulSyllable(code) || (code === 32 && isHangulSyllable(text.charCodeAt(i + 1)))
}

/** `=` or a blank, after a flag: a dash before the name, across the name's characters only (`--api-key=x`). */
const flagValueAt = (text: string, at: number): boolean => {
  if (text[at] !== "=" && text[at] !== " " && text[at] !== "\t") return false
  for (let i = at - 1; i >= 0 && at - i <= 64 && isFlagNameCharacter(text, i); i--) {
    if (text[i] === "-") return true
  }
  return false
}

/** `[\\"']{0,32}value`: an entry's `value` key, after ESCAPES and a quote. */
const valueKeyAt = (text: string, at: number): boolean => {
  const i = skip(text, at, `\\"'`, MAX_ESCAPES + 1)
  return text.slice(i, i + 5).toLowerCase() === "value"
}

/** Where the line holding `at` ends: its first `\r` or `\n` from `at`, or the text's end. */
const lineEnd = (text: string, at: number): number => {
  let i = at
  while (i < text.length && text[i] !== "\r" && text[i] !== "\n") i++
  return i
}

/**
 * Where a comment after an env entry's name ends: at a line break, or at a run of backslashes before `n` or `r` (an
 * escaped one: ESCAPED_LINE_TEXT), or at the text's end.
 */
const commentEnd = (text: string, at: number): number => {
  let i = at
  while (i < text.length && text[i] !== "\r" && text[i] !== "\n") {
    if (text[i] !== "\\") i++
    else {
      const run = skip(text, i, "\\")
      if (text[run] === "n" || text[run] === "r") return i
      i = run
    }
  }
  return i
}

/**
 * How many backslashes the hint reads before an escaped line break's `n` or `r`: more than ESCAPED_BREAK takes, as the
 * pattern's ESCAPES may take some of a run before it.
 */
const BREAK_ESCAPES = MAX_ESCAPES + 16

/** Where an escaped line break (ESCAPED_BREAK, read more loosely) that starts at `at` ends, or -1. */
const escapedBreakEnd = (text: string, at: number): number => {
  const i = skip(text, at, "\\", BREAK_ESCAPES)
  if (i === at) return -1
  if (text[i] === "n") return i + 1
  if (text[i] !== "r") return -1
  const j = skip(text, i + 1, "\\", BREAK_ESCAPES)
  return j > i + 1 && text[j] === "n" ? j + 1 : -1
}

/** Moves past blanks and escaped tabs (ESCAPED_BLANKS, read more loosely). */
const skipEscapedBlanks = (text: string, at: number): number => {
  let i = at
  for (;;) {
    i = skip(text, i, " \t")
    const run = skip(text, i, "\\", BREAK_ESCAPES)
    if (run === i || text[run] !== "t") return i
    i = run + 1
  }
}

/**
 * What kubernetesValueAt has read of one text, kept while the hint reads it: each word of a line of `pw #pw #pw`
 * is followed by a comment to the same line's end, and would read that comment, and the lines below it, again.
 */
interface EntryScan {
  /** A comment read from `lineFrom` ends at `lineTo` (its line's end: lineEnd), as one that starts between them. */
  lineFrom: number
  lineTo: number
  /** And at `escapedTo` if its lines are escaped (commentEnd). */
  escapedFrom: number
  escapedTo: number
  /** Whether an entry's value follows the line break at `breakAt`, and the escaped one at `escapedBreakAt`. */
  breakAt: number
  valueBelow: boolean
  escapedBreakAt: number
  valueBelowEscaped: boolean
}

const entryScan = (): EntryScan => ({
  lineFrom: -1,
  lineTo: -2,
  escapedFrom: -1,
  escapedTo: -2,
  breakAt: -1,
  valueBelow: false,
  escapedBreakAt: -1,
  valueBelowEscaped: false
})

/**
 * `\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n){0,3}[ \t]*[\\"']{0,32}value`, from a line break: the value's line, after at most
 * ENTRY_GAP_LINES blank or comment lines. Or the same with escaped line breaks (ESCAPED_BREAK), a comment ending at
 * one (commentEnd).
 */
const valueBelowAt = (text: string, at: number): boolean => {
  const escaped = text[at] === "\\"
  let i = at
  for (let line = 0; line <= ENTRY_GAP_LINES; line++) {
    if (escaped) {
      const end = escapedBreakEnd(text, i)
      if (end === -1) return false
      i = skipEscapedBlanks(text, end)
      if (text[i] === "#") i = commentEnd(text, i)
      else if (escapedBreakEnd(text, i) === -1) return valueKeyAt(text, i)
    } else {
      if (text[i] === "\r") i++
      if (text[i] !== "\n") return false
      i = skip(text, i + 1, " \t")
      if (text[i] === "#") i = lineEnd(text, i)
      else if (text[i] !== "\r" && text[i] !== "\n") return valueKeyAt(text, i)
    }
  }
  return false
}

/** valueBelowAt, kept for the last line break and the last escaped one. */
const valueBelowKept = (text: string, at: number, scan: EntryScan): boolean => {
  if (text[at] === "\\") {
    if (at !== scan.escapedBreakAt) {
      scan.escapedBreakAt = at
      scan.valueBelowEscaped = valueBelowAt(text, at)
    }
    return scan.valueBelowEscaped
  }
  if (at !== scan.breakAt) {
    scan.breakAt = at
    scan.valueBelow = valueBelowAt(text, at)
  }
  return scan.valueBelow
}

/**
 * `[\\"']{0,32}[ \t,]*(?:#[^\r\n]*)?(?:\r?\n...)?[\\"']{0,32}value`: a Kubernetes entry's value
 * (`name: DB_PASSWORD\n  value: x`; ESCAPES and a quote around each name; a comment after the name; blank or
 * comment lines before the value, the line breaks escaped or not: valueBelowAt). A run of backslashes before `n` or
 * `r` after the name is an escaped line break, not the name's quote's escape. A comment ends at its line's end, or at
 * the first escaped line break in it (lineComment): what follows either is read.
 */
const kubernetesValueAt = (text: string, at: number, scan: EntryScan): boolean => {
  let i = skip(text, at, `\\"'`, MAX_ESCAPES + 1)
  if ((text[i] === "n" || text[i] === "r") && text[i - 1] === "\\") {
    while (i > at && text[i - 1] === "\\") i--
  }
  i = skip(text, i, " \t,")
  if (text[i] === "#") {
    if (i < scan.lineFrom || i > scan.lineTo) {
      scan.lineFrom = i
      scan.lineTo = lineEnd(text, i)
    }
    if (i < scan.escapedFrom || i > scan.escapedTo) {
      scan.escapedFrom = i
      scan.escapedTo = commentEnd(text, i)
    }
    return valueBelowKept(text, scan.escapedTo, scan) || valueBelowKept(text, scan.lineTo, scan)
  }
  if (text[i] !== "\r" && text[i] !== "\n" && escapedBreakEnd(text, i) === -1) return valueKeyAt(text, i)
  return valueBelowKept(text, i, scan)
}

/**
 * What every match of a credential rule contains: a sensitive name, then what the rule requires right
 * after it. Names are common words in tool output (`PASS`, `key`, `token`), and each credential pattern
 * is large: compiling the six of them for every `PASS src/x.test.ts` cost a hook about 1.5 ms (and
 * a regex for this test itself 0.4 ms, so it is written out). For each sensitive word, at every point
 * where the name may end (the word, or up to NAME_TAIL more letters: `pass` + `word`), it looks for
 * - a key or an assignment (`password=`, `"token":`, `API_KEY"] =`, `token?: string =`),
 * - a CLI flag's value (`--api-key=x`), or
 * - a Kubernetes entry's value (`name: DB_PASSWORD` then `value: x`, comments or blank lines between them or not).
 * That is a necessary condition of each pattern below (tested in secret-rules.test.ts): it only skips
 * rules that cannot match. Every scan is bounded or stops at the first character it cannot take.
 */
const holdsCredentialName = (text: string): boolean => {
  const scan = entryScan()
  NAME_WORD.lastIndex = 0
  for (let word = NAME_WORD.exec(text); word !== null; word = NAME_WORD.exec(text)) {
    const end = word.index + word[0].length
    for (let at = end; at <= end + NAME_TAIL; at++) {
      if (assignmentAt(text, at) || flagValueAt(text, at) || kubernetesValueAt(text, at, scan)) return true
      if (at >= text.length || !isLetter(text.charCodeAt(at))) break
    }
  }
  return false
}

/**
 * The credential rules share this hint and ask it in turn about the same text (until one of them masks
 * something): the answer for the last text is kept, so a text is searched once, not once per rule.
 */
let lastHinted: { readonly text: string; readonly holds: boolean } | undefined

const CREDENTIAL_HINT: Hint = {
  test: (text) => {
    if (lastHinted?.text !== text) lastHinted = { text, holds: holdsCredentialName(text) }
    return lastHinted.holds
  }
}

/**
 * A rule whose pattern is built on first use: the large ones cost a hook 0.1 ms to parse, and most text
 * never needs them.
 */
const lazyRule = (
  kind: string,
  source: string,
  flags: string,
  hint: Hint,
  secretLength?: (value: string) => number
): SecretRule => {
  let pattern: RegExp | undefined
  return {
    kind,
    get pattern() {
      return (pattern ??= new RegExp(source, flags))
    },
    hint,
    ...(secretLength === undefined ? {} : { secretLength })
  }
}

const credential = (source: string): SecretRule => lazyRule("credential", source, "gim", CREDENTIAL_HINT)

/** `value:`, `"Value":` */
const VALUE_KEY_HINT = /value[\\"']*[ \t]*:/i
/** `name:`, `"Name":` */
const NAME_KEY_HINT = /name[\\"']*[ \t]*:/i

/**
 * What every match of the rule for an env entry's value before its name holds: a `value` key, a `name` key and a
 * sensitive word (NAME_WORDS). Most text has no `value:` key, and the first test ends there.
 */
const VALUE_BEFORE_NAME_HINT: Hint = {
  test: (text) => VALUE_KEY_HINT.test(text) && NAME_KEY_HINT.test(text) && text.search(NAME_WORD) !== -1
}

/** A template or a reference in place of a value (`${env.TOKEN}`, `{{ form.password }}`, `<%= @password %>`). */
const NOT_A_TEMPLATE = String.raw`(?!\$\{|\{\{|<%)`

/** `</password>`: a closing tag whose name holds a sensitive word, as every match of the XML element rule has. */
const XML_ELEMENT_HINT: Hint = {
  test: (text) =>
    text.includes("</") && /<\/[\w.-]{0,40}?(?:pass|pw|secret|token|key|auth|credential|cookie)/i.test(text)
}

/**
 * An argument before the password, read so a try stops at its end: a string literal with no quote in it (a Python
 * prefix before it, an f-string's too: `f"{user}@x.com"`), escaped as deeply as ESCAPES allows, or a name (`url`,
 * `self.user`, `$dsn`, `$this->user`) with at most one index or call after it (`os.environ["U"]`,
 * `props.getProperty("user")`). Both bounded. Nothing else: an argument that is an expression is not read past.
 */
const CALL_ARGUMENT =
  String.raw`(?:(?:[rRbBuUfF]{1,2}(?=${ESCAPES}["']))?${ESCAPES}["'\x60][^"'\x60\r\n]{0,256}["'\x60]`
  + String.raw`|[\w$.>-]{1,128}(?:\[[^\]\r\n]{0,64}\]|\([^()\r\n]{0,64}\))?)`

/** One argument before the password, and the comma after it. */
const BEFORE = String.raw`${CALL_ARGUMENT}${ARGUMENT_GAP},${ARGUMENT_GAP}`

/**
 * Where a string literal opens: a quote, escaped as deeply as ESCAPES allows (code quoted in a JSON string), after a
 * Python prefix (`b"x"`, `r'x'`, `rb"x"`: an f-string's `f` is none, it holds an expression) or inside Rust's
 * `Some(...)`; or a backtick. A name or an expression there (`password`, `getpass()`) is no literal.
 */
const LITERAL_OPEN = String.raw`(?:Some\([ \t]*)?(?:(?:[rRbBuU]{1,2}(?=${ESCAPES}["']))?${ESCAPES}["']|\x60)`

/**
 * A string literal's text, after LITERAL_OPEN: as VALUE reads a quoted value, or between backticks when it holds no
 * `${` (a template literal that interpolates is an expression). Not a template or a placeholder (NOT_A_TEMPLATE,
 * NOT_A_PLACEHOLDER), and not empty (VALUE's NOT_EMPTY; a backtick's text is one character or more). The backtick's
 * text is one run of a class, given back at most to the closing backtick.
 */
const LITERAL = String.raw`${NOT_A_PLACEHOLDER}${NOT_A_TEMPLATE}`
  + String.raw`(?:(?<=\x60)(?![^\x60\r\n]*\$\{)[^\x60\r\n]+(?=\x60)|(?<!\x60)${VALUE})`

/**
 * Calls that take a user, then the password: requests' HTTPBasicAuth and HTTPDigestAuth, aiohttp's and httpx's
 * BasicAuth, Go's SetBasicAuth, reqwest's basic_auth, TestRestTemplate's withBasicAuth, .NET's NetworkCredential,
 * Apache HttpClient's UsernamePasswordCredentials, Java's PasswordAuthentication, Spring's
 * UsernamePasswordAuthenticationToken and basicAuthentication, OkHttp's Credentials.basic, superagent's .auth,
 * python-ldap's simple_bind_s, cx_Oracle's connect and PHP's oci_connect, and a login (smtplib, ftplib, imaplib, a
 * test's page object).
 */
const USER_THEN_PASSWORD = String.raw`(?:(?<![\w$])(?:login|(?:HTTP|[Ss]et|[Ww]ith)?(?:[Bb]asic|[Dd]igest)Auth`
  + String.raw`(?:entication(?:Interceptor)?)?|(?:basic|digest)_auth|HTTPProxyAuth|NetworkCredential`
  + String.raw`|UsernamePassword(?:Credentials|AuthenticationToken)|PasswordAuthentication|simple_bind(?:_s)?`
  + String.raw`|oci_connect|cx_Oracle\.connect|Credentials\.basic)|\.auth)`

/**
 * Calls that take a database or a host, a user, then the password: Sequelize, PHP's mysqli and PDO, MySQLdb,
 * PyMySQL and pymssql's connect, ftplib's FTP, keyring's set_password.
 */
const HOST_USER_THEN_PASSWORD = String.raw`(?<![\w$])(?:Sequelize|mysqli(?:_connect)?|mysql_connect|PDO|FTP(?:_TLS)?`
  + String.raw`|(?:pymysql|MySQLdb|pymssql|_mysql)\.connect|keyring\.set_password)`

/**
 * Calls whose password is the last of two arguments or three: JDBC's DriverManager.getConnection(url, user, password)
 * and a DataSource's getConnection(user, password), Firebase's signInWithEmailAndPassword(auth, email, password) and
 * its older (email, password). Of two, only when a third does not follow: in getConnection(url, "bob", password), the
 * user is no password.
 */
const LAST_OF_TWO_OR_THREE = String.raw`(?<![\w$])(?:getConnection|(?:signIn|createUser)WithEmailAndPassword)`

/**
 * How every name of the call rule ends, in the pattern's case (`HTTPBasicAuth` and `.auth` end in `Auth` and `auth`,
 * `signInWithEmailAndPassword` in `Password`).
 */
const CALL_NAME_ENDINGS = ["login", "Auth", "auth", "Authentication", "Interceptor", "Credential", "Credentials"]
  .concat(["Token", "bind", "bind_s", "connect", "basic", "Sequelize", "mysqli", "PDO", "FTP", "FTP_TLS"])
  .concat(["set_password", "getConnection", "Password"])

/** The longest of CALL_NAME_ENDINGS. */
const CALL_NAME_ENDING_LENGTH = Math.max(...CALL_NAME_ENDINGS.map((ending) => ending.length))

/** Whether a `(` follows (after blanks) a word that ends as one of the call rule's names: read without a regex. */
const callsANameEnding = (text: string): boolean => {
  for (let open = text.indexOf("("); open !== -1; open = text.indexOf("(", open + 1)) {
    let end = open
    while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end--
    const before = text.slice(Math.max(0, end - CALL_NAME_ENDING_LENGTH), end)
    if (CALL_NAME_ENDINGS.some((ending) => before.endsWith(ending))) return true
  }
  return false
}

/**
 * What every match of the call rule holds: a `(` after one of its names. A `(` after a word ending as a name does is
 * found first, without a regex (a hook's process would compile this one for every text with a `(` in it); then, in
 * the regex, the `(` first and the name before it: a search for the names themselves, one by one or as a regex's
 * alternatives, costs some ten times more on a long text. Built on first use, as the rules are.
 */
let callHint: RegExp | undefined

const CALL_HINT: Hint = {
  test: (text) =>
    callsANameEnding(text)
    && (callHint ??= new RegExp(
      String.raw`\((?<=(?:${USER_THEN_PASSWORD}|${HOST_USER_THEN_PASSWORD}|${LAST_OF_TWO_OR_THREE})[ \t]*\()`
    )).test(text)
}

/** A Go MySQL driver's DSN without a scheme (`bob:x@tcp(db:3306)/app`, `@unix(/run/mysqld.sock)`): its protocols. */
const DSN_PROTOCOL = String.raw`@(?:tcp[46]?|udp[46]?|unix)\(`

/** Blocks that end a Terraform variable's: the next block at the file's top level. */
const TERRAFORM_BLOCK = String.raw`(?:variable|resource|data|module|output|locals|provider|terraform)\b`

/**
 * Credentials passed in code by position, where no name says what they are: a call's argument, a tuple's element, a
 * DSN's password, a Terraform variable's default. Only a string literal is masked: a name or an expression in its
 * place (`login(user, password)`, `getpass()`) is code, and holds no secret.
 */
const CODE_CALL_RULES: ReadonlyArray<SecretRule> = [
  // A user and a password as a tuple or a list under a credential's name: requests' auth=("bob", "x"), Guzzle's
  // 'auth' => ['bob', 'x'], {"auth": ["bob", "x"]}; the second element is the password, and one alone is the
  // credential (`password = ("x")`). A scheme is no password (`auth: ["basic", "digest"]`). The `(` or `[` is found
  // first, then the name before it (a lookbehind): tried from every name's start, as the generic rules are, the search
  // cost as much as one of them, 2.5 ms on 200 KB of source; so, 0.3 ms.
  lazyRule(
    "credential",
    String.raw`(?<keep>[(\[](?<=${NAME_START}${NAME_PREFIX}${SENSITIVE_NAME}${ESCAPES}["']?\]?${TYPE_ANNOTATION}`
      + String.raw`[ \t]*(?::?=|=>|:)[ \t]*[(\[])${ARGUMENT_GAP}(?:${BEFORE}|(?!${BEFORE}))${LITERAL_OPEN})${LITERAL}`,
    "gi",
    CREDENTIAL_HINT,
    (value) => (AUTH_SCHEME_SET.has(value.toLowerCase()) ? 0 : value.length)
  ),
  // A call's password by position (USER_THEN_PASSWORD, HOST_USER_THEN_PASSWORD, LAST_OF_TWO_OR_THREE):
  // HTTPBasicAuth('bob', 'x'), smtp.login(user, "x"), new PDO($dsn, 'bob', 'x'), getConnection(url, "bob", "x").
  lazyRule(
    "credential",
    String.raw`(?<keep>\((?:(?<=${USER_THEN_PASSWORD}[ \t]*\()${ARGUMENT_GAP}${BEFORE}`
      + String.raw`|(?<=${HOST_USER_THEN_PASSWORD}[ \t]*\()${ARGUMENT_GAP}${BEFORE}${BEFORE}`
      + String.raw`|(?<=${LAST_OF_TWO_OR_THREE}[ \t]*\()${ARGUMENT_GAP}`
      + String.raw`(?:${BEFORE}${BEFORE}|(?!${BEFORE}${BEFORE})${BEFORE}))${LITERAL_OPEN})${LITERAL}`,
    "g",
    CALL_HINT
  ),
  // A Go MySQL driver's DSN, which has no scheme for the URL rule: sql.Open("mysql", "bob:x@tcp(db:3306)/app"). The
  // user starts the string or the value; the password runs to the `@` before the protocol, and may hold another.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<=^|[\s"'\x60=])[^\s:@"'\x60=/]{1,128}:)[^\s"'\x60]{1,128}?(?=${DSN_PROTOCOL})`,
    "gm",
    contains("@tcp", "@udp", "@unix")
  ),
  // A Terraform variable named as a credential: its default (`variable "db_password" {` then `default = "x"`), on the
  // block's line or one of the 20 below it, before a line that closes the block or starts another.
  lazyRule(
    "credential",
    String.raw`(?<keep>\bvariable[ \t]+"${NAME_PREFIX}${SENSITIVE_NAME}"[ \t]*\{`
      + String.raw`(?:[ \t]*(?:(?:#|\/\/)[^\r\n]{0,200})?\r?\n`
      + String.raw`(?:(?![ \t]*default[ \t]*=|\}|${TERRAFORM_BLOCK})[^\r\n]{0,500}\r?\n){0,20})?`
      + String.raw`[ \t]*default[ \t]*=[ \t]*")${VALUE}`,
    "gi",
    { test: (text) => lowerCased(text).includes("variable") && /variable[ \t]+"/i.test(text) }
  )
]

/**
 * Not a word of prose where a flag is named in a sentence (`the -storepass flag.`, `-storepass and -keypass`, `if -P
 * is left out`), nor the punctuation after it (`with -P, and`): where a command's flag is the only sign of a
 * password, the word after it may be no password.
 */
const NOT_PROSE = String.raw`(?!(?:(?:a|an|and|are|as|flag|for|is|option|or|the|to|was|with)[.,;:!?)]{0,3}`
  + String.raw`|[.,;:!?)]{1,3})(?:[\s"'\\]|$))`

/**
 * What echo or printf prints, as a password piped into a program that reads it (`echo 'X' | chpasswd`), starting
 * `prefix` after its opening quote if any (`'root:X'`, the password after `root:`): single-quoted, a literal whatever
 * it holds (`'$3cr3t'`); double-quoted up to a quote no backslash escapes, or escaped as deeply as its opening quote
 * (ESCAPED_QUOTED); or a bare word. A double-quoted or bare one that starts with `$` is a reference (`$TOKEN`,
 * `"${TOKEN}"`, `$(cat f)`): it names where the password is, not what; so does code that builds the command around a
 * variable (`"echo '" + password + "' | sudo -S"`). Each reads to its closing quote, or its word's end, at most.
 */
const echoed = (prefix: string): string =>
  String.raw`(?!["'\x60][ \t]*\+)(?:(?<=(?<!\\)'${prefix})[^'\r\n]+(?=')|(?!\$)(?:${escapedQuoted(prefix)}`
  + String.raw`|(?<=(?<!\\)"${prefix})(?:(?!${UNESCAPED_QUOTE})[^\r\n])+?(?=${UNESCAPED_QUOTE})`
  + String.raw`|(?!${ESCAPES}["'])[^\s"'\x60|;&<>]+))`

/** A user before its password, as chpasswd reads them (`root:X`). */
const CHPASSWD_USER = String.raw`[^\s:"'\\|;&<>]{1,64}:`

/** The opening quote of a word, if any: bash's `$'...'` and `$"..."` too, which are literals. */
const OPENING_QUOTE = String.raw`(?:\$(?=${ESCAPES}["']))?${ESCAPES}["']?`

/** echo or printf, with their flags or format (`echo -n`, `printf '%s\n'`), up to what they print. */
const ECHO = String.raw`\b(?:echo(?:[ \t]+-[neE]{1,3})*|printf(?:[ \t]+${ESCAPES}["']%s(?:\\{1,32}n)?${ESCAPES}["'])?)`
  + String.raw`[ \t]+${OPENING_QUOTE}`

/**
 * A program reading a password from stdin: a login's --password-stdin (docker's, podman's, helm registry's), passwd
 * (`--stdin`, or twice as Debian's reads it), smbpasswd -s, htpasswd -i, sudo -S. passwd is the program, by its name
 * or in a bin folder, not the file (`echo 'bob:x:1001:...' | sudo tee -a /etc/passwd`).
 */
const STDIN_READER =
  String.raw`(?:[ \t]--password-stdin\b|(?<![\w./-])(?:(?:\/usr)?\/s?bin\/)?(?:smb|ht)?passwd(?![\w.-])`
  + String.raw`|\bsudo\b[^\r\n|;&<]{0,100}?[ \t](?:-[a-zA-Z]*S[a-zA-Z]*|--stdin)\b)`

/**
 * `env ` where a Dockerfile's ENV line starts, which every match of its rule holds: source code is full of `env `
 * elsewhere (`const env = ...`). The cheap search first.
 */
const ENV_LINE_HINT: Hint = {
  test: (text) => holdsInAnyCase(text, "env ", "env\t") && /(?:^|\\n|["\x60])[ \t]*env[ \t]/im.test(text)
}

/** A pipe into another command on the same line (`| sudo chpasswd`), the first blanks and flags of it. */
const PIPED_INTO = String.raw`${ESCAPES}["']?[ \t]*\|(?!\|)[^\r\n|;&]{0,200}?`

/** Commands where the value follows a flag that does not name it: `mysql -pX`, `curl -u user:X`. */
const SHELL_RULES: ReadonlyArray<SecretRule> = [
  // mysql's password is glued to -p (`-p X` asks for it and names a database); sshpass, redis-cli, a
  // registry login (`docker login -u me -p X`), MongoDB's shell and tools (`mongo -u admin -p X`), OpenLDAP's
  // clients (`ldapsearch -D cn=admin -w X`) take the next word; smbclient and rpcclient the rest of
  // `-U user%X`; htpasswd's batch mode the word after the file and the user (`htpasswd -b .htpasswd admin X`).
  lazyRule(
    "credential",
    String.raw`(?<keep>(?:\b(?:mysql|mariadb)[\w-]*[^\r\n|;&]{0,200}?[ \t]-p|\bsshpass[ \t]+-p[ \t]*`
      + String.raw`|\bredis-cli\b[^\r\n|;&]{0,200}?[ \t]-a[ \t]+|\blogin\b[^\r\n|;&]{0,200}?[ \t]-p[ \t]+`
      + String.raw`|\bmongo(?:sh|dump|restore|import|export|stat|top|files)?\b[^\r\n|;&]{0,200}?[ \t]-p[ \t]+`
      + String.raw`|\bldap[a-z]{3,8}\b[^\r\n|;&]{0,200}?[ \t]-w[ \t]+`
      + String
        .raw`|\b(?:smb|rpc)client\b[^\r\n|;&]{0,200}?[ \t](?:-U|--user)(?:[ \t]+|=)${ESCAPES}["']?[^\s%"']{1,128}%`
      + String
        .raw`|\bhtpasswd[ \t]+-[a-zA-Z]*b[a-zA-Z]*(?:[ \t]+-[a-zA-Z]+){0,3}[ \t]+[^\s-]\S{0,255}[ \t]+\S{1,255}[ \t]+)`
      + String.raw`${ESCAPES}["']?)${VALUE}`,
    "g",
    contains("mysql", "mariadb", "sshpass", "redis-cli", "login", "mongo", "ldap", "client", "htpasswd")
  ),
  {
    // user:password after curl's or wget's -u/--user, kept as `user:`.
    kind: "credential",
    pattern: new RegExp(
      String.raw`(?<keep>\b(?:curl|wget|http|xh)\b[^\r\n|;&]{0,300}?[ \t](?:-u|-U|--user|--proxy-user)(?:[ \t]+|=)?`
        + String.raw`${ESCAPES}["']?[^\s:"'\\]{0,128}:)[^\s"'\\]+`,
      "g"
    ),
    hint: contains("curl", "wget", "http", "xh")
  },
  // `aws configure set aws_secret_access_key X`, `npm config set //registry/:_authToken X`,
  // `git config user.password X`.
  lazyRule(
    "credential",
    String.raw`(?<keep>\bconfig(?:ure)?(?:[ \t]+--?[\w-]+){0,3}[ \t]+(?:set[ \t]+)?[\w.:\/-]{0,80}?`
      + String.raw`${SENSITIVE_NAME}[ \t]+${ESCAPES}["']?)${VALUE}`,
    "gi",
    contains("config")
  ),
  // Yarn 1's .yarnrc sets npm's credential keys with a blank, not `=`, and quotes both sides:
  // `"//registry.npmjs.org/:_authToken" "0a1b..."`, `_auth dXNlcjpwYXNz`. Only npm's own key names, at a line's start:
  // elsewhere a word and a quoted string apart by a blank are prose.
  lazyRule(
    "credential",
    String.raw`(?<keep>^[ \t]*"?[^\s"]{0,200}?(?<!\w)_(?:authToken|auth|password)"?[ \t]+(?![=:])${ESCAPES}["']?)`
      + VALUE,
    "gm",
    contains("_auth", "_password")
  ),
  // zip's and unzip's -P, apart, glued or last of a group of flags (`zip -r -P X out.zip dir`, `zip -rP X`), and
  // 7-Zip's -p, glued (`7z a -pX out.7z dir`; `7z x -p` alone asks for it). The program is a word of its own:
  // `wget https://x/f.zip -P /tmp` is wget's -P.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<![\w.-])(?:(?:un)?zip(?:\.exe)?[ \t](?:[^\r\n|;&]{0,200}?[ \t])?-[a-zA-Z\d]{0,10}?P[ \t]*`
      + String.raw`|7z[a-z]{0,2}(?:\.exe)?[ \t](?:[^\r\n|;&]{0,200}?[ \t])?-p)${ESCAPES}["']?)${NOT_PROSE}${VALUE}`,
    "g",
    { test: (text) => (text.includes("zip") && text.includes("P")) || (text.includes("7z") && text.includes("-p")) }
  ),
  // 7-Zip's -p switch quoted whole, as Windows scripts quote it (`7z a "-pX Y" out.7z`): the rest of the quoted switch.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<![\w.-])7z[a-z]{0,2}(?:\.exe)?[ \t](?:[^\r\n|;&]{0,200}?[ \t])?${ESCAPES}["']-p)${
      echoed("-p")
    }`,
    "g",
    contains("7z")
  ),
  // A password echo or printf pipes into chpasswd, or a group's into chgpasswd, as Dockerfiles set root's
  // (`RUN echo 'root:Docker!' | chpasswd`, `echo "root:X" | sudo chpasswd`): what follows the user, which is kept.
  lazyRule(
    "credential",
    String.raw`(?<keep>${ECHO}${CHPASSWD_USER})${echoed(CHPASSWD_USER)}(?=${PIPED_INTO}\bchg?passwd\b)`,
    "g",
    contains("chpasswd", "chgpasswd")
  ),
  // A password echo or printf pipes into a program that reads one from stdin (STDIN_READER: `echo X | docker login -u
  // bob --password-stdin`, `echo X | sudo -S make`): any literal they print is one.
  lazyRule(
    "credential",
    String.raw`(?<keep>${ECHO})${echoed("")}(?=${PIPED_INTO}${STDIN_READER})`,
    "g",
    contains("-stdin", "passwd", "sudo")
  ),
  // The same as a here-string: `chpasswd <<< 'root:X'`, `docker login -u bob --password-stdin <<< X`.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?:\bchg?passwd\b[^\r\n|;&<]{0,200}?<<<[ \t]*${OPENING_QUOTE}${CHPASSWD_USER}`
      + String.raw`|${STDIN_READER}[^\r\n|;&<]{0,200}?<<<[ \t]*${OPENING_QUOTE}))`
      + echoed(`(?:${CHPASSWD_USER})?`),
    "g",
    contains("<<<")
  ),
  // Windows' net user setting an account's password (`net user bob X /add`, `NET USER "Jane Doe" X`): the word after
  // the user, where the command ends, its options (`/add`, `/domain`) or a redirection follow; a sentence goes on
  // with words. `net user bob *` prompts for it, and `net user bob /delete` has none.
  lazyRule(
    "credential",
    String.raw`(?<keep>\bnet[ \t]+user[ \t]+(?:${ESCAPES}"[^"\\\r\n]{1,256}${ESCAPES}"|[^\s"'/\\][^\s"'\\]{0,255})`
      + String.raw`[ \t]+${ESCAPES}["']?)(?!\/|\*(?![^\s"'\\]))${NOT_PROSE}${VALUE}`
      + String.raw`(?=${ESCAPES}["']?[ \t]+(?:\/|\d?[<>])|${ESCAPES}["'][ \t]*(?:$|[;&|)}\],<>]|\\[nr])`
      + String.raw`|[ \t]*(?:$|[;&|)<>]|\\[nr"]))`,
    "gim",
    { test: (text) => lowerCased(text).includes("user") && /net[ \t]+user/i.test(text) }
  ),
  // SQL Server's sqlcmd, bcp and osql take the password after -P, apart or glued; RabbitMQ's rabbitmqctl after the
  // user it adds, changes or checks (`rabbitmqctl add_user bob X`).
  lazyRule(
    "credential",
    String.raw`(?<keep>(?:\b(?:sqlcmd|bcp|osql)(?:\.exe)?[ \t](?:[^\r\n|;&]{0,200}?[ \t])?-P[ \t]*`
      + String
        .raw`|\brabbitmqctl(?:\.bat)?[ \t](?:[^\r\n|;&]{0,200}?[ \t])?(?:add_user|change_password|authenticate_user)`
      + String.raw`[ \t]+${ESCAPES}["']?[^\s"'\\]{1,256}${ESCAPES}["']?[ \t]+)${ESCAPES}["']?)${NOT_PROSE}${VALUE}`,
    "g",
    contains("sqlcmd", "bcp", "osql", "rabbitmqctl")
  ),
  // gh secret set's value (`gh secret set NAME --body X`, `-b X`, `--body=X`, `-bX`). gh variable set's is no secret,
  // and `gh secret set NAME < file` or `--body-file f` reads it from a file.
  lazyRule(
    "credential",
    String
      .raw`(?<keep>\bgh(?:\.exe)?[ \t]+secret[ \t]+set\b[^\r\n|;&]{0,200}?[ \t](?:--body(?:[ \t]+|=)|-b(?:[ \t]+|=)?)`
      + String.raw`${ESCAPES}["']?)${NOT_PROSE}${VALUE}`,
    "g",
    { test: (text) => text.includes("secret") && /secret[ \t]+set/.test(text) }
  ),
  // A Dockerfile's ENV in its legacy form, `ENV name value` (`ENV DB_PASS X`), under a credential's name (or Rails'
  // secret_key_base): the rest of the line, as Docker reads it. At a line's start, an escaped one's in a JSON string
  // (a Write tool's input), or a string's or a code span's (`"ENV DB_PASS X"`, an Edit's line quoted as JSON); the
  // value ends at the line's end, an escaped line break, a quote (escaped or not: Docker's value holds none bare) or a
  // backtick, each looked for where a run of backslashes starts, so a run is read once (lazily: UNESCAPED_QUOTE). Its
  // `=` form is the assignment rule's. `ENV PWD /srv/app` is the working directory.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?:^|(?<=\\n|["\x60]))[ \t]*ENV[ \t]+(?!pwd[ \t]+\/)[\w.-]{0,40}?`
      + String.raw`(?:${SENSITIVE_NAME}|secret_key_base)[ \t]+${ESCAPES}["']?)${NOT_PROSE}`
      + String.raw`(?:(?<=["'])${VALUE}|${NOT_A_PLACEHOLDER}(?!\s|\\*["\x60]|\\+[nr])`
      + String.raw`[^\r\n]+?(?=(?<!\\)\\*["\x60]|(?<!\\)\\+[nr]|$))`,
    "gim",
    ENV_LINE_HINT
  )
]

/**
 * keytool's and jarsigner's keystore and key passwords, each where it stands (`-storepass X -keypass X`; importing a
 * keystore, -srcstorepass, -deststorepass, -srckeypass, -destkeypass), and the new one `keytool -storepasswd` or
 * `-keypasswd` sets (`-new X`). `-storepass:env NAME` and `-storepass:file F` say where a password is, not what.
 * Before the CLI flag rule, which takes `-storepasswd` for a flag and would mask `-new` as its value, leaving the
 * password after it.
 */
const KEYTOOL_RULE: SecretRule = lazyRule(
  "credential",
  String.raw`(?<keep>(?:(?<![\w-])-(?:src|dest)?(?:store|key)pass|\bkeytool(?:\.exe)?[ \t]+-(?:store|key)passwd\b`
    + String.raw`[^\r\n|;&]{0,200}?[ \t]-new)[ \t]+${ESCAPES}["']?)${NOT_PROSE}${VALUE}`,
  "g",
  contains("storepass", "keypass")
)

/**
 * Prose and loose notes: `the db password: X`, `token is X`, `API key abc123...`. The name alone is weak
 * evidence here, so the value must look like a secret (see `opaqueLength`), not like a word or a path.
 */
/**
 * In prose a bare `pass` names a password only with a `:`/`=` or a linking word after it (`pass: x`, `pass is
 * x`): followed by a space alone it is a test runner's verdict (`PASS ZEBRA-7731`, `PASS test_2fa_login`).
 */
const PROSE_NAME = SENSITIVE_NAME.replace(
  String.raw`(?<![a-z])pass`,
  String.raw`(?<![a-z])pass(?=[ \t]*[:=]|[ \t]+(?:is|was|now|set)\b)`
)

/**
 * What every match of the prose rule contains: a name ending as the pattern's names end, then a blank, `:` or `=`
 * (the linking words and the separator start with one); a bare `pass` only with `:`/`=` or a linking word after it.
 * Test output is full of the words (`12 passed`, `PASS src/x.test.ts`, `tokens.ts`) without that, and the prose
 * pattern is large to compile and run. Its names are the pattern's, spelled out (a hint built from the pattern is
 * nearly as large): a name added to SENSITIVE_NAME goes here too, and into the test's SENSITIVE_WORDS.
 */
const PROSE_NAME_HINT = new RegExp(
  String.raw`(?:pass(?:w(?:or)?d|phrase)|pwd?|secrets?|token|key|auth(?:ident)?|credentials?|cookie`
    + String.raw`|\uD638|\uB4DC|\uD070|\uD0A4|\uBC88|\uB9BF)`
    + String.raw`(?:[ \t:=]|'s[ \t]|${KOREAN_PARTICLE}[ \t])`
    + String.raw`|pass(?:[ \t]*[:=]|[ \t]+(?:is|was|now|set)\b)`,
  "i"
)

/**
 * A short phrase naming whose credential it is, before a linking word or a colon: `the password for the staging db is
 * X`, `the token of the bot was X`, `the root password for prod: X`. Bounded, and it must end at ` is`/` was`/`:`.
 */
const PROSE_QUALIFIER = String.raw`(?:[ \t]+(?:for|of)(?:[ \t]+[\w.-]{1,40}){1,4}?(?=[ \t]+(?:is|was)\b|[ \t]*:))?`

const PROSE_RULE: SecretRule = lazyRule(
  "credential",
  String.raw`(?<keep>(?<![\w.\[-])[\w.-]{0,40}?${PROSE_NAME}(?:[ \t]?${KOREAN_PARTICLE}(?=[ \t]))?${PROSE_QUALIFIER}`
    + String.raw`(?:'s(?=[ \t])|[ \t]+(?:is|was|now|(?:set|changed|reset|updated|rotated)[ \t]+to|to)\b){0,2}`
    + String.raw`(?:[ \t]*[:=][ \t]*|[ \t]+)["'\x60]?)[^\s"'\x60]+`,
  "gi",
  { test: (text) => PROSE_NAME_HINT.test(text) },
  (value) => opaqueLength(value)
)

/**
 * Prose that gives the value before its name: `use X as the password`, `I used X as the admin token`, and in Korean
 * `X를 비밀번호로 설정`. As in PROSE_RULE the value must look like a secret (`opaqueLength`).
 */
const VALUE_BEFORE_NAME_PROSE: ReadonlyArray<SecretRule> = [
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<![\w.-])us(?:e|es|ed|ing)[ \t]+["'\x60]?)[^\s"'\x60]+`
      + String.raw`(?=["'\x60]?[ \t]+as[ \t]+(?:[\w.-]{1,40}[ \t]+){0,3}?${SENSITIVE_NAME}(?![\w-]))`,
    "gi",
    {
      test: (text) =>
        holdsInAnyCase(text, " as ", "\tas ", " as\t", "\tas\t")
        && /(?<![\w.-])us(?:e|es|ed|ing)[ \t]/i.test(text)
    },
    (value) => opaqueLength(value)
  ),
  // The object particle after the value (을/를, attached or after a blank), the name with 로/으로 after it. The value is
  // the ASCII run it ends: read once from its start (`(?<![\x21-\x7e])`), however long.
  lazyRule(
    "credential",
    String.raw`(?<![\x21-\x7e])[\x21-\x7e]+?(?=[ \t]?[\uC744\uB97C][ \t]+${SENSITIVE_NAME}`
      + String.raw`[ \t]?\uC73C?\uB85C)`,
    "gi",
    { test: (text) => text.includes("\uB85C") && /[\uC744\uB97C][ \t]/.test(text) },
    (value) => opaqueLength(value)
  )
]

/**
 * An account given as a user and a password with no name for the password: `login: admin / X`, `log in with admin/X`,
 * `계정은 admin / X`, `admin/X로 로그인`, `user admin pass X`. The password must look like a secret (`opaqueLength`):
 * `login / logout`, `account admin / settings` stay.
 */
const ACCOUNT_WORD = String.raw`(?:(?<![\w.-])(?:log(?:[ \t]?in|on)|sign[ \t]?in)(?:[ \t]+(?:with|as|using))?`
  + String.raw`|(?<![\w.-])(?:account|creds|credentials)`
  // 계정 (account), 로그인 (login), 아이디 (id)
  + String.raw`|\uACC4\uC815|\uB85C\uADF8\uC778|\uC544\uC774\uB514)`

/** What ACCOUNT_WORD's words start with, lower-cased: `log` of `login`, `logon`, `log in`; `cred` of `creds`. */
const ACCOUNT_WORD_STARTS = [
  "log",
  "sign",
  "account",
  "cred",
  "\uACC4\uC815",
  "\uB85C\uADF8\uC778",
  "\uC544\uC774\uB514"
]

/** Where the line holding `at` ends: its first line break from `at`, or the text's end. */
const lineEndFrom = (text: string, at: number): number => {
  const n = text.indexOf("\n", at)
  const r = text.indexOf("\r", at)
  return Math.min(n === -1 ? text.length : n, r === -1 ? text.length : r)
}

/**
 * What every match of the first account rule holds: an account's word with a slash after it on its line. Read
 * without a regex, each word's next slash and line end found once for all its occurrences after them: most text has
 * a slash (a path) and one of the words somewhere (`catalog`, `assign`), and the rule's pattern is large to compile.
 */
const ACCOUNT_HINT: Hint = {
  test: (text) => {
    if (!text.includes("/")) return false
    const lower = lowerCased(text)
    for (const word of ACCOUNT_WORD_STARTS) {
      let slash = -1
      let lineEnd = -1
      for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) {
        // An English word starts a word (`assign`, `catalog` hold none); a Korean one may follow anything.
        if (at > 0 && isLetter(word.charCodeAt(0)) && isNameCharacter(lower.charCodeAt(at - 1))) continue
        if (slash < at && (slash = lower.indexOf("/", at)) === -1) break
        if (lineEnd < at) lineEnd = lineEndFrom(lower, at)
        if (slash < lineEnd) return true
      }
    }
    return false
  }
}

/** A password after `user/`, unless it is a path (`login: POST /api/v1/login`): one with a slash is taken for one. */
const passwordLength = (value: string): number => (value.includes("/") ? 0 : opaqueLength(value))

const ACCOUNT_RULES: ReadonlyArray<SecretRule> = [
  lazyRule(
    "credential",
    String.raw`(?<keep>${ACCOUNT_WORD}(?:[ \t]?${KOREAN_PARTICLE}(?=[ \t]))?(?:[ \t]*[:=][ \t]*|[ \t]+)`
      + String.raw`["'\x60]?[^\s/"'\x60:]{1,64}["'\x60]?[ \t]*\/[ \t]*["'\x60]?)[^\s"'\x60]+`,
    "gi",
    ACCOUNT_HINT,
    passwordLength
  ),
  // `admin/X로 로그인` (log in with admin/X): the pair before the verb.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<![\x21-\x7e])(?:(?![/"'\x60])[\x21-\x7e]){1,64}\/)[\x21-\x7e]+?`
      + String.raw`(?=[ \t]?\uC73C?\uB85C[ \t]+\uB85C\uADF8\uC778)`,
    "g",
    contains("\uB85C\uADF8\uC778"),
    passwordLength
  ),
  // A bare `pass` after a user and their name: `user admin pass X` (alone, `pass` is a test runner's verdict).
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<![\w.-])user(?:name)?(?:[ \t]*[:=][ \t]*|[ \t]+)[^\s,;]{1,64}[ \t]*[,;]?[ \t]+pass[ \t]+)`
      + String.raw`[^\s"'\x60]+`,
    "gi",
    { test: (text) => holdsInAnyCase(text, "user") && holdsInAnyCase(text, "pass ", "pass\t") },
    (value) => opaqueLength(value)
  )
]

/** How the filter's own markers start (`[secret:kind]`): a value holding one is already masked. */
const SECRET_MARKER = "[secret:"

/**
 * Punctuation that ends a sentence or a list item rather than a secret: `the token is Xy9z.` Matched only from the
 * start of a run: tried from each of its characters, a long run inside the value would be read to its end once per
 * character.
 */
const TRAILING = /(?<![.,;:!?)\]}>])[.,;:!?)\]}>]+$/

/**
 * A Korean particle or ending written onto a value (`X로 바꿔`, `X야`, `X입니다`), after a character of the value
 * (ASCII): it is the sentence's, not the secret's, and stays in the text.
 */
const KOREAN_ENDING = new RegExp(
  // (으)로, (이)야, 입니다, 이에요, 예요, (이)(라)고, 에서; one syllable: 에, 도, 요, 을, 를, 이, 가, 은, 는.
  String.raw`(?<=[\x21-\x7e])(?:\uC73C?\uB85C|\uC774?\uC57C|\uC785\uB2C8\uB2E4|\uC774\uC5D0\uC694|\uC608\uC694`
    + String.raw`|\uC774?\uB77C?\uACE0|\uC5D0\uC11C|[\uC5D0\uB3C4\uC694\uC744\uB97C\uC774\uAC00\uC740\uB294])$`
)

/**
 * How much of a loose value is an opaque secret (0: none). It is, when it is at least 8 characters
 * long, not a path, a URL or a plain word, and mixes character classes: letters with digits or symbols
 * (`hunter2x`, `Tr0ub4dor-and-3`), or it is long and random (Shannon entropy of 3.5 bits per character).
 */
export const opaqueLength = (raw: string): number => {
  const value = raw.replace(TRAILING, "").replace(KOREAN_ENDING, "").replace(TRAILING, "")
  if (value.length < 8 || value.includes(SECRET_MARKER) || value.includes("[private]")) return 0
  if (/^(?:[.~]?\/|[a-z][\w+.-]*:\/\/)/i.test(value) || /^[A-Za-z][a-z]*$/.test(value) || /^[\d.,:-]+$/.test(value)) {
    return 0
  }
  // A path, a dotted name or a file (`src/auth/token.ts`, `config.auth.token`) is not opaque.
  if (/^[\w-]+(?:[./][\w-]+)+$/.test(value) && !/\d/.test(value.replace(/\.[a-z]{1,4}$/, ""))) return 0
  const letters = /[A-Za-z]/.test(value)
  const digits = /\d/.test(value)
  const symbols = /[^A-Za-z0-9]/.test(value)
  if (letters && digits) return value.length
  const entropy = shannonEntropy(value)
  // Letters and symbols: not a lowercase word list (`print-access-token`, `user_name.first`).
  if (letters && symbols) return entropy >= 3.5 && !/^[a-z]+(?:[-_.][a-z]+)*$/.test(value) ? value.length : 0
  // Letters only: a long mixed-case random string (`qZxWvTrPlMnBkJhGfDsA`), not a CamelCase name.
  return value.length >= 20 && /[a-z]/.test(value) && /[A-Z]/.test(value) && entropy >= 4 ? value.length : 0
}

/**
 * How much of a query string's `sig=` value is a signature (0: none). An Azure SAS signs with HMAC-SHA256: 44
 * characters of base64, URL-encoded (`AbC%2Bdef...%3D`). It is one when it has at least 20 characters, counting an
 * escape (`%2B`) as the one it stands for, and mixes upper and lower case with a digit or a symbol of base64, or is
 * at least 32 hex digits; a short or word-like value (`sig=v2`, `sig=the_signature_name`) is not.
 */
const signatureLength = (value: string): number => {
  const decoded = value.replace(/%[\da-f]{2}/gi, "+")
  if (decoded.length < 20) return 0
  const base64 = /[A-Z]/.test(decoded) && /[a-z]/.test(decoded) && /[\d+/=]/.test(decoded)
  return base64 || /^[\da-f]{32}[\da-f]*$/i.test(decoded) ? value.length : 0
}

/**
 * How much of a value after `Basic` is a credential (0: none): all of it when it is padded base64, as HTTP Basic
 * authentication writes it, of text holding a colon (`user:password`, UTF-8, no control characters). A word of prose
 * after "Basic" ("Basic usage", "Basic Oracle") is seldom a multiple of four characters and decodes to bytes that
 * are not such text.
 */
const basicCredentialLength = (value: string): number => {
  if (value.length % 4 !== 0) return 0
  const decoded = Buffer.from(value, "base64").toString("utf8")
  return !decoded.includes("\ufffd") && /^[^\x00-\x1f\x7f]*:[^\x00-\x1f\x7f]*$/.test(decoded) ? value.length : 0
}

/** A PEM private key's label: `RSA PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, `PGP PRIVATE KEY BLOCK`. */
const PEM_PRIVATE_KEY = String.raw`(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?`

/**
 * The base64 lines that follow a key's first line when a tool wraps it (`base64` at 76 columns, a PEM body
 * at 64): whole lines only, so prose after the key is left. Linear: a line cannot consume a line break.
 */
const BASE64_LINES = String.raw`(?:\r?\n[A-Za-z0-9+/=]{16}[A-Za-z0-9+/=]*(?![^\r\n]))*`

/**
 * How a key's body starts in base64, with no PEM armour around it (`grep -v -- -----`, a `tail` of the file,
 * a Kubernetes `tls.key:`): PKCS#1/PKCS#8 RSA and any DER key whose version is 0 (`MII` + length + `IBA`;
 * certificates and public keys start `MII..zCC`/`MIIBIj`), PKCS#8 Ed25519, SEC1 and PKCS#8 P-256, OpenSSH.
 */
const KEY_BODY_PREFIXES = ["MC4CAQAwBQYDK2Vw", "MHcCAQEE", "MIGHAgEAMBMGByqGSM49", "b3BlbnNzaC1rZXktdjE"]

/**
 * `-----BEGIN` in base64 at each of the three byte alignments (`base64 -w0 key.pem`, a Kubernetes Secret's
 * `data:`), so a whole PEM file encoded on its own or inside a larger blob is masked from its armour on.
 */
const BASE64_BEGIN = ["LS0tLS1CRUdJTi", "LS0tQkVHSU4", "LS0tLUJFR0lO"]

export const SECRET_RULES: ReadonlyArray<SecretRule> = [
  // PEM blocks span lines. A BEGIN without its END masks to the end of the text: truncated keys must not leak.
  {
    kind: "private-key",
    pattern: new RegExp(
      String.raw`-----BEGIN ${PEM_PRIVATE_KEY}-----[\s\S]*?(?:-----END ${PEM_PRIVATE_KEY}-----|$)`,
      "g"
    ),
    hint: contains("PRIVATE KEY")
  },
  // An END whose BEGIN was cut off (`tail -n 4 id_rsa`): the run of base64 lines before it, from its first
  // line. A run starts only on a line not preceded by a base64 line, so each run is read once.
  {
    kind: "private-key",
    pattern: new RegExp(
      String
        .raw`^(?<!^[ \t]*[A-Za-z0-9+/=]+[ \t]*\r?\n)[ \t]*[A-Za-z0-9+/=]+[ \t]*(?:\r?\n[ \t]*[A-Za-z0-9+/=]+[ \t]*)*`
        + String.raw`\r?\n-----END ${PEM_PRIVATE_KEY}-----`,
      "gm"
    ),
    hint: contains("PRIVATE KEY")
  },
  {
    kind: "private-key",
    pattern: new RegExp(
      String.raw`(?:(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}IBA|${KEY_BODY_PREFIXES.join("|")})|${
        BASE64_BEGIN.join("|")
      })`
        + String.raw`[A-Za-z0-9+/=]*${BASE64_LINES}`,
      "g"
    ),
    hint: contains("MII", ...KEY_BODY_PREFIXES, ...BASE64_BEGIN)
  },
  { kind: "anthropic-key", pattern: /(?<![A-Za-z0-9-])sk-ant-[\w-]{20}[\w-]*/g, hint: contains("sk-ant-") },
  // After anthropic-key, which also starts with `sk-`. A digit is required so kebab-case words never match.
  {
    kind: "openai-key",
    pattern: /(?<![A-Za-z0-9-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]*\d)[\w-]{20}[\w-]*/g,
    hint: contains("sk-")
  },
  {
    kind: "github-token",
    pattern: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30}[A-Za-z0-9]*|github_pat_\w{30}\w*)/g,
    hint: contains("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")
  },
  // Vendors' keys the catalogue does not know, alone (`echo $GROQ_API_KEY` prints nothing else): Groq, Replicate, xAI,
  // a Google OAuth client secret, a Stripe webhook signing secret, an Atlassian API token.
  {
    kind: "vendor-token",
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9_-])(?:gsk_[A-Za-z0-9]{52}|r8_[A-Za-z0-9]{37}|xai-[A-Za-z0-9]{80}|GOCSPX-[\w-]{28}`
        + String.raw`|whsec_[A-Za-z0-9+/]{32}[A-Za-z0-9+/]*={0,2}|ATATT3[\w=-]{150}[\w=-]*)(?![A-Za-z0-9_-])`,
      "g"
    ),
    hint: contains("gsk_", "r8_", "xai-", "GOCSPX-", "whsec_", "ATATT3")
  },
  { kind: "gitlab-token", pattern: /(?<![A-Za-z0-9])glpat-[\w-]{20}[\w-]*/g, hint: contains("glpat-") },
  {
    kind: "slack-token",
    pattern: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10}[A-Za-z0-9-]*/g,
    hint: contains("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-")
  },
  {
    kind: "slack-webhook",
    pattern: /(?<keep>https:\/\/hooks\.slack\.com\/services\/)[\w/-]+/g,
    hint: contains("hooks.slack.com")
  },
  {
    kind: "stripe-key",
    pattern: /(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16}[A-Za-z0-9]*/g,
    hint: contains("_live_", "_test_")
  },
  { kind: "google-api-key", pattern: /(?<![A-Za-z0-9])AIza[\w-]{35}(?![\w-])/g, hint: contains("AIza") },
  { kind: "npm-token", pattern: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![\w-])/g, hint: contains("npm_") },
  // The secret key beside its access key id, unnamed: the credentials CSV the AWS console hands out
  // (`AKIA...,wJalr...`), a line of a table or a listing. Before the id's own rule, which would mask the id it needs.
  {
    kind: "aws-secret-key",
    pattern: new RegExp(
      String.raw`(?<keep>(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?:[ \t]*[,;|\t][ \t]*|[ \t]+)["']?)`
        + String.raw`[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
      "g"
    ),
    hint: contains("AKIA", "ASIA", "ABIA", "ACCA")
  },
  {
    kind: "aws-access-key",
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    hint: contains("AKIA", "ASIA", "ABIA", "ACCA")
  },
  // Google OAuth access tokens; SendGrid keys in any length (the catalogue's rule wants exactly 66 characters).
  { kind: "google-oauth-token", pattern: /(?<![A-Za-z0-9])ya29\.[\w-]{20}[\w-]*/g, hint: contains("ya29.") },
  { kind: "sendgrid-key", pattern: /(?<![A-Za-z0-9])SG\.[\w-]{16}[\w-]*\.[\w-]{16}[\w-]*/g, hint: contains("SG.") },
  // A PuTTY key file's private part: the base64 lines after `Private-Lines: N`.
  {
    kind: "private-key",
    pattern: /(?<keep>Private-Lines:[ \t]*\d+\r?\n)[A-Za-z0-9+/=]+(?=\r?\n|$)(?:\r?\n[A-Za-z0-9+/=]+(?=\r?\n|$))*/g,
    hint: contains("Private-Lines")
  },
  { kind: "jwt", pattern: /(?<![\w-])eyJ[\w-]{10}[\w-]*\.[\w-]{10}[\w-]*\.[\w-]*/g, hint: contains("eyJ") },
  // scheme://user:password@host keeps the user and host; `@` and `/` may appear unencoded in the password.
  // A port and a path before an `@` (`http://localhost:5173/@vite/client`) is not one.
  {
    kind: "url-password",
    pattern: /(?<keep>(?<![\w+.-])[A-Za-z][\w+.-]{0,30}:\/\/[^\s:/@]{0,256}:)(?!\d*(?:[/?#]|$))\S{1,256}(?=@)/g,
    hint: contains("://")
  },
  // A header value runs to the end of the line or the closing quote, whatever the scheme.
  {
    kind: "authorization",
    pattern: new RegExp(
      String.raw`(?<keep>\b(?:proxy-)?authorization${ESCAPES}["']?[ \t]*[:=][ \t]*(?:\[[ \t]*)?${ESCAPES}["']?`
        + String.raw`(?:(?:bearer|basic|token|digest|negotiate|bot)[ \t]+)?)[^\s"'\\][^\r\n"'\\]*`,
      "gi"
    ),
    hint: /authorization/i
  },
  // Outside a header, only token-like credentials after Bearer/Basic: prose such as "Basic usage" has no digit.
  {
    kind: "bearer-token",
    pattern: /(?<keep>\b(?:bearer|basic)[ \t]+)(?=[A-Za-z._~+/-]*\d)[\w.~+/-]{16}[\w.~+/-]*=*/gi,
    hint: /bearer|basic/i
  },
  // Basic and base64 that decodes to `user:password` (see basicCredentialLength), wherever it is: Maven's
  // <value>Basic ...</value> under an Authorization header's <name>, a log of request headers. The rule above needs a
  // digit, and a short credential often encodes without one (`bob:bob` is `Ym9iOmJvYg==`).
  {
    kind: "bearer-token",
    pattern: /(?<keep>\bbasic[ \t]+)[A-Za-z0-9+/]{4}[A-Za-z0-9+/]*={0,2}(?![\w+/=.~-])/gi,
    hint: /basic[ \t]/i,
    secretLength: basicCredentialLength
  },
  // An Azure Shared Access Signature named as one: a connection string's SharedAccessSignature=sv=...&sig=..., a
  // Service Bus token after its scheme (SharedAccessSignature sr=...&sig=...&se=...&skn=...). The whole token is
  // masked, up to the connection string's next `;` (an XML-escaped `&amp;` is part of it). It must start as a SAS
  // query does, with a parameter (`sv=`, `?sp=`), so C# names and prose about the scheme are left.
  {
    kind: "azure-sas",
    pattern: new RegExp(
      String.raw`(?<keep>\bSharedAccessSignature${ESCAPES}["']?`
        + String.raw`(?:[ \t]*[=:][ \t]*${ESCAPES}["']?|[ \t]+)(?=\??[a-z]{2,6}=))`
        + String.raw`(?=[^\s;"'\x60\\])[^\s;"'\x60\\&]*(?:&(?:amp;)?[^\s;"'\x60\\&]*)*`,
      "gi"
    ),
    hint: /SharedAccessSignature/i
  },
  // A signature in a query string, as a SAS URL or token carries it anywhere else (blob.core.windows.net/c/f?sv=...
  // &sig=..., az's --sas-token "...&sig=..."): only the signature is masked, and only a value that looks like one
  // (see signatureLength). The name must start a parameter, after `?`, `&`, `;` (`&amp;`), a quote or a blank, none
  // of which a value holds, so each value is read once.
  {
    kind: "azure-sas",
    pattern: new RegExp(
      String.raw`(?<keep>(?<=^|[\s?&;"'\x60]|\\u0026)sig=)(?=[\w+/=-]|%[\da-fA-F]{2})[\w+/=-]*`
        + String.raw`(?:%[\da-fA-F]{2}[\w+/=-]*)*`,
      "g"
    ),
    hint: contains("sig="),
    secretLength: signatureLength
  },
  // A presigned URL's signature (S3's X-Amz-Signature, Cloud Storage's X-Goog-Signature): anyone holding the URL
  // reads or writes the object until it expires, as a bearer token allows. Hex, as SigV4 and GOOG4 write it.
  {
    kind: "url-signature",
    pattern: /(?<keep>(?:[?&;]|\\u0026)X-(?:Amz|Goog)-Signature=)[\da-fA-F]{32}[\da-fA-F]*(?![\da-fA-F])/gi,
    hint: /-Signature=/i
  },
  {
    kind: "aws-secret-key",
    pattern: new RegExp(
      String.raw`(?<keep>(?<![\w-])(?:aws_?)?secret_?access_?key${ESCAPES}["']?[ \t]*[:=][ \t]*${ESCAPES}["']?)`
        + String.raw`[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])`,
      "gi"
    ),
    hint: /secret_?access_?key/i
  },
  ...CODE_CALL_RULES,
  // A default after a sensitive name read from the environment: os.getenv("DB_PASSWORD", "x"), ENV.fetch('TOKEN', 'x'),
  // and a value set under one: PHP's define('DB_PASSWORD', 'x') (wp-config.php), Java's
  // setProperty("javax.net.ssl.keyStorePassword", "x") and props.put("password", "x"), Go's os.Setenv("TOKEN", "x"),
  // localStorage.setItem('token', 'x').
  // Before the generic rules: in `password = os.getenv("DB_PASSWORD", "x")` they would mask the call's first
  // word as the value, and the name this rule needs with it.
  lazyRule(
    "credential",
    String.raw`(?<keep>\b(?:getenv|get|fetch|env|define|setProperty|put|set|setenv|putenv|setdefault|setItem)`
      + String
        .raw`[ \t]*\([ \t]*${ESCAPES}["']${NAME_PREFIX}${SENSITIVE_NAME}${ESCAPES}["'][ \t]*,[ \t]*${ESCAPES}["'])`
      + VALUE,
    "gi",
    /(?:get|fetch|env|define|setproperty|put|set|setdefault|setitem)[ \t]*\(/i
  ),
  // Rails' and Phoenix's secret_key_base (SECRET_KEY_BASE=x, secret_key_base: "x", heroku config's padded
  // `SECRET_KEY_BASE:   x`): it signs and encrypts every session, though its name ends in neither `secret` nor `key`.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<![\w.-])[\w.-]{0,40}?secret_key_base${ESCAPES}["']?[ \t]*(?::|=>|:?=)[ \t]*${ESCAPES}["']?)`
      + String.raw`${NOT_A_TEMPLATE}${VALUE}`,
    "gi",
    /secret_key_base/i
  ),
  // A setter named for a credential, given a literal: setPassword("x"), set_api_key('x'), setClientSecret("x"). Not
  // keyring's set_password(service, user, password), whose first literal names a service (CODE_CALL_RULES).
  lazyRule(
    "credential",
    String.raw`(?<keep>(?<!keyring\.)\bset_?${NAME_PREFIX}${SENSITIVE_NAME}[ \t]*\([ \t]*${ESCAPES}["'])${VALUE}`,
    "gi",
    /set/i
  ),
  // Generic credentials, masking only the value. JSON/dict: "password": "x", or 'token': 123.
  // A quoted value followed by a colon is the next key (`'password': "DB_PASSWORD": "x"`): not taken as the value,
  // which would hide that key's name from the rule and leave its value.
  credential(
    String.raw`(?<keep>["']${NAME_PREFIX}${SENSITIVE_NAME}${ESCAPES}["'][ \t]*:[ \t]*${ESCAPES}["']?)${VALUE}`
      + String.raw`(?!${ESCAPES}["'][ \t]*:)`
  ),
  // JS/TS object literals and inline YAML: password: "x".
  credential(String.raw`(?<keep>${NAME_START}${NAME_PREFIX}${SENSITIVE_NAME}[ \t]*:[ \t]*${ESCAPES}["'])${VALUE}`),
  // Env files, shell, code: DB_PASSWORD=x, const token: string = "x", os.environ["API_KEY"] = "x", password := "x",
  // and a shell line continued after the `=` (export DB_PASSWORD=\ then the value on the next line).
  credential(
    String.raw`(?<keep>${NAME_START}${NAME_PREFIX}${SENSITIVE_NAME}${ESCAPES}["']?\]?${TYPE_ANNOTATION}`
      + String.raw`[ \t]*:?=(?![=>~])[ \t]*(?:\\\r?\n[ \t]*)?${ESCAPES}["']?)${VALUE}`
  ),
  KEYTOOL_RULE,
  // CLI flags: --password foo, --api-key=foo. A value may start with "-", so `--token --verbose` masks the next flag.
  credential(String.raw`(?<keep>(?<![\w-])--?${NAME_PREFIX}${SENSITIVE_NAME}(?:=|[ \t]+)${ESCAPES}["']?)${VALUE}`),
  // Kubernetes/Docker env entries: name: DB_PASSWORD, then value: x (YAML lines or JSON). A block scalar's header
  // (`value: |`) is left, for the lines below it are the value: env-entries.ts masks them.
  credential(
    String.raw`(?<keep>\bname${ESCAPES}["']?[ \t]*:[ \t]*${ESCAPES}["']?${ENTRY_NAME}${ENTRY_VALUE})`
      + String.raw`${NOT_A_WORKING_DIRECTORY}${NOT_A_BLOCK_HEADER}(?:${LINE_VALUE}|${ESCAPED_LINE_VALUE}|${VALUE})`
  ),
  // And the value first: value: x, then name: DB_PASSWORD (YAML lines, JSON on one line or more).
  lazyRule(
    "credential",
    String.raw`(?<keep>\bvalue${ESCAPES}["']?[ \t]*:[ \t]*${ESCAPES}["']?)${VALUE_BEFORE_NAME}`,
    "gim",
    VALUE_BEFORE_NAME_HINT
  ),
  // A YAML block scalar (password: |, client_secret: >-): the value is every line after the key indented deeper
  // than it, blank ones included. The indicator and the first line's indentation are kept.
  credential(
    String.raw`(?<keep>^(?<indent>[ \t]*)(?:[-*][ \t]+)?${NAME_PREFIX}${SENSITIVE_NAME}[ \t]*:[ \t]*`
      + String.raw`${YAML_BLOCK_INDICATOR}[^\r\n]*(?:\r?\n[ \t]*(?=\r?\n))*\r?\n\k<indent>[ \t]+)`
      + String.raw`\S[^\r\n]*(?:\r?\n(?:[ \t]*(?=\r?\n)|\k<indent>[ \t]+\S[^\r\n]*))*`
  ),
  // A YAML key or header line (password: x, X-Api-Key: x): the value is the rest of the line, as YAML reads it.
  credential(
    String.raw`(?<keep>^[ \t]*(?:[-*][ \t]+)?${NAME_PREFIX}${SENSITIVE_NAME}[ \t]*:[ \t]*)`
      + String.raw`${NOT_A_PLACEHOLDER}(?!${YAML_BLOCK_INDICATOR})[^\s"'][^\r\n]*`
  ),
  // A quoted value alone on the line after its key, as a formatter wraps a long one ("token":\n  "x",
  // const apiKey =\n  "x";): the key's line ends at its `:` or `=`.
  credential(
    String.raw`(?<keep>${NAME_START}${NAME_PREFIX}${SENSITIVE_NAME}["']?\]?${TYPE_ANNOTATION}[ \t]*(?::?=|:)[ \t]*`
      + String.raw`\r?\n[ \t]*(?<quote>["'\x60]))${NOT_A_PLACEHOLDER}(?:(?!\k<quote>)[^\\\r\n]|\\[^\r\n])+`
      + String.raw`(?=\k<quote>[ \t]*(?:[,;][ \t]*)?$)`
  ),
  // A YAML key's plain value on the line below it (password:\n  x), or a note's: one word that looks like a secret
  // (see opaqueLength), alone on its line. Prose (a docstring), a mapping (`type: string`) or a list below the key
  // is left, and so is a bare word after `=`, which is code (`token =\n  other`).
  lazyRule(
    "credential",
    String.raw`(?<keep>${NAME_START}${NAME_PREFIX}${SENSITIVE_NAME}["']?[ \t]*:[ \t]*\r?\n[ \t]*)${NOT_A_PLACEHOLDER}`
      + String.raw`[^\s"'\x60,;(){}\[\]<>]+(?<!:)(?=[ \t]*$)`,
    "gim",
    CREDENTIAL_HINT,
    (value) => opaqueLength(value)
  ),
  // A header inside quotes, as curl takes it: -H "X-Api-Key: x", --header 'PRIVATE-TOKEN: x'.
  credential(
    String.raw`(?<keep>(?<=["'])${NAME_PREFIX}${SENSITIVE_NAME}[ \t]*:[ \t]*)${NOT_A_PLACEHOLDER}[^\s"'][^"'\r\n]*`
  ),
  // PHP and Ruby hashes: 'password' => "x", :api_key => 'x', config.password => "x".
  credential(
    String.raw`(?<keep>${NAME_START}[:'"]?${NAME_PREFIX}${SENSITIVE_NAME}${ESCAPES}["']?[ \t]*=>[ \t]*${ESCAPES}["'])`
      + VALUE
  ),
  // A .pgpass line, host:port:database:user:password (the port may be `*`): the password is the rest of the line.
  lazyRule(
    "credential",
    String.raw`(?<keep>^[^\s:#]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:)[^\r\n]+`,
    "gm",
    contains(":")
  ),
  // URL-encoded, as a form body or a query string carries it: password%3Dx, %22token%22%3A%22x%22.
  lazyRule(
    "credential",
    String.raw`(?<keep>(?:%22|(?<![\w.-]))${NAME_PREFIX}${SENSITIVE_NAME}(?:%22)?%3[ad](?:%20)*(?:%22)?)`
      + String.raw`(?=[^\s&"'%]|%(?!22)[\da-f]{2})[^\s&"'%]*(?:%(?!22)[\da-f]{2}[^\s&"'%]*)*`,
    "gi",
    contains("%3D", "%3d", "%3A", "%3a")
  ),
  // An XML element named as a credential: Maven's settings.xml and NuGet's <password>x</password>, web.config's
  // <ConnectionPassword>. The value is the element's text on its line, up to the matching closing tag; a reference
  // to a property (`${env.DB_PASSWORD}`) is left.
  lazyRule(
    "credential",
    String.raw`(?<keep><(?<tag>${NAME_PREFIX}${SENSITIVE_NAME})[ \t]*>)${NOT_A_PLACEHOLDER}${NOT_A_TEMPLATE}[^<\r\n]+`
      + String.raw`(?=</\k<tag>[ \t]*>)`,
    "gi",
    XML_ELEMENT_HINT
  ),
  // A setting as attributes name it: .NET's <add key="ApiKey" value="x" />, NuGet's key="ClearTextPassword", Spring's
  // and Ant's <property name="db.password" value="x"/>. Only a quoted value that closes: an HTML form's empty
  // <input name="password" value=""> is left, and so is a template's value="{{ form.password }}". An attribute's value
  // holds no quote of its own: it runs to the first one, and the run of backslashes before that quote is its escape,
  // left outside the value. Read as one run of characters that are not its quote, given back to the last one that is
  // not a backslash: a loop of alternatives costs the engine's backtracking stack an entry a character, and a value of
  // 8 MB overflowed it (the write failed); a run of one class costs it none. Given back one character at a time, each
  // tried once, and the backslashes after one read once: linear.
  lazyRule(
    "credential",
    String.raw`(?<keep>\b(?:key|name)[ \t]*=[ \t]*${ESCAPES}(?<quote>["'])${NAME_PREFIX}${SENSITIVE_NAME}`
      + String.raw`${ESCAPES}\k<quote>`
      + String.raw`[ \t\r\n]+value[ \t]*=[ \t]*${ESCAPES}["'])${NOT_A_PLACEHOLDER}${NOT_A_TEMPLATE}`
      + String.raw`(?:(?<=")[^"\r\n]*[^"\\\r\n](?=\\*")|(?<=')[^'\r\n]*[^'\\\r\n](?=\\*'))`,
    "gi",
    /value[ \t]*=/i
  ),
  // SQL that sets a password, quoted: MySQL's CREATE USER ... IDENTIFIED BY 'x' (IDENTIFIED WITH plugin BY 'x'),
  // SET PASSWORD FOR 'u'@'h' = 'x'.
  lazyRule(
    "credential",
    String.raw`(?<keep>\bIDENTIFIED(?:[ \t]+WITH[ \t]+\w+)?[ \t]+BY[ \t]+${ESCAPES}["']`
      + String.raw`|\bSET[ \t]+PASSWORD\b[^=\r\n;]{0,200}=[ \t]*(?:PASSWORD[ \t]*\([ \t]*)?${ESCAPES}["'])${VALUE}`,
    "gi",
    /identified|set[ \t]+password/i
  ),
  // Oracle's unquoted IDENTIFIED BY x, in capitals as SQL is written: in lower case it is prose ("identified by
  // their email").
  lazyRule(
    "credential",
    String.raw`(?<keep>\bIDENTIFIED[ \t]+BY[ \t]+)(?!VALUES\b|PASSWORD\b)[^\s"'\x60;]+`,
    "g",
    contains("IDENTIFIED")
  ),
  ...SHELL_RULES,
  ...VALUE_BEFORE_NAME_PROSE,
  ...ACCOUNT_RULES,
  PROSE_RULE
]
