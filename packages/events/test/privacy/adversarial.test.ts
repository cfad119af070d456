/**
 * Hostile inputs of ~5 MB: every rule must stay linear. The bound leaves room for a linear pass on a
 * loaded 2-core machine (CI runs this beside other suites), where it is ten times slower than on a quiet
 * one, and is still hours short of what a rule that backtracks (quadratic or worse) takes on 5 MB: load
 * cannot fail it and a backtracking rule cannot pass.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { redactText, redactValue } from "../../src/privacy/index.ts"

const LINEAR_MS = 60_000

const FIVE_MB = 5_000_000
const fill = (unit: string): string => unit.repeat(Math.floor(FIVE_MB / unit.length))

/** Lines of a key, each indented one blank deeper than the one above: a stack of ever deeper mappings. */
const deeper = (): string => {
  let text = ""
  for (let blanks = 0; text.length < FIVE_MB; blanks++) text += " ".repeat(blanks) + "a:\n"
  return text
}

/** The backslashes before a quote in JSON escaped five times, the most the rules read. */
const FIVE = "\\".repeat(31)

const ADVERSARIAL: ReadonlyArray<readonly [string, string]> = [
  ["one letter", fill("a")],
  ["opening tags", fill("<private>")],
  ["closing tags", fill("</private>")],
  ["an opening tag's unterminated attributes", "<private " + fill("x")],
  ["opening tags with an unclosed quote", fill("<private a=\"")],
  ["opening tags quoting a <", fill("<private \"<\"")],
  ["one unclosed quote in an opening tag", "<private '" + fill(">")],
  ["stray closing tags after text", "<private>a</private>" + fill("a </private> ")],
  ["spaces after <", "<" + fill(" ")],
  ["JSON-escaped opening tags", fill("\\u003cprivate\\u003e")],
  ["HTML-escaped closing tags", fill("&lt;/private&gt;")],
  ["escaped < with no tag", fill("&lt;\\u003c")],
  ["spaces after an escaped <", "&lt;" + fill(" ")],
  ["JSON-escaped opening tags with attributes", fill(String.raw`\u003cprivate a=\"`)],
  ["one JSON-escaped tag's unterminated attributes", String.raw`\u003cprivate ` + fill("x")],
  ["one unclosed escaped quote in an escaped tag", String.raw`\u003cprivate \"` + fill("\\u003e")],
  ["one unclosed &quot; in an escaped tag", "&lt;private &quot;" + fill("&gt;")],
  ["escaped blanks after an escaped <", "\\u003c" + fill("\\n")],
  ["Kubernetes data maps", "kind: Secret\n" + fill("data:\n")],
  ["Kubernetes data entries", "kind: Secret\ndata:\n" + fill("  a: b\n")],
  ["one long Kubernetes block", "kind: Secret\nstringData:\n  a: |\n" + fill("    x\n")],
  ["JSON data maps", "\"kind\": \"Secret\"" + fill("\"data\": {")],
  ["JSON data keys without values", "\"kind\": \"Secret\", \"data\": {" + fill("\"a\":\"")],
  ["JSON Secret values holding braces", "\"kind\": \"Secret\", \"stringData\": {" + fill("\"a\": \"}{[\", ")],
  [
    "escaped JSON Secret values holding braces",
    String.raw`\"kind\":\"Secret\",\"stringData\":{` + fill(String.raw`\"a\":\"}{\\\"b\\\":1}\",`)
  ],
  ["one unclosed JSON Secret map of nested maps and lists", "\"kind\": \"Secret\", \"data\": {" + fill("{[\"a\", ")],
  ["one unclosed JSON Secret value", "\"kind\": \"Secret\", \"data\": {\"a\": \"" + fill("}\\\"")],
  ["quotes in a JSON Secret's value", "\"kind\": \"Secret\", \"data\": {\"a\": \"" + fill("a\"")],
  ["escaped blanks after JSON Secret keys", "\"kind\": \"Secret\", \"data\": {" + fill("\"a\"\\n\\t ")],
  ["kind labels", fill("kind: ")],
  ["XML credential elements", fill("<password>")],
  ["one unclosed XML credential element", "<password>" + fill("a")],
  ["XML closing tags", "</pw" + fill("</password")],
  ["credential attributes", fill("<add key=\"ApiKey\" value=\"")],
  ["one unclosed credential attribute", "<add key='pwd' value='" + fill("\\a")],
  ["one unclosed credential attribute with runs of backslashes", "<add key='pwd' value='" + fill("\\\\a")],
  ["SQL passwords", fill("IDENTIFIED BY '")],
  ["SET PASSWORD statements", fill("SET PASSWORD FOR ")],
  ["SecretString fields", fill("\"SecretString\": \"")],
  ["one long SecretString with escapes", "\"SecretString\": \"" + fill("\\\"")],
  ["value fields beside a SecureString", "SecureString" + fill("\"Value\":\"a")],
  ["YAML value lines beside a vault secret", ".vault.azure.net/secrets/" + fill("value: a\n")],
  ["presigned URL signatures", fill("&X-Amz-Signature=0")],
  ["vendor prefixes", fill("gsk_r8_xai-whsec_")],
  ["one long webhook secret", "whsec_" + fill("a") + "_"],
  ["one long Atlassian token", "ATATT3" + fill("a=") + "!"],
  ["define calls", fill("define('DB_PASSWORD', ")],
  ["setter calls", fill("setPassword(\"")],
  ["tuples of a user and a password", fill("auth=(\"a\", ")],
  ["tuples opening a literal", fill("auth=[\"")],
  ["tuples of names", fill("auth=(a, ")],
  ["login calls", fill("login(\"a\", \"")],
  ["login calls opening a template literal", fill("login(a, `")],
  ["one long template literal in a login call", "login(a, `" + fill("a")],
  ["one long template literal that interpolates", "login(a, `" + fill("a${")],
  ["escaped login calls", fill("login(\\\"a\\\", \\\"")],
  ["login calls indexing or calling their user", fill("login(a[") + fill("login(a(")],
  ["one long user in a login call", "login(\"" + fill("a")],
  ["connection calls", fill("getConnection(a, b, ")],
  ["connection calls of two arguments", fill("getConnection(\"a\", ")],
  ["DSN users", "@tcp(" + fill("=a:")],
  ["DSN users and at signs", "@tcp(" + fill("=a:@")],
  ["one long DSN password", "a:" + fill("b") + "@tcp("],
  ["Terraform variables", fill("variable \"pw\" {\n")],
  ["Terraform variables on one line", fill("variable \"pw\" {")],
  ["Terraform defaults", fill("variable \"pw\" {\n  default = \"")],
  ["one long Terraform variable", "variable \"pw\" {\n" + fill("a")],
  ["secret_key_base names", fill("a.secret_key_base")],
  ["secret_key_base assignments", fill("SECRET_KEY_BASE:")],
  ["one long presigned URL signature", "?X-Goog-Signature=" + fill("a")],
  ["mongo commands", fill("mongo -u a -p ")],
  ["ldap commands", fill("ldapsearch -w")],
  ["smbclient users", fill("smbclient -U a")],
  ["htpasswd commands", fill("htpasswd -b a ")],
  ["one long htpasswd file name", "htpasswd -b " + fill("a") + " u p"],
  ["keytool password flags", fill("-storepass ")],
  ["keytool -storepasswd commands", fill("keytool -storepasswd ")],
  ["zip commands", fill("zip -r -")],
  ["7z commands", fill("7z a -p")],
  ["users echoed into chpasswd", fill("echo 'a:") + " | chpasswd"],
  ["escaped users echoed into chpasswd", fill(String.raw`echo \"a:`) + " | chpasswd"],
  ["echo commands before a pipe", fill("echo x | ") + " --password-stdin"],
  ["echoed words with an escaped quote", fill(String.raw`echo "a\"`) + " --password-stdin"],
  ["one unclosed echoed value", "echo \"" + fill("a") + " | chpasswd --password-stdin"],
  ["here-strings", fill("--password-stdin <<< '") + " chpasswd"],
  ["echo commands piped into sudo", fill("echo x | sudo -u a ")],
  ["sudo -S here-strings", fill("sudo -S <<< ")],
  ["net user commands", fill("net user a b ")],
  ["quoted net user names", fill("net user \"a b")],
  ["sqlcmd commands", fill("sqlcmd -U sa ")],
  ["rabbitmqctl commands", fill("rabbitmqctl add_user ")],
  ["gh secret set commands", fill("gh secret set a -")],
  ["Dockerfile ENV lines", fill("ENV DB_PASS x\n")],
  ["escaped Dockerfile ENV lines", fill(String.raw`\nENV DB_PASS `)],
  ["one ENV value of backslashes", "ENV DB_PASS a" + fill("\\")],
  ["ENV lines in strings and code spans", fill("\"ENV DB_PASS a`ENV API_TOKEN ")],
  ["quoted 7z switches", fill("7z a \"-pa")],
  ["openai prefixes", fill("sk-")],
  ["anthropic prefixes", fill("sk-ant-")],
  ["newlines", fill("\n")],
  ["dashed words", fill("a-")],
  ["dotted identifiers", fill("a.")],
  ["backslashes", fill("\\")],
  ["quotes", fill("\"")],
  ["jwt prefixes", fill("eyJ")],
  ["jwt-like segments", fill("eyJaaaaaaaaaa.")],
  ["PEM headers", fill("-----BEGIN RSA PRIVATE KEY-----")],
  ["base64 lines before a PEM footer", fill("MIIEowIBAAKCAQEA\n") + "-----END PRIVATE KEY"],
  ["base64 lines with a blank between", fill("Zr5TtYw2qPl \n")],
  ["key body prefixes", fill("MIIEowIBA")],
  ["base64 PEM prefixes", fill("LS0tLS1CRUdJTi")],
  ["a base64 PEM prefix and long lines", "LS0tLS1CRUdJTi" + fill("a\naaaaaaaaaaaaaaaaa")],
  ["dashes", fill("-")],
  ["URL prefixes", fill("a://b:")],
  ["a long URL scheme", fill("a+") + "://"],
  ["AKIA prefixes", fill("AKIA")],
  ["Bearer words", fill("Bearer ")],
  ["Bearer and a long token without digits", "Bearer " + fill("a")],
  ["Basic and base64 words", fill("Basic YWJj ")],
  ["Basic and one long base64 run", "Basic " + fill("YWJj") + "."],
  ["header labels", fill("authorization: ")],
  ["assignments", fill("password=")],
  ["npmAuthIdent keys", fill("npmAuthIdent: ")],
  ["working directories", fill("PWD=/")],
  ["auth elements naming a scheme", fill("<auth>basic</auth>")],
  ["auth settings naming a scheme", fill("auth: ntlm\n")],
  ["auth settings naming a scheme before a comment", fill("auth: ntlm # c\n")],
  ["empty values", fill("password = \"\" ")],
  ["escaped empty values glued to words", fill(String.raw`\"password\":\"\"x`)],
  ["quoted working directory keys", fill("\"PWD\": \"")],
  ["working directory entries", fill("- name: PWD\n  value: /")],
  ["working directory entry names", fill("name: PWD\n")],
  ["colon labels", fill("password:")],
  ["unclosed quoted values", fill("password: \"")],
  ["one unclosed quoted value", "password: \"" + fill("a")],
  ["JSON keys", fill("\"password\":")],
  ["escaped JSON keys", fill("\\\"password\\\":\\\"")],
  ["JSON keys escaped twice", fill(String.raw`\\\"password\\\":\\\"`)],
  ["JSON keys escaped once and twice", fill(String.raw`\"password\":\"\\\"token\\\":\\\"`)],
  ["one long value of escaped quotes", String.raw`\"password\":\"` + fill(String.raw`a\\\"`)],
  ["one long value of doubled backslashes", String.raw`\\\\\\\"pw\\\\\\\":\\\\\\\"` + fill("\\".repeat(16) + "a")],
  ["JSON keys escaped five times", fill(`${FIVE}"password${FIVE}":${FIVE}"`)],
  [
    "one long value of backslash blocks escaped five times",
    `${FIVE}"pw${FIVE}":${FIVE}"` + fill("\\".repeat(64) + "a")
  ],
  ["credential attributes escaped five times", fill(`<add key=${FIVE}"ApiKey${FIVE}" value=${FIVE}"`)],
  ["names before runs of backslashes past the bound", fill("password" + "\\".repeat(40) + "\":")],
  [
    "a Secret's map and a secret manager's fields with runs of backslashes past the bound",
    "SecretString SecureString \"kind\": \"Secret\", \"data\": {" + fill("\\".repeat(40) + "\"")
  ],
  ["CLI flags", fill("--token ")],
  ["type annotations", fill("password: string =")],
  ["YAML lines", fill("password: x\n")],
  ["env entries", fill("name: DB_PASSWORD\n")],
  ["env entry names before comments", fill("- name: DB_PASSWORD # c\n")],
  ["env entries with values of several words", fill("- name: pw\n  value: a b ")],
  ["env entry names and comments on one line", fill("name: pw #")],
  ["comments holding env entry names", fill("name: pw # name: pw")],
  ["env entry names after blanks, before comments", fill("name:" + " ".repeat(100) + "pw #")],
  ["words before comments", fill("pw #")],
  ["env entry names above blank lines", fill("name: pw\n\n")],
  ["env entry names above comment lines", fill("- name: pw # c\n# name: pw # c\n")],
  ["one long comment line below an env entry name", "name: pw\n#" + fill("a")],
  ["words above blank and comment lines", fill("pw\n#\n")],
  // An entry's value before its name: a `name:` key and a sensitive word, so that the rule runs.
  ["env entry values", "name: pw\n" + fill("- value: a\n")],
  ["env entry values before names", fill("value: a\nname: ")],
  ["env entry values before comments", "name: pw\n" + fill("value: a # value: a ")],
  ["env entry values above blank and comment lines", "name: pw\n" + fill("value: x\n# c\n\n")],
  ["quoted env entry values before names", fill(`"value": "a", "name": "`)],
  ["escaped env entry values", "name: pw\n" + fill(String.raw`\"value\":\"a\\\"value\\\":\\\"`)],
  ["env entry value keys escaped five times", "name: pw\n" + fill(`${FIVE}"value${FIVE}":${FIVE}"a${FIVE}",`)],
  ["one long quoted env entry value", "name: pw\n\"value\": \"" + fill("a\\\" value: ")],
  ["one long single-quoted env entry value", "name: pw\nvalue: '" + fill("value: ")],
  ["one long YAML env entry value", "name: pw\n- value: " + fill("a value: ")],
  ["value keys", "name: pw\n" + fill("value:")],
  ["bare env entry values", "name: pw\n" + fill("{value: a, ")],
  ["working directory values", fill("- value: /a\n  name: ")],
  // Entries whose lines are escaped in a JSON string (`\n`), and runs of backslashes before an `n`.
  ["escaped env entries", fill(String.raw`- name: DB_PASSWORD\n  value: x\n`)],
  ["escaped env entries with comments and gap lines", fill(String.raw`- name: pw # c\n\n  # d\n  value: x\n`)],
  ["words before comments with escaped line breaks", fill(String.raw`pw #a\n pw`)],
  ["names before long runs of backslashes and an n", fill("name: pw" + "\\".repeat(40) + "n  value: ")],
  ["one comment of escaped carriage returns", "name: pw #" + fill(String.raw`\r`)],
  ["escaped env entry values before names", "name: pw\n" + fill(String.raw`- value: a\n  name: `)],
  ["escaped tabs after escaped line breaks", fill(String.raw`name: pw\n\t\t`)],
  ["one run of escaped tabs after an env entry's name", "name: pw\\n" + fill("\\t")],
  // Entries read whole (env-entries.ts): a credential's name in each text, so that its passes run.
  ["one long block scalar value", "- name: pw\n  value: |\n" + fill("    x\n")],
  ["entries with block scalar values", fill("- name: pw\n  value: |\n    x\n")],
  ["other keys of one entry", "- name: pw\n" + fill("  type: x\n")],
  ["entries with another key", fill("- name: pw\n  type: x\n  value: y\n")],
  ["keys ever deeper below an entry's name", "- name: pw\n" + deeper() + "value: x"],
  ["one single-quoted value of doubled quotes", "- name: pw\n  value: '" + fill("''")],
  ["value lines below an entry's name", "- name: pw\n" + fill("  value: x\n")],
  ["dashes below an entry's name", "- name: pw\n" + fill("- ")],
  ["names without line breaks", fill("name: pw ")],
  ["name keys", fill("name:")],
  ["escaped entries with another key and a block", fill(String.raw`- name: pw\n  type: x\n  value: |\n    y\n`)],
  ["flow mappings of several words", fill("{name: pw, value: a b, ")],
  ["JSON entries with another key", fill(`{"name":"pw","type":"x","value":"y"}`)],
  ["Terraform env blocks", fill(`env { value = "x" name = "pw" } `)],
  ["opening braces after a name", "name: pw " + fill("{")],
  ["closing braces after a name", "name: pw " + fill("}")],
  ["values in one open object", `{"name": "pw", ` + fill(`"value": "a", `)],
  ["names in open objects", fill(`{"name": "pw", `)],
  ["backslashes in one unclosed object value", `{"name":"pw","value":"` + fill("\\")],
  ["strings holding backslashes in an object", "{name: pw, " + fill(String.raw`"a\"`)],
  ["runs of escaped quotes in an object value", `{"name":"pw","value":"` + fill(String.raw`\\\"`)],
  ["bare object values read past their window", fill("{name: 'pw' value: none " + "a ".repeat(6500))],
  ["Helm entries", fill("--set env[0].name=pw,env[0].value=x ")],
  ["one Helm argument of commas", "name=pw --set " + fill("a,")],
  ["one unclosed Helm argument", "name=pw --set \"" + fill("a")],
  ["Helm flags", "name=pw " + fill("--set=")],
  ["Helm lines continued", "--set env[0].name=pw " + fill("\\\n")],
  ["Helm names", "--set " + fill("e.name=pw,")],
  ["quoted words in one Helm value", "--set e.name=pw,e.value=" + fill(`"a" `)],
  ["one unclosed quote in a Helm value", "--set e.name=pw,e.value=\"" + fill("a ")],
  ["quoted commas in one Helm argument", "--set e.name=pw,e.value=" + fill("'a,b',")],
  ["YAML block headers", fill("password: |\n \n")],
  ["URL passwords without an @", fill("a://b:c/")],
  ["getenv calls", fill("getenv(\"pw\", ")],
  [".pgpass fields", fill("h:5432:d:u")],
  ["continued assignments", fill("pwd=\\\n")],
  ["Korean names with a particle", fill("비밀번호는 ")],
  ["names with a particle after a blank", fill("password 는 ")],
  ["object particles before values with endings", fill("비밀번호를 a1로 ")],
  ["one long value with a Korean ending", "비번은 " + fill("a1") + "로"],
  ["prose qualifiers", fill("password for the x ")],
  ["values used as a password", fill("use a1 as the ")],
  ["one long value used as a password", "use " + fill("a1") + " as the password"],
  ["values before an object particle", fill("a1를 비밀")],
  ["one long value before an object particle", fill("a1") + "를 비밀번호로"],
  ["accounts", fill("login: a / ")],
  ["account pairs before a login", fill("가") + "/" + fill("a1") + "로 로그인"],
  ["users and passes", fill("user a pass ")],
  ["URL-encoded names", fill("%22token%22%3A%22")],
  ["one long YAML block", "password: >-\n" + fill("  a\n\n")],
  ["keys ending their lines", fill("password:\n")],
  ["keys with a value below each", fill("token:\n  a1")],
  ["one unclosed quote below a key", "token =\n  \"" + fill("a")],
  ["one long word below a key", "password:\n  " + fill("a1") + " x"],
  ["SharedAccessSignature names", fill("SharedAccessSignature ")],
  ["one long SharedAccessSignature value", "SharedAccessSignature=sv=" + fill("&amp;")],
  ["SAS signature parameters", fill("&sig=a%2")],
  ["escaped SAS signature parameters", fill("\\u0026sig=")],
  ["one long SAS signature", "?sig=" + fill("%2B")]
]

const TWELVE_MB = 12_000_000

/** Base64 characters no one would take for a word (a catalogued token must look random), the same on every run. */
const noise = (length: number): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  let seed = 11
  const characters = new Array<string>(length)
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    characters[i] = alphabet[seed >> 16 & 63]!
  }
  return characters.join("")
}

/**
 * Values of 8 to 12 MB, as a note or a file of the project may hold: a loop of alternatives run over one costs the
 * regex engine's backtracking stack an entry a character or two, and past its 64 MB the search threw ("Maximum call
 * stack size exceeded"), failing the write. Shape, input, and the text redacted (undefined: left as it is).
 */
const PAST_THE_STACK: ReadonlyArray<readonly [string, string, string | undefined]> = [
  [
    "an unclosed credential attribute of backslashes and letters",
    "<add key=\"ApiKey\" value=\"" + "\\a".repeat(6_000_000),
    undefined
  ],
  [
    "an unclosed credential attribute of runs of two backslashes",
    "key=\"password\" value=\"" + "\\\\a".repeat(2_700_000),
    undefined
  ],
  ["an unclosed credential attribute of letters", "key='pwd' value='" + "a".repeat(12_000_000), undefined],
  [
    "a credential attribute of backslashes and letters",
    "<add key=\"ApiKey\" value=\"" + "\\a".repeat(6_000_000) + "\" />",
    "<add key=\"ApiKey\" value=\"[secret:credential]\" />"
  ],
  [
    "a string literal in a login call",
    `smtp.login(user, "${"a".repeat(TWELVE_MB)}") end`,
    `smtp.login(user, "[secret:credential]") end`
  ],
  [
    "a template literal in a login call",
    `page.login(user, \`${"a".repeat(TWELVE_MB)}\`) end`,
    "page.login(user, `[secret:credential]`) end"
  ],
  // Read to their end now, where the search stopped (UNREADABLE below) and all from it was masked.
  [
    "a quoted value after a credential's name",
    `password="${"a".repeat(TWELVE_MB)}" end`,
    `password="[secret:credential]" end`
  ],
  [
    "a quoted value of escapes after a credential's name",
    `x = 1; token = "${"a".repeat(TWELVE_MB)}\\"\\\\"; y = 2`,
    `x = 1; token = "[secret:credential]"; y = 2`
  ],
  ["a GitHub token", `ghp_${"a".repeat(TWELVE_MB)} end`, "[secret:github-token] end"],
  ["a URL-encoded value", `password%3D${"a".repeat(TWELVE_MB)}%41&b=1`, "password%3D[secret:credential]&b=1"],
  [
    "an Azure Shared Access Signature",
    `SharedAccessSignature=sv=${"a".repeat(TWELVE_MB)}&amp;b end`,
    "SharedAccessSignature=[secret:azure-sas] end"
  ],
  ["a catalogued token", `ops_eyJ${noise(TWELVE_MB)} end`, "[secret:1password-service-account-token] end"],
  [
    "a private block whose tag has long attributes",
    `a <private ${"a=b ".repeat(TWELVE_MB / 4)}>Unread-Pw-1</private> b`,
    "a [private] b"
  ],
  ["an opening tag's unterminated attributes", `a <private ${"x".repeat(TWELVE_MB)}`, undefined],
  [
    "a Dockerfile ENV value of backslashes and letters",
    `ENV DB_PASS ${"\\a".repeat(TWELVE_MB / 2)}\nRUN make`,
    "ENV DB_PASS [secret:credential]\nRUN make"
  ],
  [
    "a Helm value",
    `helm upgrade x --set env[0].name=DB_PASSWORD,env[0].value=${"a".repeat(TWELVE_MB)} --wait`,
    "helm upgrade x --set env[0].name=DB_PASSWORD,env[0].value=[secret:credential] --wait"
  ]
]

/**
 * Values of 12 MB that a rule, or a stage before the rules, could not read, with what must not be stored of each:
 * redactText threw. Whatever a search that cannot finish had yet to search is masked.
 */
const UNREADABLE: ReadonlyArray<readonly [string, string, string]> = [
  ["a quoted value after a credential's name", `password="${"a".repeat(TWELVE_MB)}" end`, "aaaa"],
  ["a JSON value escaped once", String.raw`\"password\": \"${"a".repeat(TWELVE_MB)}\"`, "aaaa"],
  ["a secret manager's SecretString", `{"SecretString": "${"a".repeat(TWELVE_MB)}"}`, "aaaa"],
  [
    "a private block whose tag has long attributes",
    `<private ${"a=b ".repeat(TWELVE_MB / 4)}>Unread-Pw-1</private>`,
    "Unread-Pw-1"
  ],
  ["a catalogued token", `ops_eyJ${noise(TWELVE_MB)} end`, noise(100)]
]

/** Runs the filter in its own process: a rule that backtracks holds up the process it runs in, for hours. */
const REDACT = join(import.meta.dirname, "..", "fixtures", "redact.ts")

const MEGABYTE = 1_000_000
const SPACES = " ".repeat(MEGABYTE)
const TABS = "\t".repeat(MEGABYTE)
const BLANKS = " \t".repeat(MEGABYTE / 2)
const COMMAS = ",".repeat(MEGABYTE)
const BACKSLASHES = "\\".repeat(MEGABYTE)
const ESCAPED_NEWLINES = "\\n".repeat(MEGABYTE / 2)
const ESCAPED_TABS = "\\t".repeat(MEGABYTE / 2)

/**
 * A text with its long runs of blanks (or of `\n` or `\t` as JSON escapes them), commas or backslashes shown as `…`, to
 * compare it with what is expected.
 */
const shortened = (text: string): string => text.replace(/[ \t,]{100,}|\\{100,}|(?:\\[nt]){100,}/g, "…")

/**
 * A sensitive name and a long run of blanks (or of backslashes, as escaped JSON holds them): shape, input, and the
 * redacted text, shortened (a value after the run is still masked). Where two runs of a pattern can take the same
 * blanks, a failing match tries quadratically many ways of splitting them, hours on 1 MB; so does trimming a value's
 * trailing punctuation when it is tried at every comma of a run.
 */
const BLANK_RUNS: ReadonlyArray<readonly [string, string, string]> = [
  ["a YAML key", `password:${SPACES}hunter2-Sup3r`, "password:…[secret:credential]"],
  ["a JSON key", `{"token":${SPACES}"abc123xyz"}`, `{"token":…"[secret:credential]"}`],
  ["tabs after a spaced colon", `secret :${TABS}hunter2-Sup3r`, "secret :…[secret:credential]"],
  ["blanks before the colon", `api_key${SPACES}: hunter2-Sup3r`, "api_key…: [secret:credential]"],
  ["blanks between a colon and =", `x password:${BLANKS}= hunter2-Sup3r`, "x password:…= [secret:credential]"],
  [
    "a Kubernetes entry",
    `name: DB_PASSWORD${SPACES}\n  value: hunter2-Sup3r`,
    "name: DB_PASSWORD…\n  value: [secret:credential]"
  ],
  ["commas before a value in prose", `the password is ${COMMAS}Zq9`, "the password is [secret:credential]"],
  ["a name and a colon, repeated", "password: ".repeat(MEGABYTE / 10), "password: [secret:credential]"],
  ["blanks inside an escaped tag", `a \\u003c${SPACES}/${SPACES}private${SPACES}/ b`, "a \\u003c…/…private…/ b"],
  [
    "blanks in an XML element",
    `<password${SPACES}>x1${SPACES}</password${TABS}>`,
    "<password…>[secret:credential]</password…>"
  ],
  [
    "blanks between credential attributes",
    `key="pwd"${SPACES}value${SPACES}=${SPACES}"x1"`,
    `key="pwd"…value…=…"[secret:credential]"`
  ],
  [
    "blanks in SQL",
    `IDENTIFIED${SPACES}WITH x${SPACES}BY${SPACES}'x1' SET PASSWORD${SPACES}`,
    "IDENTIFIED…WITH x…BY…'[secret:credential]' SET PASSWORD…"
  ],
  ["blanks in htpasswd", `htpasswd -b${SPACES}f${SPACES}u${SPACES}pw9`, "htpasswd -b…f…u…[secret:credential]"],
  [
    "blanks in keytool",
    `keytool${SPACES}-keypasswd -new${TABS}x1 -storepass${SPACES}y2`,
    "keytool…-keypasswd [secret:credential]…[secret:credential] -storepass…[secret:credential]"
  ],
  [
    "blanks in echo commands piped into chpasswd and a login",
    `echo${SPACES}-n${TABS}'root:x1'${SPACES}| chpasswd; echo${SPACES}y2${TABS}| docker login --password-stdin`,
    "echo…-n…'root:[secret:credential]'…| chpasswd; echo…[secret:credential]…| docker login --password-stdin"
  ],
  [
    "blanks in here-strings",
    `chpasswd <<<${SPACES}root:x1; passwd --stdin bob <<<${TABS}y2`,
    "chpasswd <<<…root:[secret:credential]; passwd --stdin bob <<<…[secret:credential]"
  ],
  [
    "blanks in net user, sqlcmd and rabbitmqctl",
    `net user${SPACES}bob${TABS}x1${SPACES}/add; sqlcmd -P${SPACES}y2 ; rabbitmqctl add_user${TABS}bob${SPACES}z3`,
    "net user…bob…[secret:credential]…/add; sqlcmd -P…[secret:credential] ;"
    + " rabbitmqctl add_user…bob…[secret:credential]"
  ],
  [
    "blanks in gh secret set",
    `gh${SPACES}secret${TABS}set a --body${SPACES}x1 ; gh secret set b -b${TABS}y2`,
    "gh…secret…set a --body…[secret:credential] ; gh secret set b -b…[secret:credential]"
  ],
  [
    "blanks in Dockerfile ENV lines",
    `${SPACES}ENV${TABS}DB_PASS${SPACES}x1 y2${SPACES}\n${TABS}ENV API_TOKEN z3`,
    "…ENV…DB_PASS…[secret:credential]\n…ENV API_TOKEN [secret:credential]"
  ],
  [
    "blanks in zip and 7z",
    `zip -P${TABS}x1 a.zip${SPACES}7z a -py2`,
    "zip -P…[secret:credential] a.zip…7z a -p[secret:credential]"
  ],
  [
    "blanks in a secret manager's output",
    `SecureString "Value"${SPACES}:${SPACES}"x" "SecretString":${TABS}"y"`,
    `SecureString "Value"…:…"[secret:secret-manager]" "SecretString":…"[secret:secret-manager]"`
  ],
  [
    "blanks in a define call",
    `define(${SPACES}'pw'${SPACES},${TABS}'x1') setPassword(${SPACES}"y2")`,
    "define(…'pw'…'[secret:credential]') setPassword(…\"[secret:credential]\")"
  ],
  ["blanks after secret_key_base", `secret_key_base${SPACES}:${SPACES}x1`, "secret_key_base…:…[secret:credential]"],
  [
    "blanks in login calls",
    `login(${SPACES}a${SPACES},${TABS}"x1") HTTPBasicAuth(${SPACES}"a"${SPACES}\n${SPACES},${SPACES}"y2")`,
    `login(…a…"[secret:credential]") HTTPBasicAuth(…"a"…\n…"[secret:credential]")`
  ],
  [
    "blanks in connection calls",
    `getConnection(${SPACES}a${SPACES},${SPACES}b${SPACES},${SPACES}"x1")`
    + ` getConnection(${SPACES}a${SPACES},${TABS}"y2")`,
    `getConnection(…a…b…"[secret:credential]") getConnection(…a…"[secret:credential]")`
  ],
  [
    "blanks in tuples",
    `auth=(${SPACES}"a"${SPACES},${TABS}"x1") auth = [${SPACES}\n${TABS}user${SPACES},${SPACES}'y2']`,
    `auth=(…"a"…"[secret:credential]") auth = […\n…user…'[secret:credential]']`
  ],
  [
    "blanks in a Terraform variable",
    `variable${SPACES}"pw"${SPACES}{${SPACES}\n${TABS}default${SPACES}=${SPACES}"x1"\n}`,
    `variable…"pw"…{…\n…default…=…"[secret:credential]"\n}`
  ],
  [
    "blanks in a .yarnrc line",
    `"//r/:_authToken"${SPACES}"x1"\n${TABS}_auth${SPACES}y2`,
    `"//r/:_authToken"…"[secret:credential]"\n…_auth…[secret:credential]`
  ],

  [
    "blanks in a Kubernetes Secret",
    `kind:${SPACES}Secret\ndata:${SPACES}\n  a:${SPACES}b`,
    "kind:…Secret\ndata:…\n  a:…[secret:kubernetes-secret]"
  ],
  [
    "blanks in a JSON Secret",
    `"kind":${SPACES}"Secret", "data"${SPACES}:${SPACES}{"a"${SPACES}:${SPACES}"b"}`,
    `"kind":…"Secret", "data"…:…{"a"…:…"[secret:kubernetes-secret]"}`
  ],
  [
    "blanks around a JSON Secret's value holding a brace",
    `"kind": "Secret", "data": {"a"${SPACES}:${SPACES}"}{"${SPACES},${TABS}"b": "x"}`,
    `"kind": "Secret", "data": {"a"…:…"[secret:kubernetes-secret]"…"b": "[secret:kubernetes-secret]"}`
  ],
  ["blanks inside escaped tags", `&lt;private${SPACES}&gt;x&lt;/${SPACES}private${TABS}&gt; y`, "[private] y"],
  [
    "escaped blanks inside an escaped tag",
    String.raw`a \u003c${ESCAPED_NEWLINES}/${ESCAPED_NEWLINES}private${ESCAPED_NEWLINES}/ b`,
    String.raw`a \u003c…/…private…/ b`
  ],
  [
    "blanks in an escaped tag's attributes",
    String.raw`\u003cprivate a=\"${SPACES}\"${TABS}\u003ex\u003c/private${ESCAPED_NEWLINES}\u003e y`,
    "[private] y"
  ],
  ["escaped blanks in an escaped self-closing tag", String.raw`a \u003cprivate /${ESCAPED_NEWLINES}\u003e b`, "a  b"],
  [
    "blanks after an empty value",
    `password = ""${SPACES}; token = "t1"`,
    `password = ""…; token = "[secret:credential]"`
  ],
  ["blanks before an auth scheme", `SMTP_AUTH:${SPACES}login\nx_auth=${TABS}ntlm`, "SMTP_AUTH:…login\nx_auth=…ntlm"],
  [
    "blanks around an auth scheme's comment",
    `auth: basic${SPACES}#${TABS}c\nauth: basic${SPACES}x`,
    "auth: basic…#…c\nauth: [secret:credential]"
  ],
  ["blanks around a working directory", `PWD${SPACES}=${TABS}/home/alice`, "PWD…=…/home/alice"],
  ["blanks after a password named PWD", `"PWD":${SPACES}"hunter2-Sup3r"`, `"PWD":…"[secret:credential]"`],
  [
    "blanks in a working directory entry",
    `name: PWD${SPACES}\n${TABS}value:${SPACES}/home/alice\nname: PWD${SPACES},${TABS}value: hunter2-Sup3r`,
    "name: PWD…\n…value:…/home/alice\nname: PWD…value: [secret:credential]"
  ],
  [
    "blanks around a comment after an env entry's name",
    `name: DB_PASSWORD${SPACES}#${TABS}c${SPACES}\n${TABS}value: hunter2-Sup3r`,
    "name: DB_PASSWORD…#…c…\n…value: [secret:credential]"
  ],
  [
    "blanks in blank and comment lines before an env entry's value",
    `name: DB_PASSWORD${SPACES}\n${TABS}\n${SPACES}#${TABS}c${SPACES}\n${BLANKS}\n${TABS}value: hunter2-Sup3r`,
    "name: DB_PASSWORD…\n…\n…#…c…\n…\n…value: [secret:credential]"
  ],
  [
    "blanks around an env entry's value before its name",
    `- value:${SPACES}hunter2 Sup3r${TABS}\n${SPACES}name:${TABS}DB_PASSWORD\n`
    + `{"value"${SPACES}:${SPACES}"x1"${SPACES},${TABS}"name"${SPACES}:${TABS}"API_TOKEN"}`,
    `- value:…[secret:credential]\n…name:…DB_PASSWORD\n{"value"…:…"[secret:credential]"…"name"…:…"API_TOKEN"}`
  ],
  [
    "blanks around a comment and lines after an env entry's value",
    `- value: 'x1'${SPACES}#${TABS}c\n${BLANKS}\n${TABS}# d${SPACES}\n  name: API_TOKEN`,
    "- value: '[secret:credential]'…#…c\n…\n…# d…\n  name: API_TOKEN"
  ],
  [
    "blanks in a working directory entry, its value first",
    `- value:${SPACES}/home/alice${SPACES}\n${TABS}name:${SPACES}PWD`,
    "- value:…/home/alice…\n…name:…PWD"
  ],
  [
    "blanks in an env entry whose lines are escaped",
    String.raw`- name: DB_PASSWORD${SPACES}# c${TABS}\n${SPACES}\n${TABS}value: x1 y\n`
    + String.raw`- value: 'y2'${SPACES}\n${TABS}name: pw`,
    String.raw`- name: DB_PASSWORD…# c…\n…\n…value: [secret:credential]\n- value: '[secret:credential]'…\n…name: pw`
  ],
  [
    "escaped line breaks between an env entry's name and value",
    String.raw`name: DB_PASSWORD${ESCAPED_NEWLINES}value: x1 value: 'y2'${ESCAPED_NEWLINES}name: pw`,
    String.raw`name: DB_PASSWORD…value: [secret:credential]…name: pw`
  ],
  [
    "blanks around an env entry's value of several words",
    `- name: DB_PASSWORD\n${SPACES}value:${TABS}hunter2 Sup3r${SPACES}x`,
    "- name: DB_PASSWORD\n…value:…[secret:credential]"
  ],
  [
    "escaped tabs before an env entry's value and name",
    String.raw`"name": "DB_PASSWORD",\n${ESCAPED_TABS}"value": "x1"\n{"value": "y2",\n${ESCAPED_TABS}"name": "pw"}`,
    String.raw`"name": "DB_PASSWORD",…"value": "[secret:credential]"\n{"value": "[secret:credential]",…"name": "pw"}`
  ],
  // Entries read whole (env-entries.ts).
  [
    "blanks around a block scalar's header and lines",
    `- name: DB_PASSWORD\n  value: |${SPACES}\n${SPACES}x1\n${TABS}y2\n- name: LOG_LEVEL`,
    "- name: DB_PASSWORD\n  value: |…\n…[secret:credential]\n- name: LOG_LEVEL"
  ],
  [
    "blanks between an entry's keys",
    `- name:${SPACES}DB_PASSWORD${TABS}\n${SPACES}type: x\n  value:${SPACES}x1 y2`,
    "- name:…DB_PASSWORD…\n…type: x\n  value:…[secret:credential]"
  ],
  [
    "blanks in an escaped entry's keys and block",
    String.raw`- name: DB_PASSWORD\n${SPACES}type: x\n  value: |${TABS}\n${SPACES}x1\n`,
    String.raw`- name: DB_PASSWORD\n…type: x\n  value: |…\n…[secret:credential]\n`
  ],
  [
    "blanks in a single-quoted value",
    `- name: DB_PASSWORD\n  value: 'it''s${SPACES}x1'`,
    "- name: DB_PASSWORD\n  value: '[secret:credential]'"
  ],
  [
    "blanks around and in a flow mapping",
    `${SPACES}{name: API_TOKEN,${TABS}value: x1${SPACES}y2}${SPACES}`,
    "…{name: API_TOKEN…value: [secret:credential]}…"
  ],
  [
    "blanks in a Terraform env block",
    `env {${SPACES}value${SPACES}=${TABS}"x1"\n${SPACES}name${SPACES}=${TABS}"DB_PASSWORD"${SPACES}}`,
    `env {…value…=…"[secret:credential]"\n…name…=…"DB_PASSWORD"…}`
  ],
  [
    "blanks around Helm's flags",
    `helm install a .${SPACES}--set${SPACES}env[0].name=DB_PASSWORD,env[0].value=x1${SPACES}`
    + `--set-string${TABS}'e.name=pw,e.value=y2${SPACES}z3'`,
    "helm install a .…--set…env[0].name=DB_PASSWORD,env[0].value=[secret:credential]…"
    + "--set-string…'e.name=pw,e.value=[secret:credential]'"
  ],
  [
    "blanks in a Helm value quoted inside its argument",
    `--set env[0].name=DB_PASSWORD,env[0].value="x1${SPACES}y2",e.name=pw,e.value='z3,${TABS}'`,
    "--set env[0].name=DB_PASSWORD,env[0].value=[secret:credential],e.name=pw,e.value=[secret:credential]"
  ],
  [
    "backslashes in a JSON entry's value, another key between",
    `{"name":"DB_PASSWORD","type":"x","value":"${BACKSLASHES}"}`,
    `{"name":"DB_PASSWORD","type":"x","value":"[secret:credential]"}`
  ],
  ["blanks after Basic", `Basic${SPACES}Ym9iOmJvYg==`, "Basic…[secret:bearer-token]"],
  [
    "Basic and a base64 run that ends in a dot",
    `Basic ${"YWJj".repeat(MEGABYTE / 4)}.`,
    `Basic ${"YWJj".repeat(MEGABYTE / 4)}.`
  ],
  [
    "lines of a name, a colon and blanks",
    `password:${SPACES.slice(0, 5_000)}\n`.repeat(200),
    "password:…\n".repeat(200)
  ],
  // JSON escaped once, twice or more: a value's run of backslashes is read whole, once, to find the closing quote.
  [
    "backslashes in a value escaped twice",
    String.raw`{\\\"password\\\":\\\"a${BACKSLASHES}\\\"}`,
    String.raw`{\\\"password\\\":\\\"[secret:credential]\\\"}`
  ],
  [
    "backslashes in a value escaped once",
    String.raw`{\"token\":\"${BACKSLASHES}\"}`,
    String.raw`{\"token\":\"[secret:credential]\"}`
  ],
  [
    "backslashes in an escaped assignment",
    String.raw`DB_PASSWORD=\\\"${BACKSLASHES}x\\\" user`,
    String.raw`DB_PASSWORD=\\\"[secret:credential]\\\" user`
  ],
  [
    "backslashes in an escaped credential attribute",
    String.raw`key=\\\"pwd\\\" value=\\\"${BACKSLASHES}x1\\\" />`,
    String.raw`key=\\\"pwd\\\" value=\\\"[secret:credential]\\\" />`
  ],
  [
    "backslashes in an escaped Kubernetes Secret",
    String.raw`\\\"kind\\\":\\\"Secret\\\",\\\"data\\\":{\\\"a\\\":\\\"${BACKSLASHES}b\\\"}`,
    String.raw`\\\"kind\\\":\\\"Secret\\\",\\\"data\\\":{\\\"a\\\":\\\"[secret:kubernetes-secret]\\\"}`
  ],
  [
    "backslashes in an escaped SecretString",
    String.raw`\\\"SecretString\\\":\\\"${BACKSLASHES}\\\"}`,
    String.raw`\\\"SecretString\\\":\\\"[secret:secret-manager]\\\"}`
  ],
  // The name's quote may be escaped five times: a run of backslashes keeps that many, and the rest is the value.
  ["backslashes after an assignment", `password=${BACKSLASHES}x1`, `password=${FIVE}[secret:credential]`],
  // Escaped five times: the value's backslashes are blocks of 32, read as such.
  [
    "backslashes in a value escaped five times",
    `{${FIVE}"password${FIVE}":${FIVE}"${BACKSLASHES}${FIVE}"}`,
    `{${FIVE}"password${FIVE}":${FIVE}"[secret:credential]${FIVE}"}`
  ],
  [
    "backslashes in a credential attribute escaped five times",
    `key=${FIVE}"pwd${FIVE}" value=${FIVE}"${BACKSLASHES}x1${FIVE}" />`,
    `key=${FIVE}"pwd${FIVE}" value=${FIVE}"[secret:credential]${FIVE}" />`
  ],
  [
    "backslashes in a SecretString escaped five times",
    `${FIVE}"SecretString${FIVE}":${FIVE}"${BACKSLASHES}${FIVE}"}`,
    `${FIVE}"SecretString${FIVE}":${FIVE}"[secret:secret-manager]${FIVE}"}`
  ]
]

describe("adversarial input", () => {
  it.each(ADVERSARIAL)("redacts 5 MB of %s in linear time", (_, input) => {
    const started = performance.now()
    redactText(input)
    expect(performance.now() - started).toBeLessThan(LINEAR_MS)
  })

  it("redacts random 1 MB mixes of rule fragments in linear time", () => {
    const fragments = [
      "password",
      "token",
      "api_key",
      "_",
      ":",
      "=",
      "\"",
      "'",
      "\\",
      "sk-",
      "sk-ant-",
      "</",
      ">",
      "<",
      " ",
      "\t",
      "\n"
    ]
      .concat([
        "a",
        "1",
        "://",
        "@",
        "eyJ",
        ".",
        "PRIVATE KEY-----",
        "-----END ",
        "Bearer ",
        "authorization",
        "--",
        "-",
        "name:",
        "value:",
        "{",
        "}",
        "|\n  ",
        "--set ",
        ".name=",
        ".value=",
        "AKIA",
        "ghp_",
        "/",
        "string"
      ])
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
    for (let run = 0; run < 20; run++) {
      // A few fragments per run, so the same structure repeats the way an attack would repeat it.
      const alphabet = Array.from(
        { length: 2 + Math.floor(random() * 5) },
        () => fragments[Math.floor(random() * fragments.length)]!
      )
      let input = ""
      while (input.length < 1_000_000) input += alphabet[Math.floor(random() * alphabet.length)]
      const started = performance.now()
      redactText(input)
      expect(performance.now() - started, JSON.stringify(alphabet)).toBeLessThan(LINEAR_MS)
    }
  }, 20 * LINEAR_MS)

  it.each(PAST_THE_STACK)("redacts a value of 8 to 12 MB: %s", (_, input, expected) => {
    const { text } = redactText(input)
    // Not compared by expect: a difference would print megabytes.
    expect(text === (expected ?? input), text.slice(0, 80)).toBe(true)
  })

  it.each(UNREADABLE)("masks %s of 12 MB, rather than throwing", (_, input, secret) => {
    const { text } = redactText(input)
    expect(text.includes(secret), text.slice(0, 80)).toBe(false)
  })

  it("fails safe on a flood of unclosed tags: nothing after the first one survives", () => {
    expect(redactText("visible " + fill("<private>") + "hidden").text).toBe("visible [private]")
  })

  it("redacts a 5 MB value spread over 100,000 strings in linear time", () => {
    const input = Array.from(
      { length: 100_000 },
      (_, i) => ({ i, line: `line ${i} of ordinary output, 50 chars long`, password: "p" })
    )
    const started = performance.now()
    const { redactions } = redactValue(input)
    expect(performance.now() - started).toBeLessThan(LINEAR_MS)
    expect(redactions).toBe(100_000)
  })

  it("redacts 1 MB runs of blanks or backslashes in linear time, in a process stopped after a minute", () => {
    const child = spawnSync(process.execPath, [REDACT], {
      input: JSON.stringify(BLANK_RUNS.map(([, input]) => input)),
      encoding: "utf8",
      // Room for the shapes with several runs, each kept in the output.
      maxBuffer: 6 * BLANK_RUNS.length * MEGABYTE,
      timeout: LINEAR_MS
    })
    expect(child.error?.message, "a rule backtracks over the blanks").toBeUndefined()
    const redacted = JSON.parse(child.stdout) as ReadonlyArray<string>
    BLANK_RUNS.forEach(([shape, , expected], index) => expect(shortened(redacted[index]!), shape).toBe(expected))
  })
})
