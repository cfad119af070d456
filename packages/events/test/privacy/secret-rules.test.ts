import { describe, expect, it } from "vitest"
import { isSensitiveKey, redactText, SECRET_RULES } from "../../src/privacy/index.ts"
import { SENSITIVE_NAME } from "../../src/privacy/secret-rules.ts"

const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\nProc-Type: 4,ENCRYPTED\n+/z9==\n"
  + "-----END RSA PRIVATE KEY-----"

const RSA_BODY = [
  "MIIEowIBAAKCAQEA2uxQk3vT9pLmN8rS4wYzX1cVbKq7JhGfDsA0pQ",
  "Zr5TtYw2qPlMnBkJhGfDsAqZxWvTrPlMnBkJhGfDsA9s8d7f6g5h4j3k2l",
  "Pq1Wm3Xr8Kc4VbN6Hj2Tg5Yf7Ud9Se0Ra1Qz3Xw5Cv7Bn9Ml2Kj4Hg6Fd8"
]
/** A PEM private key in base64, after `lead` (which shifts where `-----BEGIN` falls in the encoding). */
const base64Pem = (lead: string): string =>
  Buffer.from(`${lead}-----BEGIN PRIVATE KEY-----\n${RSA_BODY.join("\n")}\n-----END PRIVATE KEY-----\n`).toString(
    "base64"
  )

/** An Azure SAS signature: HMAC-SHA256 in base64, URL-encoded. */
const SAS_SIG = "AbC%2Bdef0123456789ghijklmnOPQRSTuvw%2Fxyz0%3D"

/** JSON encoded as a string `times` more times: a quote then has 2^times - 1 backslashes before it. */
const encoded = (value: unknown, times: number): string => {
  let text = JSON.stringify(value)
  for (let i = 0; i < times; i++) text = JSON.stringify(text)
  return text
}

/** The backslashes before a quote in JSON escaped four times, and five. */
const FOUR = "\\".repeat(15)
const FIVE = "\\".repeat(31)

/** [kind, input, expected output]: each rule masks exactly the sensitive part. */
const MASKED: ReadonlyArray<readonly [string, string, string]> = [
  ["aws-access-key", "key AKIAIOSFODNN7EXAMPLE here", "key [secret:aws-access-key] here"],
  ["aws-access-key", "ASIAY34FZKBOKMUTVV7A", "[secret:aws-access-key]"],
  [
    "aws-secret-key",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws_secret_access_key = [secret:aws-secret-key]"
  ],
  [
    "aws-secret-key",
    "\"SecretAccessKey\": \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
    "\"SecretAccessKey\": \"[secret:aws-secret-key]\""
  ],
  // Beside its access key id, unnamed: the console's credentials CSV, a table's row.
  [
    "aws-secret-key",
    "Access key ID,Secret access key\nAKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    + "| ASIAY34FZKBOKMUTVV7A | N8raJ4nWF0jSBwfO9sbK5oXG1kTCxgP/tcL6pYH2 |",
    "Access key ID,Secret access key\n[secret:aws-access-key],[secret:aws-secret-key]\n"
    + "| [secret:aws-access-key] | [secret:aws-secret-key] |"
  ],
  [
    "anthropic-key",
    "ANTHROPIC_API_KEY=sk-ant-api03-Zx9_abcdefghijklmnopqrstuvwxyz-0123",
    "ANTHROPIC_API_KEY=[secret:anthropic-key]"
  ],
  ["openai-key", "use sk-proj-Ab3dEfGhIjKlMnOpQrStUvWx_yz012 now", "use [secret:openai-key] now"],
  ["openai-key", "sk-T3BlbkFJabcdefghijklmnopqrstuvwxyz012345", "[secret:openai-key]"],
  ["github-token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[secret:github-token]"],
  [
    "github-token",
    "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ghs_abcdefghijklmnopqrstuvwxyz0123456789",
    "[secret:github-token] [secret:github-token]"
  ],
  ["github-token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "[secret:github-token]"],
  ["gitlab-token", "glpat-xY12abcdefghijKLMNOP", "[secret:gitlab-token]"],
  ["slack-token", "xoxb-1234567890-0987654321-AbCdEfGhIjKl", "[secret:slack-token]"],
  [
    "slack-webhook",
    "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
    "https://hooks.slack.com/services/[secret:slack-webhook]"
  ],
  [
    "stripe-key",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc rk_live_abcdefghijklmnop1234",
    "[secret:stripe-key] [secret:stripe-key]"
  ],
  ["google-api-key", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "[secret:google-api-key]"],
  [
    "npm-token",
    "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "//registry.npmjs.org/:_authToken=[secret:npm-token]"
  ],
  ["jwt", `token ${JWT}.`, "token [secret:jwt]."],
  ["private-key", `before\n${PEM}\nafter`, "before\n[secret:private-key]\nafter"],
  ["private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n(truncated", "[secret:private-key]"],
  [
    "url-password",
    "postgres://admin:s3cr3t@db.example.com:5432/app",
    "postgres://admin:[secret:url-password]@db.example.com:5432/app"
  ],
  ["url-password", "redis://:p@ss:word@localhost:6379", "redis://:[secret:url-password]@localhost:6379"],
  [
    "authorization",
    "curl -H \"Authorization: Bearer abc.def\" https://x",
    "curl -H \"Authorization: Bearer [secret:authorization]\" https://x"
  ],
  ["authorization", "authorization: Basic dXNlcjpwYXNz", "authorization: Basic [secret:authorization]"],
  ["authorization", "{\"Authorization\": \"token xyz\"}", "{\"Authorization\": \"token [secret:authorization]\"}"],
  ["bearer-token", "sent Bearer 0a1b2c3d4e5f6a7b8c9d to the API", "sent Bearer [secret:bearer-token] to the API"],
  // Base64 credentials outside a Kubernetes Secret: a Docker config's auth, .npmrc's _auth, a Basic header, and Basic
  // with base64 of `user:password` anywhere (Maven's <value>), digits or none.
  [
    "credential",
    `{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNzd29yZA=="}}}`,
    `{"auths":{"registry.example.com":{"auth":"[secret:credential]"}}}`
  ],
  [
    "credential",
    "_auth=dXNlcjpwYXNzd29yZA==\n//registry.example.com/:_auth = \"dXNlcjpwYXNzd29yZA==\"",
    "_auth=[secret:credential]\n//registry.example.com/:_auth = \"[secret:credential]\""
  ],
  ["authorization", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [secret:authorization]"],
  // Yarn's npmAuthIdent (.yarnrc.yml): user:password, or its base64.
  [
    "credential",
    `npmRegistries:\n  "https://npm.example.com":\n    npmAuthIdent: "YWxpY2U6c2VjcmV0"\n`
    + "npmAuthIdent: alice:s3cret",
    `npmRegistries:\n  "https://npm.example.com":\n    npmAuthIdent: "[secret:credential]"\n`
    + "npmAuthIdent: [secret:credential]"
  ],
  // Yarn 1's .yarnrc: key and value apart by a space, both often quoted; an older npm token is no `npm_` one.
  [
    "credential",
    `email "alice@example.com"\n"//registry.npmjs.org/:_authToken" "0a1b2c3d-4e5f-6789-abcd-ef0123456789"\n`
    + `  "//npm.example.com/:_password" "c2VjcmV0cGFzcw=="\n_auth dXNlcjpwYXNzd29yZA==`,
    `email "alice@example.com"\n"//registry.npmjs.org/:_authToken" "[secret:credential]"\n`
    + `  "//npm.example.com/:_password" "[secret:credential]"\n_auth [secret:credential]`
  ],
  ["bearer-token", "<value>Basic aHBtYjpremdXVHNtWQ==</value>", "<value>Basic [secret:bearer-token]</value>"],
  [
    "bearer-token",
    "sent Basic Ym9iOmJvYg== then BASIC ZWtrdnVuOnZyeWVoZVJl",
    "sent Basic [secret:bearer-token] then BASIC [secret:bearer-token]"
  ],
  ["credential", "DB_PASSWORD=hunter2", "DB_PASSWORD=[secret:credential]"],
  ["credential", "export API_KEY='abc def'", "export API_KEY='[secret:credential]'"],
  ["credential", "passwd: s3cret", "passwd: [secret:credential]"],
  ["credential", "  password: correct horse battery", "  password: [secret:credential]"],
  ["credential", "X-Api-Key: 12345", "X-Api-Key: [secret:credential]"],
  [
    "credential",
    "{\"password\": \"p@ss\\\"w\", \"user\": \"bob\"}",
    "{\"password\": \"[secret:credential]\", \"user\": \"bob\"}"
  ],
  ["credential", "{'client_secret': 'abc', 'id': 1}", "{'client_secret': '[secret:credential]', 'id': 1}"],
  [
    "credential",
    "login({ user: \"a\", password: \"xyz\" })",
    "login({ user: \"a\", password: \"[secret:credential]\" })"
  ],
  ["credential", "mysql --password foo --user root", "mysql --password [secret:credential] --user root"],
  ["credential", "deploy --api-key=abc123", "deploy --api-key=[secret:credential]"],
  ["credential", "const token: string = \"tok123\"", "const token: string = \"[secret:credential]\""],
  ["credential", "os.environ[\"SECRET\"] = \"sss\"", "os.environ[\"SECRET\"] = \"[secret:credential]\""],
  ["credential", "access_token=abc&state=1", "access_token=[secret:credential]&state=1"],
  [
    "credential",
    "apikey=abc auth_token=def private_key=ghi",
    "apikey=[secret:credential] auth_token=[secret:credential] private_key=[secret:credential]"
  ],
  ["credential", "password = \"never closed", "password = \"[secret:credential]"],
  // An empty value hides nothing after it; a value beside it, or glued to it (a shell reads ""x as x), is masked.
  [
    "credential",
    `{"password": "", "token": "Tok-9x1"} password = "abc" rest`,
    `{"password": "", "token": "[secret:credential]"} password = "[secret:credential]" rest`
  ],
  [
    "credential",
    String.raw`{\"password\":\"\",\"api_key\":\"Esc-9x2\"} PASSWORD=""hunter2 and the rest`,
    String.raw`{\"password\":\"\",\"api_key\":\"[secret:credential]\"} PASSWORD="[secret:credential]`
  ],
  ["credential", `define('DB_PASSWORD', '"Qu0te-x3"');`, `define('DB_PASSWORD', '[secret:credential]');`],
  ["credential", "- name: DB_PASSWORD\n  value: supersecret", "- name: DB_PASSWORD\n  value: [secret:credential]"],
  [
    "credential",
    "{\"name\":\"API_TOKEN\",\"value\":\"zzz\"}",
    "{\"name\":\"API_TOKEN\",\"value\":\"[secret:credential]\"}"
  ],
  [
    "credential",
    "{\\\"password\\\":\\\"hunter2\\\",\\\"user\\\":\\\"bob\\\"}",
    "{\\\"password\\\":\\\"[secret:credential]\\\",\\\"user\\\":\\\"bob\\\"}"
  ],
  // JSON held in a string of other JSON, escaped twice (a kubectl annotation holding a ConfigMap's JSON value, a log
  // that stringifies twice) and three times: masked to the quote closing the value, its escapes kept.
  [
    "credential",
    String.raw`{\"config\":\"{\\\"password\\\":\\\"hunter2-Secret\\\"}\"}`,
    String.raw`{\"config\":\"{\\\"password\\\":\\\"[secret:credential]\\\"}\"}`
  ],
  [
    "credential",
    JSON.stringify(JSON.stringify({ config: JSON.stringify({ api_key: "Tr1ple-Esc4ped", user: "bob" }) })),
    JSON.stringify(JSON.stringify({ config: JSON.stringify({ api_key: "[secret:credential]", user: "bob" }) }))
  ],
  [
    "credential",
    String.raw`DB_PASSWORD=\\\"Dbl-Esc4ped\\\" env: [{\\\"name\\\":\\\"API_TOKEN\\\",`
    + String.raw`\\\"value\\\":\\\"Zz9-tok\\\"}]`,
    String.raw`DB_PASSWORD=\\\"[secret:credential]\\\" env: [{\\\"name\\\":\\\"API_TOKEN\\\",`
    + String.raw`\\\"value\\\":\\\"[secret:credential]\\\"}]`
  ],
  // A value holding a backslash or a quote, escaped once and twice: the whole value, up to its own closing quote.
  [
    "credential",
    JSON.stringify(JSON.stringify({ password: "ends\\", token: "Qu0te\"Tail-9x" })),
    JSON.stringify(JSON.stringify({ password: "[secret:credential]", token: "[secret:credential]" }))
  ],
  [
    "credential",
    JSON.stringify(JSON.stringify(JSON.stringify({ password: "a\"b\\c", user: "bob" }))),
    JSON.stringify(JSON.stringify(JSON.stringify({ password: "[secret:credential]", user: "bob" })))
  ],
  [
    "credential",
    String.raw`<add key=\\\"ApiKey\\\" value=\\\"XmlDbl-Esc4\\\" />`,
    String.raw`<add key=\\\"ApiKey\\\" value=\\\"[secret:credential]\\\" />`
  ],
  // Escaped four and five times (each log that quotes such JSON as a string adds a level), each value masked up to its
  // own closing quote: one holding a quote or a backslash is masked whole.
  [
    "credential",
    `${FOUR}"password${FOUR}":${FOUR}"hunter2-xyz${FOUR}"`,
    `${FOUR}"password${FOUR}":${FOUR}"[secret:credential]${FOUR}"`
  ],
  [
    "credential",
    encoded({ password: "Qu0te\"Back\\slash", user: "bob", env: [{ name: "API_TOKEN", value: "Four-Tok9" }] }, 4),
    encoded({
      password: "[secret:credential]",
      user: "bob",
      env: [{ name: "API_TOKEN", value: "[secret:credential]" }]
    }, 4)
  ],
  [
    "credential",
    encoded({ config: JSON.stringify({ api_key: "Five-Esc4ped", user: "bob" }), token: "Five-Tok9" }, 4),
    encoded(
      { config: JSON.stringify({ api_key: "[secret:credential]", user: "bob" }), token: "[secret:credential]" },
      4
    )
  ],
  [
    "credential",
    `DB_PASSWORD=${FIVE}"Five-Esc4ped${FIVE}" user <add key=${FOUR}"ApiKey${FOUR}" `
    + `value=${FOUR}"XmlFour-Esc4${FOUR}" />`,
    `DB_PASSWORD=${FIVE}"[secret:credential]${FIVE}" user <add key=${FOUR}"ApiKey${FOUR}" `
    + `value=${FOUR}"[secret:credential]${FOUR}" />`
  ],
  ["credential", "mysql -uroot -phunter2 app", "mysql -uroot -p[secret:credential] app"],
  ["credential", "sshpass -p hunter2 ssh host", "sshpass -p [secret:credential] ssh host"],
  ["credential", "curl -u admin:hunter2 https://x", "curl -u admin:[secret:credential] https://x"],
  [
    "credential",
    "aws configure set aws_secret_access_key abc",
    "aws configure set aws_secret_access_key [secret:credential]"
  ],
  ["credential", `curl -H "X-Auth-Token: abc" x`, `curl -H "X-Auth-Token: [secret:credential]" x`],
  ["credential", `'db_password' => 'abc',`, `'db_password' => '[secret:credential]',`],
  ["credential", "APP_KEY=abc JWT_SIGNING_KEY=def", "APP_KEY=[secret:credential] JWT_SIGNING_KEY=[secret:credential]"],
  ["credential", "the db password: hunter2x, ok", "the db password: [secret:credential], ok"],
  ["credential", "the api key is Tr0ub4dor-and-3.", "the api key is [secret:credential]."],
  ["google-oauth-token", "ya29.a0AfH6SMBx3kQ9vLr2Zt8pW1nY5cD7eF0gH4jK6", "[secret:google-oauth-token]"],
  ["sendgrid-key", "SG.ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kq", "[secret:sendgrid-key]"],
  [
    "private-key",
    "Private-Lines: 2\nAAAAIHx9Zk3wQ7pL\nmN2vR8sT1uY4bC6dE0fG\nPrivate-MAC: 8f1e",
    "Private-Lines: 2\n[secret:private-key]\nPrivate-MAC: 8f1e"
  ],
  [
    "authorization",
    "\"Authorization\": [\"Bearer abcdefghijklmnop\"]",
    "\"Authorization\": [\"Bearer [secret:authorization]\"]"
  ],
  ["github-token", "backup_ghp_abcdefghijklmnopqrstuvwxyz0123456789.txt", "backup_[secret:github-token].txt"],
  // A key without its BEGIN line: the end of the file (`tail -n 3 id_rsa`), from the first base64 line on.
  [
    "private-key",
    `$ tail -n 3 id_rsa\n${RSA_BODY.slice(1).join("\n")}\n-----END RSA PRIVATE KEY-----\nok`,
    "$ tail -n 3 id_rsa\n[secret:private-key]\nok"
  ],
  // The body alone (`grep -v -- ----- key`): Ed25519 PKCS#8, PKCS#1 RSA over lines, SEC1 P-256, OpenSSH.
  ["private-key", "MC4CAQAwBQYDK2VwBCIEIPq1Wm3Xr8Kc4VbN6Hj2Tg5Yf7Ud9Se0Ra1Qz3Xw5Cv7\n", "[secret:private-key]\n"],
  ["private-key", `${RSA_BODY.join("\n")}\nnext`, "[secret:private-key]\nnext"],
  ["private-key", "key MHcCAQEEIKq7JhGfDsA0pQZr5TtYw2qPlMnBkJhGfDsAqZxWv end", "key [secret:private-key] end"],
  ["private-key", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "[secret:private-key]"],
  // A PEM file in base64 (`base64 -w0 key.pem`, a Kubernetes Secret), at each of the three alignments.
  ["private-key", `tls.key: ${base64Pem("")}\nkind: Secret`, "tls.key: [secret:private-key]\nkind: Secret"],
  ["private-key", base64Pem("a"), "YS0t[secret:private-key]"],
  ["private-key", base64Pem("ab"), "YWIt[secret:private-key]"],
  // A YAML block scalar: the lines indented under the key, up to the next line indented no deeper than it.
  [
    "credential",
    "db:\n  password: |\n    Hunt3rBlockS3cretA1\n\n    second line\n  user: app",
    "db:\n  password: |\n    [secret:credential]\n  user: app"
  ],
  ["credential", "password: >-\r\n  FoldedS3cretValue9\r\nnext: 1", "password: >-\r\n  [secret:credential]\r\nnext: 1"],
  [
    "credential",
    "- client_secret: |-  # rotated\n\n    CsBlock9x\n- id: 3",
    "- client_secret: |-  # rotated\n\n    [secret:credential]\n- id: 3"
  ],
  // A value alone on the line after its key: a YAML plain scalar, a quoted string a formatter wrapped (JSON, code),
  // a note.
  [
    "credential",
    "db:\n  password:\n    hunter2-Sup3r-secret\n  user: app",
    "db:\n  password:\n    [secret:credential]\n  user: app"
  ],
  [
    "credential",
    "{\n  \"client_secret\":\n    \"Wr4pped JSON s3cret\",\n  \"id\": 1\n}",
    "{\n  \"client_secret\":\n    \"[secret:credential]\",\n  \"id\": 1\n}"
  ],
  [
    "credential",
    "const apiKey =\n  \"Ak9fWrappedS3cret\";\nlet token: string =\n  'tok9WrappedValue'",
    "const apiKey =\n  \"[secret:credential]\";\nlet token: string =\n  '[secret:credential]'"
  ],
  ["credential", "the new password:\r\nN3xtLine-S3cret\r\n", "the new password:\r\n[secret:credential]\r\n"],
  // Azure connection strings, ODBC, .pgpass, short JSON names, a continued shell line, a getenv default.
  [
    "credential",
    "AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==; SharedAccessKey=AbCd0123+/=;",
    "AccountName=acct;AccountKey=[secret:credential] SharedAccessKey=[secret:credential]"
  ],
  ["credential", "Server=db;Uid=sa;Pwd=OdbcS3cret99;", "Server=db;Uid=sa;Pwd=[secret:credential]"],
  // Beside an auth scheme, a credential in an auth element or under an auth name is masked, and so is a value that is
  // more than a scheme's name.
  [
    "credential",
    "<auth>basic</auth><auth>token-value-here</auth><password>x</password><auth>dXNlcjpwYXNzd29yZA==</auth>",
    "<auth>basic</auth><auth>[secret:credential]</auth><password>[secret:credential]</password>"
    + "<auth>[secret:credential]</auth>"
  ],
  [
    "credential",
    "auth: basic-x1\n_auth=ntlm2 auth=token",
    "auth: [secret:credential]\n_auth=[secret:credential] auth=[secret:credential]"
  ],
  // A comment after an auth scheme leaves only a bare scheme: a credential before a comment is masked, and so is a
  // `#` inside quotes, in an element or glued to the word, which is part of the value.
  [
    "credential",
    "auth: hunter2-Sup3r # the proxy's\r\nsmtp_auth: basic x # two words\nauth: basic#x1\n"
    + `auth = "basic # S3cret-x"\n<auth>basic # x</auth>`,
    "auth: [secret:credential]\r\nsmtp_auth: [secret:credential]\nauth: [secret:credential]\n"
    + `auth = "[secret:credential]"\n<auth>[secret:credential]</auth>`
  ],
  // Beside a working directory, a password named PWD, DB_PWD or PASSWD is masked, a path or not.
  [
    "credential",
    "PWD=/home/alice PASSWD=s3cret DB_PWD=/abc123 PWD=s3cretPw9 Pwd=hunter22;",
    "PWD=/home/alice PASSWD=[secret:credential] DB_PWD=[secret:credential] PWD=[secret:credential]"
    + " Pwd=[secret:credential]"
  ],
  // So is an env entry's, its value on the next line (a pod's env as kubectl prints it): named DB_PWD or
  // DB_PASSWORD, or PWD holding anything but an absolute path.
  [
    "credential",
    "- name: DB_PASSWORD\n  value: /srv/Pw-9x\n- name: DB_PWD\r\n  value: /abc123\n- name: PWD\n  value: s3cretPw9\n"
    + `{"name": "PWD",\n "value": "./Rel-Pw9"}`,
    "- name: DB_PASSWORD\n  value: [secret:credential]\n- name: DB_PWD\r\n  value: [secret:credential]\n"
    + `- name: PWD\n  value: [secret:credential]\n{"name": "PWD",\n "value": "[secret:credential]"}`
  ],
  // A comment after the name, to the end of its line (YAML's, after a blank): the value is still on the next line.
  // Quoted or not, tabs, CRLF, any case, a comment that mentions a name that is no credential's.
  [
    "credential",
    "- name: DB_PASSWORD # db\n  value: hunter2-xyz",
    "- name: DB_PASSWORD # db\n  value: [secret:credential]"
  ],
  [
    "credential",
    "- name: 'API_TOKEN'\t#\trotated\r\n\tvalue: 'Tok-9x'\n- NAME: \"app_secret\"  # old name: LOG_LEVEL  \n"
    + "  VALUE: \"Sec-8y\"\n- name: DB_PWD #\n  value: /srv/Pw-9x",
    "- name: 'API_TOKEN'\t#\trotated\r\n\tvalue: '[secret:credential]'\n"
    + "- NAME: \"app_secret\"  # old name: LOG_LEVEL  \n  VALUE: \"[secret:credential]\"\n"
    + "- name: DB_PWD #\n  value: [secret:credential]"
  ],
  // A bare value on a line of its own is the rest of the line, as YAML reads it (a comment with it), not one word.
  [
    "credential",
    "- name: DB_PASSWORD\n  value: correct horse battery # rotated\n- name: API_TOKEN\r\n  value: Tok 9x\r\n",
    "- name: DB_PASSWORD\n  value: [secret:credential]\n- name: API_TOKEN\r\n  value: [secret:credential]\r\n"
  ],
  // Blank or comment lines between the name and the value, three at most: neither holds another entry.
  ["credential", "- name: DB_PASSWORD\n\n  value: hunter2-xyz", "- name: DB_PASSWORD\n\n  value: [secret:credential]"],
  [
    "credential",
    "- name: DB_PASSWORD\n  # rotated monthly\n  value: hunter2-xyz",
    "- name: DB_PASSWORD\n  # rotated monthly\n  value: [secret:credential]"
  ],
  [
    "credential",
    "- name: API_TOKEN # a\r\n\r\n\t# b, was name: OLD_TOKEN\r\n \t\r\n  VALUE: 'Tok-9x'\n"
    + `{"name": "db_secret",\n\n  "value": "Sec-8y"}`,
    "- name: API_TOKEN # a\r\n\r\n\t# b, was name: OLD_TOKEN\r\n \t\r\n  VALUE: '[secret:credential]'\n"
    + `{"name": "db_secret",\n\n  "value": "[secret:credential]"}`
  ],
  // The value before the name, in the same entry: YAML lines, JSON on one line or more, as text.
  ["credential", "- value: hunter2-xyz\n  name: DB_PASSWORD", "- value: [secret:credential]\n  name: DB_PASSWORD"],
  [
    "credential",
    `{"value": "hunter2-xyz", "name": "DB_PASSWORD"}`,
    `{"value": "[secret:credential]", "name": "DB_PASSWORD"}`
  ],
  [
    "credential",
    `[\n  {\n    "value": "hunter2-xyz",\n    "name": "DB_PASSWORD"\n  }\n]`,
    `[\n  {\n    "value": "[secret:credential]",\n    "name": "DB_PASSWORD"\n  }\n]`
  ],
  // The whole of a YAML line's value (a comment with it), quotes, CRLF, tabs, blank and comment lines, upper case, a
  // flow mapping, a name ending in a comment; DB_PWD holding a path and PWD holding anything but one.
  [
    "credential",
    "  - value: correct horse Pw9 # rotated\n    name: DB_PASSWORD\n"
    + "- value: 'Tok-9x' # a\r\n\r\n\t# b\r\n\tNAME: 'API_TOKEN'\n"
    + "- VALUE: \"Sec 8y\"\n  Name: \"app_secret\" # c\n- {value: Key-7z, name: ENCRYPTION_KEY}\n"
    + "- value: /srv/Pw-9x\n  name: DB_PWD\n- value: s3cretPw9\n  name: PWD",
    "  - value: [secret:credential]\n    name: DB_PASSWORD\n- value: '[secret:credential]' # a\r\n\r\n\t# b\r\n"
    + "\tNAME: 'API_TOKEN'\n- VALUE: \"[secret:credential]\"\n  Name: \"app_secret\" # c\n"
    + "- {value: [secret:credential], name: ENCRYPTION_KEY}\n- value: [secret:credential]\n  name: DB_PWD\n"
    + "- value: [secret:credential]\n  name: PWD"
  ],
  // An entry whose lines are escaped in a JSON string (`\n`): a YAML file in a ConfigMap's data, pretty-printed JSON
  // quoted by a log. A comment, blank and comment lines, CRLF, the value first; five levels deep (16 backslashes).
  [
    "credential",
    JSON.stringify("env:\n- name: DB_PASSWORD\n  value: 'hunter2-xyz'\n"),
    JSON.stringify("env:\n- name: DB_PASSWORD\n  value: '[secret:credential]'\n")
  ],
  [
    "credential",
    JSON.stringify(JSON.stringify({ env: [{ name: "DB_PASSWORD", value: "hunter2-xyz" }] }, null, 2)),
    JSON.stringify(JSON.stringify({ env: [{ name: "DB_PASSWORD", value: "[secret:credential]" }] }, null, 2))
  ],
  [
    "credential",
    JSON.stringify(
      "- name: API_TOKEN # a\r\n\r\n  # b\r\n  value: \"Tok-9x\"\r\n- value: 'Sec-8y'\n\n  name: app_secret\n"
    )
    + " " + encoded(JSON.stringify([{ value: "Five-7z", name: "DB_PWD" }], null, 2), 4),
    JSON.stringify(
      "- name: API_TOKEN # a\r\n\r\n  # b\r\n  value: \"[secret:credential]\"\r\n"
        + "- value: '[secret:credential]'\n\n  name: app_secret\n"
    )
    + " " + encoded(JSON.stringify([{ value: "[secret:credential]", name: "DB_PWD" }], null, 2), 4)
  ],
  // A bare value is the rest of its escaped line, and the escaped line break stays; the value of the next line's
  // entry, its name after it, is masked too.
  [
    "credential",
    JSON.stringify("- name: DB_PASSWORD\n  value: correct horse\n- value: Tok-9x\n  name: API_TOKEN\n"),
    JSON.stringify(
      "- name: DB_PASSWORD\n  value: [secret:credential]\n- value: [secret:credential]\n  name: API_TOKEN\n"
    )
  ],
  // JSON indented with tabs, quoted as a string: the tabs are escaped too (`\t`), once or five times.
  [
    "credential",
    JSON.stringify(JSON.stringify([{ name: "DB_PASSWORD", value: "Tab-9x" }], null, "\t"))
    + " " + encoded(JSON.stringify([{ value: "Tab-8y", name: "API_TOKEN" }], null, "\t"), 4),
    JSON.stringify(JSON.stringify([{ name: "DB_PASSWORD", value: "[secret:credential]" }], null, "\t"))
    + " " + encoded(JSON.stringify([{ value: "[secret:credential]", name: "API_TOKEN" }], null, "\t"), 4)
  ],
  // A comment on a line of its own may hold a `\n` as text.
  [
    "credential",
    "- name: DB_PASSWORD # C:\\new\n  value: hunter2-xyz",
    "- name: DB_PASSWORD # C:\\new\n  value: [secret:credential]"
  ],
  // JSON escaped once and five times (31 backslashes before each quote), a quote and a backslash in the value.
  [
    "credential",
    encoded([{ value: "Esc-9x", name: "API_TOKEN" }], 1) + " " +
    encoded({ value: "Qu0te\"Back\\slash", name: "pw" }, 5),
    encoded([{ value: "[secret:credential]", name: "API_TOKEN" }], 1) + " "
    + encoded({ value: "[secret:credential]", name: "pw" }, 5)
  ],
  // An entry read whole (env-entries.ts). A block scalar's value: the lines below its header (`|`, `>-`, `|+` with a
  // blank line in it), CRLF, the value first, and escaped in a JSON string.
  [
    "credential",
    "- name: DB_PASSWORD\n  value: |\n    Block-Pw9\n    second line\n- name: LOG_LEVEL\n  value: debug\n"
    + "- name: API_TOKEN\r\n  value: >- # folded\r\n    Fold-Tok9\r\n- name: app_secret\n  value: |+\n\n    Keep-8y\n\n"
    + "- value: |\n    First-7z\n  name: ENCRYPTION_KEY\n",
    "- name: DB_PASSWORD\n  value: |\n    [secret:credential]\n- name: LOG_LEVEL\n  value: debug\n"
    + "- name: API_TOKEN\r\n  value: >- # folded\r\n    [secret:credential]\r\n- name: app_secret\n  value: |+\n\n"
    + "    [secret:credential]\n\n- value: |\n    [secret:credential]\n  name: ENCRYPTION_KEY\n"
  ],
  [
    "credential",
    JSON.stringify("env:\n- name: DB_PASSWORD\n  value: |\n    Esc-Block9\n- name: LOG_LEVEL\n  value: debug\n"),
    JSON.stringify(
      "env:\n- name: DB_PASSWORD\n  value: |\n    [secret:credential]\n- name: LOG_LEVEL\n  value: debug\n"
    )
  ],
  // Another key between the name and the value, either way round: JSON on one line or more, escaped.
  [
    "credential",
    `{"name":"DB_PASSWORD","type":"x","value":"s3cr3t-Js9"} {"value":"Tok-9x","type":"y","name":"API_TOKEN"}\n`
    + JSON.stringify([{ name: "app_secret", description: "the app's", value: "Pretty-8y" }], null, 2) + "\n"
    + JSON.stringify(JSON.stringify({ value: "Esc-7z", type: "plain", name: "DB_PWD" })),
    `{"name":"DB_PASSWORD","type":"x","value":"[secret:credential]"} `
    + `{"value":"[secret:credential]","type":"y","name":"API_TOKEN"}\n`
    + JSON.stringify([{ name: "app_secret", description: "the app's", value: "[secret:credential]" }], null, 2) + "\n"
    + JSON.stringify(JSON.stringify({ value: "[secret:credential]", type: "plain", name: "DB_PWD" }))
  ],
  // And YAML: other keys, a nested mapping among them.
  [
    "credential",
    "- name: DB_PASSWORD\n  type: secret\n  value: Yaml-Pw9\n- value: Yaml-Tok9\n  description: rotated\n"
    + "  labels:\n    tier: db\n  name: API_TOKEN\n",
    "- name: DB_PASSWORD\n  type: secret\n  value: [secret:credential]\n- value: [secret:credential]\n"
    + "  description: rotated\n  labels:\n    tier: db\n  name: API_TOKEN\n"
  ],
  // Any number of blank or comment lines between them (the rules read three).
  [
    "credential",
    "- name: DB_PASSWORD\n\n  # a\n\n  # b\n\n  value: Gap-Pw9",
    "- name: DB_PASSWORD\n\n  # a\n\n  # b\n\n  value: [secret:credential]"
  ],
  // A single-quoted value holding `''`, and a double-quoted one over two lines: all of it, its quotes kept.
  [
    "credential",
    "- name: DB_PASSWORD\n  value: 'it''s-a-S3cret'\n- name: API_TOKEN\n  value: \"first-Tok9\n    second\"\n",
    "- name: DB_PASSWORD\n  value: '[secret:credential]'\n- name: API_TOKEN\n  value: \"[secret:credential]\"\n"
  ],
  // A flow mapping's value of several words.
  [
    "credential",
    "{name: DB_PASSWORD, value: one two}\n- {value: correct horse, name: API_TOKEN}",
    "{name: DB_PASSWORD, value: [secret:credential]}\n- {value: [secret:credential], name: API_TOKEN}"
  ],
  // Helm's --set and --set-string, in one argument or two, quoted, a line continued.
  [
    "credential",
    "helm upgrade app ./chart --set env[0].name=DB_PASSWORD,env[0].value=Helm-Pw9 \\\n"
    + "  --set-string 'extraEnv[1].name=API_TOKEN' --set-string \"extraEnv[1].value=Tok 9x\"",
    "helm upgrade app ./chart --set env[0].name=DB_PASSWORD,env[0].value=[secret:credential] \\\n"
    + "  --set-string 'extraEnv[1].name=API_TOKEN' --set-string \"extraEnv[1].value=[secret:credential]\""
  ],
  // A Helm value quoted inside its argument, as a shell reads it: blanks and commas in the quotes are the value's.
  [
    "credential",
    `helm install app . --set env[0].name=DB_PASSWORD,env[0].value="a b,c-Pw9",env[1].name=LOG_LEVEL,env[1].value=debug`
    + ` --set env[2].name=API_TOKEN --set env[2].value='Tok 9x'`,
    "helm install app . --set env[0].name=DB_PASSWORD,env[0].value=[secret:credential],env[1].name=LOG_LEVEL,"
    + "env[1].value=debug --set env[2].name=API_TOKEN --set env[2].value=[secret:credential]"
  ],
  // Terraform's env block, either way round, on one line or more.
  [
    "credential",
    `env {\n  value = "Tf-Pw9"\n  name  = "DB_PASSWORD"\n}\nenv { value = "Tf-Tok9" name = "API_TOKEN" }`,
    `env {\n  value = "[secret:credential]"\n  name  = "DB_PASSWORD"\n}\n`
    + `env { value = "[secret:credential]" name = "API_TOKEN" }`
  ],
  // A comment after the name that holds `name:` and a credential's word, as the rules do not read past it.
  [
    "credential",
    "- name: DB_PASSWORD # see name: secret in vault\n  value: hunter2-xyz",
    "- name: DB_PASSWORD # see name: secret in vault\n  value: [secret:credential]"
  ],
  [
    "credential",
    "db.internal:5432:prod:app:PgpassS3cret91\n*:*:*:app:Pw2",
    "db.internal:5432:prod:app:[secret:credential]\n*:*:*:app:[secret:credential]"
  ],
  [
    "credential",
    "{\"pw\":\"PwK3yS3cret55\",\"passwd\":\"x\"}",
    "{\"pw\":\"[secret:credential]\",\"passwd\":\"[secret:credential]\"}"
  ],
  ["credential", "export DB_PASSWORD=\\\n  C0ntinuedS3cret77\n", "export DB_PASSWORD=\\\n  [secret:credential]\n"],
  [
    "credential",
    "os.getenv(\"DB_PASSWORD\", \"D3faultPwQ7x\") or ENV.fetch('API_TOKEN', 'tok9')",
    "os.getenv(\"DB_PASSWORD\", \"[secret:credential]\") or ENV.fetch('API_TOKEN', '[secret:credential]')"
  ],
  // Assigned to a sensitive name: the default is masked before the assignment's value is.
  [
    "credential",
    "password = os.getenv(\"DB_PASSWORD\", \"D3faultPwQ7x\")",
    "password = [secret:credential]\"DB_PASSWORD\", \"[secret:credential]\")"
  ],
  // Korean names, with a particle or a colon, in prose and as a JSON key.
  [
    "credential",
    "DB 비밀번호는 hunter2xyzKR1 입니다. 토큰: Tok9kr2QwErTy",
    "DB 비밀번호는 [secret:credential] 입니다. 토큰: [secret:credential]"
  ],
  ["credential", "{\"비밀번호\": \"KrJs0nS3cret42\"}", "{\"비밀번호\": \"[secret:credential]\"}"],
  // A particle after a blank, an English name with a Korean particle, the object's 를 with the sentence's ending
  // written onto the value (kept), the slang 비번, 시크릿.
  [
    "credential",
    "password 는 Xq7vR2mK9pL4 이고 토큰 은 Tok9kr2QwErTy, API key 는 Ak9kr2QwErTy",
    "password 는 [secret:credential] 이고 토큰 은 [secret:credential], API key 는 [secret:credential]"
  ],
  [
    "credential",
    "비밀번호를 Xq7vR2mK9pL4로 바꿔줘. password를 Pw9kr2QwErTy로 설정, 비번은 Bb9kr2QwErTy야",
    "비밀번호를 [secret:credential]로 바꿔줘. password를 [secret:credential]로 설정, 비번은 [secret:credential]야"
  ],
  [
    "credential",
    "비번 Xq7vR2mK9pL4 이고 시크릿 키는 Sk9kr2QwErTy입니다. 시크릿: Sc9kr2QwErTy",
    "비번 [secret:credential] 이고 시크릿 키는 [secret:credential]입니다. 시크릿: [secret:credential]"
  ],
  ["credential", "{\"비번\": \"KrJs0nS3cret42\"}", "{\"비번\": \"[secret:credential]\"}"],
  // Linking words that say the value changed.
  [
    "credential",
    "the password was changed to Chg9kr2QwErTy and the token rotated to Rot9kr2QwErTy.",
    "the password was changed to [secret:credential] and the token rotated to [secret:credential]."
  ],
  // A short phrase between the name and `is`.
  [
    "credential",
    "the password for the staging db is Stg4gingPw77x",
    "the password for the staging db is [secret:credential]"
  ],
  // Before a colon; a possessive.
  [
    "credential",
    "the root password for prod: Pr0dRootPw77x. my password's Myp4ssw0rdXy",
    "the root password for prod: [secret:credential]. my password's [secret:credential]"
  ],
  // The value before its name: used as the password, in English and with Korean's object particle.
  [
    "credential",
    "use Us3dAsPw77x as the password; I used 'Adm1nPw77xY' as the admin password, using Tok3nXy99qW as my GitHub token",
    "use [secret:credential] as the password; I used '[secret:credential]' as the admin password, using"
    + " [secret:credential] as my GitHub token"
  ],
  [
    "credential",
    "Xk9mPq2Lwz7를 비밀번호로 설정했어. Pw9kr2QwErTy 를 패스워드로 바꿔, Tok9kr2QwErTy을 토큰으로 사용",
    "[secret:credential]를 비밀번호로 설정했어. [secret:credential] 를 패스워드로 바꿔, [secret:credential]을 토큰으로 사용"
  ],
  // An account as a user and a password, the password unnamed.
  [
    "credential",
    "계정은 admin / Acc0untPw77x, login: root / R00tLoginPw9, log in with bob/B0bLoginPw9x, 아이디: eve / Ev3Pw99xYz",
    "계정은 admin / [secret:credential], login: root / [secret:credential], log in with bob/[secret:credential],"
    + " 아이디: eve / [secret:credential]"
  ],
  [
    "credential",
    "admin/Kr9LoginPw77로 로그인했는데 안 돼. user admin pass Us3rPassPw9x",
    "admin/[secret:credential]로 로그인했는데 안 돼. user admin pass [secret:credential]"
  ],
  // In any case: the rules ignore it, and so must what decides whether they run.
  [
    "credential",
    "LOGIN: root / R00tLoginPw9. Sign In with bob/B0bLoginPw9x; USER admin PASS Us3rPassPw9x; USE Us3dAsPw77x AS THE"
    + " PASSWORD",
    "LOGIN: root / [secret:credential]. Sign In with bob/[secret:credential]; USER admin PASS [secret:credential]; USE"
    + " [secret:credential] AS THE PASSWORD"
  ],
  // URL-encoded: a form body, and JSON in a query string.
  [
    "credential",
    "user=alice&password%3DUrlEnc0dedPw9 q=%7B%22password%22%3A%22UrlJs0nPw88%22%7D",
    "user=alice&password%3D[secret:credential] q=%7B%22password%22%3A%22[secret:credential]%22%7D"
  ],
  // Azure Shared Access Signatures: named, the whole token (a connection string's value, a Service Bus token after
  // its scheme, XML-escaped); in a URL or a JSON string escaped as Go escapes `&`, only the signature.
  [
    "azure-sas",
    "BlobEndpoint=https://x.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl"
    + `&sig=${SAS_SIG};QueueEndpoint=https://x.queue.core.windows.net/`,
    "BlobEndpoint=https://x.blob.core.windows.net/;SharedAccessSignature=[secret:azure-sas]"
    + ";QueueEndpoint=https://x.queue.core.windows.net/"
  ],
  [
    "azure-sas",
    `SharedAccessSignature sr=https%3A%2F%2Fns.servicebus.windows.net%2Fq&sig=${SAS_SIG}&se=1700000000&skn=Root sent`,
    "SharedAccessSignature [secret:azure-sas] sent"
  ],
  [
    "azure-sas",
    `<add value="SharedAccessSignature=sv=2022-11-02&amp;sp=r&amp;sig=${SAS_SIG}" />`,
    "<add value=\"SharedAccessSignature=[secret:azure-sas]\" />"
  ],
  [
    "azure-sas",
    `GET https://acct.blob.core.windows.net/c/f.txt?sv=2021-08-06&se=2026-01-01&sr=b&sp=r&sig=${SAS_SIG} 200`,
    "GET https://acct.blob.core.windows.net/c/f.txt?sv=2021-08-06&se=2026-01-01&sr=b&sp=r&sig=[secret:azure-sas] 200"
  ],
  [
    "azure-sas",
    `{"url":"https://a.blob.core.windows.net/c?sp=r\\u0026sig=Xy12abcDEFghiJKLmnoPQRstuVWxyz0123456789%2F%3D"}`,
    "{\"url\":\"https://a.blob.core.windows.net/c?sp=r\\u0026sig=[secret:azure-sas]\"}"
  ],
  ["azure-sas", "?sv=2020-10-02&sig=3f1c2b4e5d6a7b8c9d0e1f2a3b4c5d6e", "?sv=2020-10-02&sig=[secret:azure-sas]"],
  // A password holding `/` (base64), up to the `@` before the host.
  [
    "url-password",
    "redis://:Ab3/Cd9+Ef==@cache and postgres://app:k9/Lm2+Qx@db/x",
    "redis://:[secret:url-password]@cache and postgres://app:[secret:url-password]@db/x"
  ],
  // A value set under a sensitive name by a call, and a setter named for one.
  ["credential", "define( 'DB_PASSWORD', 'WpPw-4481' );", "define( 'DB_PASSWORD', '[secret:credential]' );"],
  [
    "credential",
    `System.setProperty("javax.net.ssl.keyStorePassword", "JksPw-4482"); props.put("password", "Pw-4483x");`,
    `System.setProperty("javax.net.ssl.keyStorePassword", "[secret:credential]");`
    + ` props.put("password", "[secret:credential]");`
  ],
  ["credential", `os.Setenv("API_TOKEN", "GoPw-4484")`, `os.Setenv("API_TOKEN", "[secret:credential]")`],
  [
    "credential",
    `ds.setPassword("Pw-4485x"); c.set_api_key('Pw-4486x')`,
    `ds.setPassword("[secret:credential]"); c.set_api_key('[secret:credential]')`
  ],
  // A user and a password as a tuple or a list under a credential's name: the password, the structure kept.
  [
    "credential",
    `requests.post(url, auth=("bob", "TuplePw-501")) and httpx.get(u, auth = ('bob', r'TuplePw-502'))`,
    `requests.post(url, auth=("bob", "[secret:credential]")) and httpx.get(u, auth = ('bob', r'[secret:credential]'))`
  ],
  [
    "credential",
    "$client->get($u, ['auth' => ['bob', 'TuplePw-503', 'digest']]); x = { auth: [user, `TuplePw-504`] }",
    "$client->get($u, ['auth' => ['bob', '[secret:credential]', 'digest']]);"
    + " x = { auth: [user, `[secret:credential]`] }"
  ],
  [
    "credential",
    String.raw`{"auth": ["bob", "TuplePw-505"]} {\"auth\": [\"bob\", \"TuplePw-506\"]} password = ("TuplePw-507")`,
    String.raw`{"auth": ["bob", "[secret:credential]"]} {\"auth\": [\"bob\", \"[secret:credential]\"]}`
    + ` password = ("[secret:credential]")`
  ],
  [
    "credential",
    `def get(auth: tuple[str, str] = (\n    "bob",\n    "TuplePw-508",\n)):`,
    `def get(auth: tuple[str, str] = (\n    "bob",\n    "[secret:credential]",\n)):`
  ],
  // A call's password by position: the user's argument, then the password.
  [
    "credential",
    `basic = HTTPBasicAuth('bob', 'CallPw-511'); digest = HTTPDigestAuth("bob", "CallPw-512")`,
    `basic = HTTPBasicAuth('bob', '[secret:credential]'); digest = HTTPDigestAuth("bob", "[secret:credential]")`
  ],
  [
    "credential",
    `aiohttp.BasicAuth('bob', 'CallPw-513') req.SetBasicAuth("bob", "CallPw-514")`
    + ` .basic_auth("bob", Some("CallPw-515"))`,
    `aiohttp.BasicAuth('bob', '[secret:credential]') req.SetBasicAuth("bob", "[secret:credential]")`
    + ` .basic_auth("bob", Some("[secret:credential]"))`
  ],
  [
    "credential",
    `new NetworkCredential("bob", "CallPw-516", "CORP"); new UsernamePasswordCredentials("bob", "CallPw-517");`,
    `new NetworkCredential("bob", "[secret:credential]", "CORP");`
    + ` new UsernamePasswordCredentials("bob", "[secret:credential]");`
  ],
  [
    "credential",
    `new PasswordAuthentication("bob", "CallPw-518".toCharArray()) Credentials.basic("bob", "CallPw-519")`
    + ` request(app).get("/").auth('bob', 'CallPw-520')`,
    `new PasswordAuthentication("bob", "[secret:credential]".toCharArray())`
    + ` Credentials.basic("bob", "[secret:credential]")`
    + ` request(app).get("/").auth('bob', '[secret:credential]')`
  ],
  [
    "credential",
    `smtp.login("bob@x.com", "LoginPw-521")\nserver.login(user, "LoginPw-522")\nftp.login('bob', b'LoginPw-523')\n`
    + "await page.login(`bob`, `LoginPw-524`)\nimap.login(\n    os.environ[\"IMAP_USER\"],\n    \"LoginPw-525\",\n)",
    `smtp.login("bob@x.com", "[secret:credential]")\nserver.login(user, "[secret:credential]")\n`
    + `ftp.login('bob', b'[secret:credential]')\nawait page.login(\`bob\`, \`[secret:credential]\`)\n`
    + `imap.login(\n    os.environ["IMAP_USER"],\n    "[secret:credential]",\n)`
  ],
  [
    "credential",
    String
      .raw`client.login(username="bob", password="LoginPw-526") {"content": "smtp.login(\"bob\", \"LoginPw-527\")"}`,
    String.raw`client.login(username="bob", password="[secret:credential]")`
    + String.raw` {"content": "smtp.login(\"bob\", \"[secret:credential]\")"}`
  ],
  // A connection's: JDBC's (of three arguments, or a DataSource's two), Sequelize's, Python's and PHP's, Firebase's.
  [
    "credential",
    `DriverManager.getConnection(url, "bob", "ConnPw-531"); ds.getConnection("bob", "ConnPw-532");`
    + ` new Sequelize('db', 'bob', 'ConnPw-533', { dialect: 'mysql' })`,
    `DriverManager.getConnection(url, "bob", "[secret:credential]"); ds.getConnection("bob", "[secret:credential]");`
    + ` new Sequelize('db', 'bob', '[secret:credential]', { dialect: 'mysql' })`
  ],
  [
    "credential",
    `pymysql.connect('db', 'bob', 'ConnPw-534', 'x') MySQLdb.connect("host","user","ConnPw-535","db")`
    + ` keyring.set_password("svc", "bob", "ConnPw-536")`,
    `pymysql.connect('db', 'bob', '[secret:credential]', 'x') MySQLdb.connect("host","user","[secret:credential]","db")`
    + ` keyring.set_password("svc", "bob", "[secret:credential]")`
  ],
  [
    "credential",
    `mysqli_connect("host", "user", "ConnPw-537", "db"); new mysqli("localhost", "user", "ConnPw-538", "db");`
    + ` new PDO($dsn, 'user', 'ConnPw-539');`,
    `mysqli_connect("host", "user", "[secret:credential]", "db");`
    + ` new mysqli("localhost", "user", "[secret:credential]", "db");`
    + ` new PDO($dsn, 'user', '[secret:credential]');`
  ],
  [
    "credential",
    `signInWithEmailAndPassword(auth, "a@b.c", "ConnPw-540")`
    + ` firebase.auth().signInWithEmailAndPassword("a@b.c", "ConnPw-541")`,
    `signInWithEmailAndPassword(auth, "a@b.c", "[secret:credential]")`
    + ` firebase.auth().signInWithEmailAndPassword("a@b.c", "[secret:credential]")`
  ],
  // A Go MySQL driver's DSN, which has no scheme: the password up to the `@` before the protocol.
  [
    "credential",
    `sql.Open("mysql", "bob:DsnPw-542@tcp(db:3306)/app")\ndsn := "bob:p@ss-543@unix(/run/mysqld.sock)/app"\n`
    + "MYSQL_DSN=bob:DsnPw-544@tcp(127.0.0.1)/app",
    `sql.Open("mysql", "bob:[secret:credential]@tcp(db:3306)/app")\n`
    + `dsn := "bob:[secret:credential]@unix(/run/mysqld.sock)/app"\n`
    + "MYSQL_DSN=bob:[secret:credential]@tcp(127.0.0.1)/app"
  ],
  // A Terraform variable named as a credential: its default.
  [
    "credential",
    `variable "db_password" {\n  type        = string\n  description = "The database's password"\n`
    + `  sensitive   = true\n`
    + `  default     = "TfPw-551"\n}\nvariable "api_token" { default = "TfPw-552" }`,
    `variable "db_password" {\n  type        = string\n  description = "The database's password"\n`
    + `  sensitive   = true\n`
    + `  default     = "[secret:credential]"\n}\nvariable "api_token" { default = "[secret:credential]" }`
  ],
  // Rails' and Phoenix's secret_key_base, in an env file, YAML, Elixir config and heroku config's padded output.
  ["credential", "SECRET_KEY_BASE=9f8e7d6c5b4a3928", "SECRET_KEY_BASE=[secret:credential]"],
  [
    "credential",
    `production:\n  secret_key_base: "Skb-4491x"\nconfig :app, App.Endpoint, secret_key_base: "Skb-4492x"`,
    `production:\n  secret_key_base: "[secret:credential]"\n`
    + `config :app, App.Endpoint, secret_key_base: "[secret:credential]"`
  ],
  ["credential", "SECRET_KEY_BASE:     9f8e7d6c5b4a3928", "SECRET_KEY_BASE:     [secret:credential]"],
  // Vendors' keys alone: Groq, Replicate, a Google OAuth client secret, a Stripe webhook secret, xAI.
  [
    "vendor-token",
    "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\nr8_XDuCL1mHoOsFaQfDPrAJ71fTquWoGsbeKXgzg",
    "[secret:vendor-token]\n[secret:vendor-token]"
  ],
  [
    "vendor-token",
    `["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", "whsec_tva9AW7hipTgadDZFlRJmCGmUXiAPyhz"]`,
    `["[secret:vendor-token]", "[secret:vendor-token]"]`
  ],
  [
    "vendor-token",
    "key xai-Anar3ZLt4bnlz2MPKgcjnCqaXNv1syeefnLOpaMxxNDi9LE1Ki3ylOjt6o0NpUmkVO8JmR8y4EMfAdgg end".replace(
      "key ",
      "- "
    ),
    "- [secret:vendor-token] end"
  ],
  // A key quoted after another key's colon is a name, not that key's value (found by properties.test.ts).
  [
    "credential",
    `KeyError: 'password': "DB_PASSWORD": "ChainPw-4493x") in auth.py`,
    `KeyError: 'password': "[secret:credential]`
  ],
  // Presigned URLs: S3's and Cloud Storage's signatures, in a URL and JSON-escaped.
  [
    "url-signature",
    "https://b.s3.amazonaws.com/k?X-Amz-Date=20261129T000000Z&X-Amz-Signature=" + "0a1b2c3d".repeat(8) + "&x=1",
    "https://b.s3.amazonaws.com/k?X-Amz-Date=20261129T000000Z&X-Amz-Signature=[secret:url-signature]&x=1"
  ],
  [
    "url-signature",
    String.raw`{"url":"https://storage.googleapis.com/b/o?x=1\u0026X-Goog-Signature=` + "9f8e".repeat(16) + `"}`,
    String.raw`{"url":"https://storage.googleapis.com/b/o?x=1\u0026X-Goog-Signature=[secret:url-signature]"}`
  ],
  // MongoDB's shell and tools, OpenLDAP's clients, smbclient's user%password, htpasswd's batch mode.
  [
    "credential",
    "mongosh -u admin -p MongoPw-61 --authenticationDatabase admin",
    "mongosh -u admin -p [secret:credential] --authenticationDatabase admin"
  ],
  [
    "credential",
    "ldapsearch -x -D cn=admin,dc=ex -w 'LdapPw-62' -b dc=ex",
    "ldapsearch -x -D cn=admin,dc=ex -w '[secret:credential]' -b dc=ex"
  ],
  [
    "credential",
    "smbclient //srv/share -U CORP\\admin%SmbPw-63",
    "smbclient //srv/share -U CORP\\admin%[secret:credential]"
  ],
  [
    "credential",
    "htpasswd -cbB /etc/nginx/.htpasswd admin HtPw-64",
    "htpasswd -cbB /etc/nginx/.htpasswd admin [secret:credential]"
  ],
  // Maven's settings.xml, NuGet.config and web.config, Spring's XML.
  [
    "credential",
    "<server><password>MvnPw-4471</password></server>",
    "<server><password>[secret:credential]</password></server>"
  ],
  [
    "credential",
    "<ConnectionPassword >Pw-4472x</ConnectionPassword>",
    "<ConnectionPassword >[secret:credential]</ConnectionPassword>"
  ],
  [
    "credential",
    `<add key="ClearTextPassword" value="NuGetPw-4473" />`,
    `<add key="ClearTextPassword" value="[secret:credential]" />`
  ],
  [
    "credential",
    `<add key='StripeApiKey'\n  value='Pw-4474x'/>`,
    `<add key='StripeApiKey'\n  value='[secret:credential]'/>`
  ],
  [
    "credential",
    `<property name="db.password" value="Spr'ngPw-4475" />`,
    `<property name="db.password" value="[secret:credential]" />`
  ],
  // SQL: MySQL's and PostgreSQL's quoted passwords, Oracle's unquoted one in capitals.
  [
    "credential",
    "CREATE USER 'app'@'%' IDENTIFIED BY 'SqlPw-4476';",
    "CREATE USER 'app'@'%' IDENTIFIED BY '[secret:credential]';"
  ],
  [
    "credential",
    "alter user app identified with caching_sha2_password by \"SqlPw-4477\"",
    "alter user app identified with caching_sha2_password by \"[secret:credential]\""
  ],
  ["credential", "SET PASSWORD FOR 'app'@'%' = 'SqlPw-4478'", "SET PASSWORD FOR 'app'@'%' = '[secret:credential]'"],
  ["credential", "CREATE USER app IDENTIFIED BY SqlPw4479;", "CREATE USER app IDENTIFIED BY [secret:credential];"],
  // keytool's and jarsigner's keystore and key passwords, each of them; the new one -storepasswd sets.
  [
    "credential",
    "keytool -genkeypair -alias app -keystore app.jks -storepass KtPw-4480 -keypass 'KtPw 4481' -dname CN=app",
    "keytool -genkeypair -alias app -keystore app.jks -storepass [secret:credential] -keypass '[secret:credential]'"
    + " -dname CN=app"
  ],
  [
    "credential",
    "keytool -importkeystore -srckeystore a.p12 -srcstoretype PKCS12 -srcstorepass KtPw-4482 -srckeypass KtPw-4483"
    + " -destkeystore b.jks -deststorepass \"KtPw-4484\" -destkeypass KtPw-4485",
    "keytool -importkeystore -srckeystore a.p12 -srcstoretype PKCS12 -srcstorepass [secret:credential]"
    + " -srckeypass [secret:credential] -destkeystore b.jks -deststorepass \"[secret:credential]\""
    + " -destkeypass [secret:credential]"
  ],
  // -new is masked too, by the CLI flag rule, as the value of what it takes for a flag: -storepasswd.
  [
    "credential",
    "jarsigner -keystore app.jks -storepass KtPw-4486 app.apk app\r\n"
    + "keytool -storepasswd -new KtPw-4487 -keystore a.jks",
    "jarsigner -keystore app.jks -storepass [secret:credential] app.apk app\r\n"
    + "keytool -storepasswd [secret:credential] [secret:credential] -keystore a.jks"
  ],
  // As a Bash tool's input arrives, in a JSON string.
  [
    "credential",
    String.raw`{"command":"keytool -list -keystore k.jks -storepass \"KtPw-4488\" -keypass KtPw-4489\n"}`,
    String.raw`{"command":"keytool -list -keystore k.jks -storepass \"[secret:credential]\"`
    + String.raw` -keypass [secret:credential]"}`
  ],
  // zip's and unzip's -P, apart or glued; 7-Zip's -p, glued.
  [
    "credential",
    "zip -P ZipPw-4490 out.zip notes.txt && zip -r -9 -P'Zip Pw 4491' out.zip dir; unzip -P\"ZipPw-4492\" out.zip"
    + "\nzip -rP ZipPw-4497 out.zip dir",
    "zip -P [secret:credential] out.zip notes.txt && zip -r -9 -P'[secret:credential]' out.zip dir;"
    + " unzip -P\"[secret:credential]\" out.zip\nzip -rP [secret:credential] out.zip dir"
  ],
  // -P last of a group, alone: no "-P" in the text.
  ["credential", "zip -rP ZipPw-4499 out.zip dir", "zip -rP [secret:credential] out.zip dir"],
  [
    "credential",
    "7z a -pZ7Pw-4493 -mhe=on out.7z dir\n7za x -p\"7z Pw 4494\" -o/tmp/x archive.7z\n7z.exe a \"-p7z Pw 4498\" b.7z",
    "7z a -p[secret:credential] -mhe=on out.7z dir\n7za x -p\"[secret:credential]\" -o/tmp/x archive.7z\n"
    + "7z.exe a \"-p[secret:credential]\" b.7z"
  ],
  [
    "credential",
    String.raw`{"command":"cd /srv && zip -r -P \"ZipPw-4495\" /tmp/b.zip . && 7z a -p'Z7Pw-4496' b.7z ."}`,
    String.raw`{"command":"cd /srv && zip -r -P \"[secret:credential]\" /tmp/b.zip .`
    + String.raw` && 7z a -p'[secret:credential]' b.7z ."}`
  ],
  // A password echo or printf pipes into chpasswd or chgpasswd, the user kept: a Dockerfile's RUN line, sudo or a
  // container before the program, several users; single-quoted, a `$` is the password's own.
  ["credential", "RUN echo 'root:Docker!' | chpasswd", "RUN echo 'root:[secret:credential]' | chpasswd"],
  [
    "credential",
    "echo \"root:ChPw-4500\" | sudo chpasswd && echo app:ChPw-4501 | chpasswd -c SHA512\n"
    + "echo -e \"root:ChPw-4502\\nbob:ChPw 4503\" | docker exec -i box chpasswd\n"
    + "printf 'admins:ChPw-4504\\n' | chgpasswd; echo 'root:$ChPw-4506' | chpasswd",
    "echo \"root:[secret:credential]\" | sudo chpasswd && echo app:[secret:credential] | chpasswd -c SHA512\n"
    + "echo -e \"root:[secret:credential]\" | docker exec -i box chpasswd\n"
    + "printf 'admins:[secret:credential]' | chgpasswd; echo 'root:[secret:credential]' | chpasswd"
  ],
  [
    "credential",
    String.raw`{"command":"echo \"root:ChPw-4505\" | chpasswd\r\n"}`,
    String.raw`{"command":"echo \"root:[secret:credential]\" | chpasswd\r\n"}`
  ],
  // A password echo or printf pipes into a login's --password-stdin (docker, podman, helm registry), or passwd
  // --stdin: any literal.
  [
    "credential",
    "echo DockerPw-4510 | docker login -u bob --password-stdin\n"
    + "echo \"DockerPw 4511\" | docker login registry.example.com -u bob --password-stdin\n"
    + "printf '%s' 'HelmPw-4512' | helm registry login reg.example.com -u bob --password-stdin",
    "echo [secret:credential] | docker login -u bob --password-stdin\n"
    + "echo \"[secret:credential]\" | docker login registry.example.com -u bob --password-stdin\n"
    + "printf '%s' '[secret:credential]' | helm registry login reg.example.com -u bob --password-stdin"
  ],
  [
    "credential",
    "echo -n DockerPw-4513 | podman login -u bob --password-stdin quay.io\r\n"
    + "printf \"%s\\n\" \"DockerPw-4514\" | sudo docker login --username bob --password-stdin\n"
    + "echo '$Pw-4515' | passwd --stdin bob; echo $'Pw-4518\\n' | docker login --password-stdin",
    "echo -n [secret:credential] | podman login -u bob --password-stdin quay.io\r\n"
    + "printf \"%s\\n\" \"[secret:credential]\" | sudo docker login --username bob --password-stdin\n"
    + "echo '[secret:credential]' | passwd --stdin bob; echo $'[secret:credential]' | docker login --password-stdin"
  ],
  [
    "credential",
    String.raw`{"command":"echo \"DockerPw-4516\" | docker login -u bob --password-stdin && printf '%s' \"Pw-4517\"`
    + String.raw` | docker login --password-stdin"}`,
    String.raw`{"command":"echo \"[secret:credential]\" | docker login -u bob --password-stdin`
    + String.raw` && printf '%s' \"[secret:credential]\" | docker login --password-stdin"}`
  ],
  // And into the programs that read a password from stdin: sudo -S, passwd, smbpasswd -s, htpasswd -i.
  [
    "credential",
    "echo 'SudoPw-4524' | sudo -S apt-get update && echo SudoPw-4525 | sudo -k -S -u app make\n"
    + "echo -e \"PwdPw-4526\\nPwdPw-4526\" | passwd bob; printf 'SmbPw-4527\\nSmbPw-4527\\n' | smbpasswd -a -s bob\n"
    + "echo HtPw-4528 | htpasswd -i -c .htpasswd admin; echo 'PwdPw-4529' | sudo /usr/bin/passwd --stdin bob",
    "echo '[secret:credential]' | sudo -S apt-get update && echo [secret:credential] | sudo -k -S -u app make\n"
    + "echo -e \"[secret:credential]\" | passwd bob; printf '[secret:credential]' | smbpasswd -a -s bob\n"
    + "echo [secret:credential] | htpasswd -i -c .htpasswd admin;"
    + " echo '[secret:credential]' | sudo /usr/bin/passwd --stdin bob"
  ],
  // The same, as a here-string.
  [
    "credential",
    "chpasswd <<< 'root:HsPw-4520'\ndocker login -u bob --password-stdin <<< \"HsPw 4521\";"
    + " passwd --stdin bob <<<HsPw-4522 && chpasswd <<< $'root:HsPw-4523\\n'",
    "chpasswd <<< 'root:[secret:credential]'\ndocker login -u bob --password-stdin <<< \"[secret:credential]\";"
    + " passwd --stdin bob <<<[secret:credential] && chpasswd <<< $'root:[secret:credential]'"
  ],
  // Windows' net user setting an account's password, the command ending there or its options after it.
  [
    "credential",
    "net user bob NetPw-4530 /add\r\nNET USER \"Jane Doe\" \"Net Pw 4531\" /ADD /DOMAIN\r\n"
    + "net user administrator NetPw-4532\ncmd /c \"net user svc NetPw-4533\" && net user ops NetPw-4539 & echo done\n"
    + "net user qa NetPw-4544 2>nul",
    "net user bob [secret:credential] /add\r\nNET USER \"Jane Doe\" \"[secret:credential]\" /ADD /DOMAIN\r\n"
    + "net user administrator [secret:credential]\ncmd /c \"net user svc [secret:credential]\""
    + " && net user ops [secret:credential] & echo done\nnet user qa [secret:credential] 2>nul"
  ],
  [
    "credential",
    String.raw`{"command":"net user svc NetPw-4534 /add\nnet localgroup administrators svc /add",`
    + String.raw`"x":"net user a NetPw-4535"}`,
    String.raw`{"command":"net user svc [secret:credential] /add\nnet localgroup administrators svc /add",`
    + String.raw`"x":"net user a [secret:credential]"}`
  ],
  // SQL Server's command-line tools (-P, apart or glued) and RabbitMQ's users.
  [
    "credential",
    "sqlcmd -S db -U sa -P SqlPw-4536 -Q \"select 1\"\nbcp dbo.t out t.dat -S db -U sa -PSqlPw-4537 -c;"
    + " osql -S db -U sa -P 'Sql Pw 4538'\n/opt/mssql-tools18/bin/sqlcmd -S localhost -U SA -P \"SqlPw-4540\" -C",
    "sqlcmd -S db -U sa -P [secret:credential] -Q \"select 1\"\n"
    + "bcp dbo.t out t.dat -S db -U sa -P[secret:credential] -c; osql -S db -U sa -P '[secret:credential]'\n"
    + "/opt/mssql-tools18/bin/sqlcmd -S localhost -U SA -P \"[secret:credential]\" -C"
  ],
  [
    "credential",
    "rabbitmqctl add_user bob RmqPw-4541 && rabbitmqctl change_password bob 'Rmq Pw 4542'\n"
    + "rabbitmqctl -n rabbit@host authenticate_user bob RmqPw-4543",
    "rabbitmqctl add_user bob [secret:credential] && rabbitmqctl change_password bob '[secret:credential]'\n"
    + "rabbitmqctl -n rabbit@host authenticate_user bob [secret:credential]"
  ],
  // gh secret set's value: --body, -b, apart, after = or glued.
  [
    "credential",
    "gh secret set API_TOKEN --body GhSecret-4550\ngh secret set DB_PASSWORD -b 'GhSecret 4551' --repo acme/shop &&"
    + " gh secret set X --env prod --body=\"GhSecret-4552\"; gh secret set NPM_TOKEN -bGhSecret-4553",
    "gh secret set API_TOKEN --body [secret:credential]\ngh secret set DB_PASSWORD -b '[secret:credential]' --repo"
    + " acme/shop && gh secret set X --env prod --body=\"[secret:credential]\";"
    + " gh secret set NPM_TOKEN -b[secret:credential]"
  ],
  [
    "credential",
    String.raw`{"command":"gh secret set TOKEN --body \"GhSecret-4554\" -R acme/shop"}`,
    String.raw`{"command":"gh secret set TOKEN --body \"[secret:credential]\" -R acme/shop"}`
  ],
  ["credential", "gh\tsecret\tset\tTOKEN\t-b\tGhSecret-4555", "gh\tsecret\tset\tTOKEN\t-b\t[secret:credential]"],
  // A Dockerfile's ENV in its legacy form, ENV name value, under a credential's name: the rest of the line.
  [
    "credential",
    "FROM postgres:16\nENV DB_PASS Xk9mPq2Lwz7\nENV POSTGRES_PASSWORD correct horse battery\r\n"
    + "  env API_TOKEN 'EnvPw 4561'\nENV SECRET_KEY_BASE abc\nENV PGDATA /var/lib/postgresql/data",
    "FROM postgres:16\nENV DB_PASS [secret:credential]\nENV POSTGRES_PASSWORD [secret:credential]\r\n"
    + "  env API_TOKEN '[secret:credential]'\nENV SECRET_KEY_BASE [secret:credential]\n"
    + "ENV PGDATA /var/lib/postgresql/data"
  ],
  // A Dockerfile a Write tool's input holds, its lines escaped in a JSON string; and the = forms of ENV and ARG.
  [
    "credential",
    String.raw`{"content":"FROM node:22\nENV NPM_TOKEN Env Pw 4562\nENV DB_PASSWORD \"Pw 4563\"\r\nRUN npm ci\n"}`
    + "\nARG DB_PASSWORD=ArgPw-4564\nENV DB_PASS=EnvPw-4565 LOG_LEVEL=debug",
    String.raw`{"content":"FROM node:22\nENV NPM_TOKEN [secret:credential]\nENV DB_PASSWORD \"[secret:credential]\"\r\n`
    + String.raw`RUN npm ci\n"}`
    + "\nARG DB_PASSWORD=[secret:credential]\nENV DB_PASS=[secret:credential] LOG_LEVEL=debug"
  ],
  // An ENV line at the start of a string or a code span: an Edit's lines quoted as JSON, Markdown.
  [
    "credential",
    String.raw`{"old_string":"ENV DB_PASS EnvPw-4566","new_string":"ENV DB_PASS \"EnvPw 4567\"\nRUN x"}`
    + "\nSet `ENV API_TOKEN EnvPw-4568` in the Dockerfile.",
    String
      .raw`{"old_string":"ENV DB_PASS [secret:credential]","new_string":"ENV DB_PASS \"[secret:credential]\"\nRUN x"}`
    + "\nSet `ENV API_TOKEN [secret:credential]` in the Dockerfile."
  ],
  // Firebase's functions config, under keys a credential's name ends (the assignment rule's).
  [
    "credential",
    "firebase functions:config:set stripe.secret=FbPw-4570 mail.password=\"Fb Pw 4571\" slack.api_key=FbPw-4572"
    + " app.env=prod",
    "firebase functions:config:set stripe.secret=[secret:credential] mail.password=\"[secret:credential]\""
    + " slack.api_key=[secret:credential] app.env=prod"
  ]
]

/** Text that mentions secrets or looks a bit like them, and must come back unchanged. */
const UNCHANGED: ReadonlyArray<readonly [string, string]> = [
  ["aws-access-key", "AKIAIOSFODNN7EXAMPL (too short) and XAKIAIOSFODNN7EXAMPLE1"],
  ["aws-secret-key", "aws_secret_access_key is read from ~/.aws/credentials"],
  ["openai-key", "risk-assessment-quarterly-report and sk-learn-style-pipeline-names"],
  ["github-token", "ghp_short and the ghp_ prefix"],
  ["jwt", "eyJ is how base64 JSON starts; eyJhbGci.short.x"],
  ["private-key", "The PRIVATE KEY header looks like -----BEGIN followed by the type."],
  ["url-password", "http://localhost:3000/path and https://user@example.com and git@github.com:a/b.git"],
  ["url-password", "http://localhost:5173/@vite/client and https://registry.npmjs.org:443/@types/node"],
  [
    "credential",
    "src/a.ts:12:5: error: boom\n12:30:45 started\ncwd=/tmp; echo $(pwd)\nuser:x:1000:1000::/home/u:/bin/sh"
  ],
  ["authorization", "src/authorization/index.ts handles authorization checks"],
  ["bearer-token", "Bearer authentication; Basic usage; basic configuration guide"],
  // Words after Basic that are not base64 of `user:password`: not padded to four, not text, no colon.
  ["bearer-token", "Basic Instinct, Basic Oracle, Basic Tutorials; Basic aGVsbG8= is hello"],
  ["credential", "The password is required. Enter your password to continue."],
  ["credential", "token_count=5 max_tokens=100 password_hash=abc tokens: 1234"],
  ["credential", "password: string;\nif (password === undefined) return\ntoken = None"],
  // An empty string literal: the code after it on the line is not a value.
  [
    "credential",
    `password = "" rest of the line\nconst password = ''; const user = 'x'\n"password": "", "user": "bob"\n`
    + String.raw`\"password\":\"\",\"user\":\"bob\" \\\"token\\\":\\\"\\\"}` + `\nmysql --password "" --user root`
  ],
  ["credential", "bypass=true compass=north oauth=enabled"],
  ["credential", "authIdentity=github identity: alice npmAuthIdentProvider: sso"],
  // A setting named auth holding a scheme or a mode, not a credential.
  [
    "credential",
    `<auth>basic</auth>\n<auth>NTLM</auth>\nauth: basic\n"auth": "oauth2",\nsmtp_auth = login\nSMTP_AUTH:        plain`
  ],
  // The same with a comment after it (YAML, TOML, shell), or blanks ending the line.
  [
    "credential",
    "auth: basic # how the proxy logs in\r\n  - smtp_auth:\tLOGIN\t#\tc\nAUTH: ntlm #\nauth = basic # TOML\n"
    + "auth:basic   "
  ],
  // The shell's working directory (env, docker inspect), not a password: PWD holding an absolute path.
  [
    "credential",
    `PWD=/home/alice/project\nOLDPWD=/home/alice\nexport PWD=/srv/app\n"PWD": "/home/alice",\nPWD: /home/alice`
  ],
  // And in an env entry, the path on the line after the name (a pod's env as kubectl prints it: YAML, JSON, escaped).
  [
    "credential",
    "env:\n  - name: PWD\n    value: /home/alice/project\n  - Name: 'pwd'  \r\n    Value: '/srv/app'\n"
    + `[{"name": "PWD",\n  "value": "/home/x"}, {"name":"PWD","value":"/"}]\n`
    + String.raw`{\"name\":\"PWD\",\"value\":\"/home/y\"}`
  ],
  // With a comment after the name too; and a name that is no credential's keeps its value, comment or not.
  ["credential", "- name: PWD # the pod's\n  value: /srv/app\n- name: LOG_LEVEL # x\n  value: debug"],
  // Blank or comment lines before the value too; and a password taken from a Secret (valueFrom) leaves the value of
  // the entry after it, blank lines or not.
  [
    "credential",
    "- name: PWD\n  # the pod's\n\n  value: /srv/app\n- name: LOG_LEVEL\n\n  value: debug\n"
    + "- name: DB_PASSWORD\n\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password\n\n"
    + "- name: LOG_LEVEL\n\n  value: debug"
  ],
  // The value first: PWD holding a path (YAML, JSON, escaped); a name that is no credential's (LOG_LEVEL, a password's
  // file); a value before another entry (`- name:`, or after the `}` that closes its own); an empty one or null.
  [
    "credential",
    "- value: /srv/app\n  name: PWD\n- value: \"/home/alice\"  # wd\n  Name: pwd\n"
    + `{"value": "/srv/x", "name": "PWD"}\n` + String.raw`{\"value\":\"/home/y\",\"name\":\"PWD\"}` + "\n"
    + "- value: debug\n  name: LOG_LEVEL\n- value: /run/secrets/db\n  name: DB_PASSWORD_FILE\n"
    + "- value: debug\n- name: DB_PASSWORD\n  valueFrom: {}\n"
    + `[{"name": "LOG_LEVEL", "value": "debug"}, {"name": "DB_PASSWORD", "valueFrom": {}}]\n`
    + `[\n  {\n    "name": "LOG_LEVEL",\n    "value": "debug"\n  },\n`
    + `  {\n    "name": "API_TOKEN",\n    "valueFrom": {}\n  }\n]\n`
    + "- value: ''\n  name: DB_PASSWORD\n- value: null\n  name: DB_PASSWORD"
  ],
  // PWD holding a path with a blank in it, quoted, either way round: the path is what the value starts with.
  [
    "credential",
    `- name: PWD\n  value: "/srv/my app"\n- value: "/srv/my app"\n  name: PWD\n{"value": "/a b", "name": "Pwd"}`
  ],
  // Escaped lines too: PWD holding a path, either way round; a password taken from a Secret, then another entry.
  [
    "credential",
    JSON.stringify(
      "- name: PWD # wd\n  value: /srv/app\n- value: /srv/b\n  name: PWD\n"
        + "- name: DB_PASSWORD # c\n  valueFrom: {secretKeyRef: {name: db, key: password}}\n"
        + "- name: LOG_LEVEL\n  value: debug\n"
    )
  ],
  // An entry read whole keeps what holds no secret: a name that is no credential's (another key between, a block),
  // PWD's path, a password's file, an empty value, one taken from a Secret.
  [
    "credential",
    "- name: LOG_LEVEL\n  type: plain\n  value: debug\n- name: LOG_FORMAT\n  value: |\n    json\n"
    + "- name: PWD\n  type: dir\n  value: /srv/app\n- name: DB_PASSWORD_FILE\n  type: file\n  value: /run/secrets/db\n"
    + "- name: DB_PASSWORD\n  type: x\n  value: \"\"\n- name: API_TOKEN\n  type: x\n  valueFrom:\n    secretKeyRef:\n"
    + "      name: api-token\n      key: token\n- name: LOG_LEVEL\n  value: debug\n"
  ],
  // So does an object, a flow mapping, a Terraform block: another key between, PWD's path, empty, null, a Secret's.
  [
    "credential",
    `{"name": "LOG_LEVEL", "type": "x", "value": "debug"} {name: LOG_LEVEL, value: very verbose}\n`
    + `env { value = "debug" name = "LOG_LEVEL" }\n`
    + `{"name": "PWD", "type": "dir", "value": "/srv"} {"name":"DB_PASSWORD","type":"x","value":""}\n`
    + `{name: DB_PASSWORD, value: null} {"name": "API_TOKEN", "valueFrom": {"secretKeyRef": {"key": "t"}}}`
  ],
  // Keys in code's strings are not an object's, though a function's body holds them.
  [
    "credential",
    `it("x", () => {\n  const yaml = "name: pwd\\n  value: "\n  const other = "- value: x # c\\n"\n})`
  ],
  // And Helm's --set: a name that is no credential's, PWD's path.
  [
    "credential",
    "helm install app . --set env[0].name=LOG_LEVEL,env[0].value=debug\n"
    + "helm install app . --set env[0].name=PWD,env[0].value=/srv/app\n"
  ],
  ["credential", "secretName = 'db' and isSecret = false"],
  [
    "credential",
    "3f1c2b4e-5d6a-4b8c-9d0e-1f2a3b4c5d6e 8d5a97a3f1c2b4e5d6a7b8c9d0e1f2a3b4c5d6e7 /home/dev/.ssh/id_rsa.pub"
  ],
  ["credential", "the password is required; the token was expired; see the api key docs/keys.md"],
  ["credential", "mkdir -p build && git log -p && ssh -p 2222 host && docker run -u 1000:1000 img && sort -u"],
  ["credential", "PASS src/auth/token.test.ts (12 tests) and primaryKey = id, sortKey = name, cacheKey: abc123"],
  ["credential", "script: |\n  echo $TOKEN\nrun: >-\n  make build\npassword: |\n"],
  // Below a key whose line ends at its colon: prose (a docstring), a type, a mapping, a list, a reference, code.
  ["credential", "Args:\n    password:\n        The user's password.\n    token:\n        str"],
  ["credential", "password:\n  type: string\ntoken:\n  - a\nsecret:\n  ${API_SECRET}\nauth:\n  mode2:"],
  ["credential", "if not token:\n    continue\nconst token =\n  process.env.API_TOKEN;\nsecret =\n  \"\""],

  ["credential", "암호화 알고리즘은 AES입니다. API 키 발급 문서를 보세요. the password for reset is required"],
  // A `sig=` whose value is short or a word, and the scheme's name where no SAS follows it.
  [
    "azure-sas",
    "?sig=v2 &sig=the_signature_name_here ?sig=abcdefghijklmnopqrstuvwxyz f(sig=inspect.signature(fn, follow=True))"
  ],
  [
    "azure-sas",
    "uses SharedAccessSignature auth; new SharedAccessSignatureTokenProvider(); SharedAccessSignature=<sas-token>"
  ],
  // A public key and a certificate in DER base64 are not a key body.
  ["private-key", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA2uxQk3vT9pLmN8rS and MIIDdzCCAl+gAwIBAgIJAKZ"],
  ["google-oauth-token", "ya29 is a prefix"],
  ["sendgrid-key", "SG.short.x and SG. done"],
  // A tuple under a credential's name that holds no literal password, or a scheme.
  [
    "credential",
    `requests.get(u, auth=("bob", password)); x = { auth: ("bob", getpass()) }; { auth: ["basic", "digest"] }`
  ],
  // Passwords passed to calls as names or expressions, not literals; ordinary calls of two strings.
  [
    "credential",
    `login(user, password); HTTPBasicAuth(user, pw); getConnection(url, props); print("hello", "world");`
    + ` t("login", "Sign in")`
  ],
  [
    "credential",
    `smtp.login(user, os.environ["SMTP_PASSWORD"]); login(user, getpass()); login(user, f"{pw}");`
    + ` login(user, \`\${pw}\`); login(u, ""); login(u, None); login (username, password)`
  ],
  [
    "credential",
    `DriverManager.getConnection(url, "bob", password); new Sequelize(db, user, pass, {}); new PDO($dsn, $user, $pass);`
    + ` sqlite3.connect("app.db"); cx_Oracle.connect(user, pw, dsn); FTP (File Transfer Protocol)`
  ],
  ["credential", `log.info("login", "user logged in"); render("login", "page"); i18n.t("auth.login", "Sign in");`],
  // Not a DSN's password: no protocol's `(` after the `@`, or no user's `:` before it.
  ["credential", `git@github.com:a/b.git, "a:b@tcp", user@tcp(db:3306)/app and host:3306 @tcp`],
  // A Terraform variable that is no credential's, or whose default is no literal; a block closed before a default.
  [
    "credential",
    `variable "region" {\n  default = "us-east-1"\n}\nvariable "db_password" {\n  type = string\n}\n`
    + `variable "zone" {\n  default = "eu-west-1a"\n}\nvariable "api_token" {\n  default = var.token\n}`
  ],
  // Calls that set no literal, or an empty one, or under another name.
  [
    "credential",
    `setPassword(password); setToken(null); set_password(""); define('DB_PASSWORD', ''); map.put("tokenCount", "5")`
    + "; setPasswordVisible(true)"
  ],
  // secret_key_base read, not written.
  [
    "credential",
    `Rails.application.secret_key_base and secret_key_base: <%= ENV.fetch("X") %> and secret_key_base = ""`
  ],
  // The prefixes in names and short words.
  ["vendor-token", "the r8_model, gsk_short, xai-grok-2 and whsec_ prefixes; GOCSPX-tooShort"],
  // A signature named so outside a query, or not hex.
  ["url-signature", "set X-Amz-Signature=<sig> in the request; ?X-Amz-Signature=pending&X-Goog-Signature=abc"],
  // The same programs' other flags, and names that only start like them.
  [
    "credential",
    "git log -p && ls -w 80 && smbclient -L srv -U admin && htpasswd -c .htpasswd admin && mongoose -p 3000"
  ],
  // Elements and attributes that hold no secret: empty, a reference, a template, another name, prose.
  [
    "credential",
    `<password></password> <token>\${env.TOKEN}</token> <passwordEncoder>bcrypt</passwordEncoder>`
    + " <keyStore>ks</keyStore>"
  ],
  ["credential", `<input type="password" name="password" value=""> <input name="token" value="{{ csrf_token }}">`],
  ["credential", `<add key="ApiUrl" value="https://api.example.com" /> <param name="passwordLength" value="12"/>`],
  ["credential", "the user is identified by their email; IDENTIFIED BY VALUES and set password policy = strict"],
  // Korean sentences about a credential that hold none: a verb, a word, a place, a path after the name and particle.
  [
    "credential",
    "토큰을 갱신했다. 토큰을 localStorage에 저장. 비밀번호를 env에서 읽어. API 키를 환경변수로 옮김. token 이 expired."
    + " 비번 바꿨어. password 는 src/config/secrets.ts 에 있음. 토큰이 만료됨. the token was changed to the new format"
  ],
  // A value before a name that is no secret (a word, a path, a version), accounts of words or paths, a test's PASS.
  [
    "credential",
    "use sha256 as the hash; use src/auth/token.ts as the token store; we use React as the UI library; use JWT as the"
    + " token format; use the refresh token as the session key; I used v1.2.3-beta as the release tag. 파일을"
    + " src/x.ts로 옮겼어, config.json을 설정으로, v2.3.1을 토큰으로"
  ],
  [
    "credential",
    "login / logout buttons; account admin / settings page; log in with GitHub / Google; login: POST /api/v1/login;"
    + " sign in with email/password; login with admin/admin; account: bob / 12345678;"
    + " src/app/login/page.tsx 로 로그인 페이지; user admin passes the check; user bob pass the test; user: admin pass: see"
    + " vault; the password for the admin: see vault"
  ],
  // keytool without a password on its line: it prompts; the password is in an environment variable or a file.
  [
    "credential",
    "keytool -list -keystore k.jks\nkeytool -list -keystore k.jks -storepass:env STORE_PW -keypass:file /run/kp\n"
    + "keytool prompts for the keystore password, and the -storepass flag."
  ],
  // Archives without a password on their line: zip -e and 7z x -p prompt for it. wget's -P and rsync's -P after a
  // file named .zip or .7z are no archiver's.
  [
    "credential",
    "zip -r out.zip dir\nzip -e notes.zip notes.txt\n7z x archive.7z\n7z x -p archive.7z -o/tmp/x\nunzip -l out.zip\n"
    + "wget https://dl.example.com/release.zip -P /tmp/downloads\nrsync -a backup.7z -P host:/srv\n"
    + "zip encrypts with -P, and 7z with -p; zip's -P option is weak."
  ],
  // A reference in place of the password (a variable, a command's output), a file, or another program's stdin.
  [
    "credential",
    "echo \"root:$ROOT_PASSWORD\" | chpasswd\necho root:${PW} | sudo chpasswd\nchpasswd < users.txt\n"
    + "echo 'root:x1' > users.txt\necho \"a:b\" | tee f; chpasswd -e\nchpasswd reads user:password lines from stdin\n"
    + "echo $TOKEN | docker login -u bob --password-stdin\necho \"${CI_TOKEN}\" | docker login -u ci --password-stdin\n"
    + "echo \"$(cat ~/.pw)\" | docker login --password-stdin\n"
    + "printf '%s' \"$PW\" | helm registry login x --password-stdin\n"
    + "echo -n $TOKEN | docker login --password-stdin\necho `cat pw` | docker login --password-stdin\n"
    + "aws ecr get-login-password | docker login --username AWS --password-stdin 1.dkr.ecr.eu-west-1.amazonaws.com\n"
    + "cat ~/pw.txt | docker login --password-stdin\necho done | tee log; docker login --password-stdin < pw.txt\n"
    + "echo data | git hash-object --stdin\ndocker login -u bob --password-stdin <<< \"$TOKEN\"\n"
    + "chpasswd <<< \"root:${PW}\"\ncat <<< \"hello\"\necho \"$SUDO_PW\" | sudo -S true\n"
    + "echo done | sudo tee /etc/motd\necho x | sudo -u app -s\n"
    + "echo 'bob:x:1001:1001::/home/bob:/bin/bash' | sudo tee -a /etc/passwd\n"
    + "exec(\"echo '\" + password + \"' | sudo -S bash\")\n"
    + "run('echo \"' + token + '\" | docker login --password-stdin')"
  ],
  // net user listing, showing, prompting for (*) or changing no password; prose about it.
  [
    "credential",
    "net user\nnet user bob\nnet user bob * /add\nnet user bob /delete\nnet user bob /active:no\nNET USER bob /domain\n"
    + "Use net user to list, add or remove accounts; net user bob to see one. The net user command is old."
  ],
  // SQL Server's tools logging in as Windows (-E, -T) or prompting; RabbitMQ's other commands; prose.
  [
    "credential",
    "sqlcmd -S db -E -Q \"select 1\"\nsqlcmd -S db -U sa\nsqlcmd -S db -E -p 1\nbcp dbo.t out t.dat -T -S db\n"
    + "rabbitmqctl list_users\nrabbitmqctl add_user bob\nrabbitmqctl delete_user bob\n"
    + "sqlcmd takes the password with -P, or prompts; rabbitmqctl add_user bob and then set_user_tags."
  ],
  // gh secret set reading the value from a file or stdin; gh's other commands, whose --body is no secret.
  [
    "credential",
    "gh secret list\ngh secret set TOKEN < token.txt\ngh secret set -f .env\ngh secret set TOKEN --body-file t.txt\n"
    + "gh variable set REGION --body eu-west-1\ngh secret delete TOKEN\ngh pr create --title x --body \"Fixes #12\"\n"
    + "gh secret set reads the value from --body or from stdin."
  ],
  // Dockerfile ENV lines whose name is no credential's, or names a file holding one; PWD holding a path; an ARG
  // without a default; an empty value; prose mentioning ENV.
  [
    "credential",
    "ENV PATH /usr/local/bin:$PATH\nENV PASSWORD_FILE /run/secrets/db\nENV PWD /srv/app\nENV NODE_ENV production\n"
    + "ENV GPG_KEY 7169605F62C751356D054A26A821E680E5FA6305\nARG DB_PASSWORD\nENV DB_PASSWORD_FILE=/run/secrets/db\n"
    + "ENV DB_PASSWORD \"\"\nSet the password with ENV DB_PASSWORD in the Dockerfile.\nenv token is read from the vault"
  ]
]

/** Names a key or a prose credential may end with, and words beside them that must not count. */
const SENSITIVE_WORDS = [
  "password",
  "Passwd",
  "PASS",
  "passphrase",
  "pw",
  "Pwd",
  "DB_PWD",
  "cwd",
  "AccountKey",
  "SharedAccessKey",
  "비밀번호",
  "비번",
  "시크릿",
  "시크릿 키",
  "암호",
  "인증 토큰",
  "API 키",
  "열쇠",
  "bypass",
  "secret",
  "Secrets",
  "api_key",
  "apiKey",
  "x-api-key",
  "private-key",
  "SecretAccessKey",
  "token",
  "tokens",
  "auth",
  "oauth",
  "OAuth",
  "_auth",
  "npmAuthIdent",
  "authIdentity",
  "credential",
  "Credentials",
  "cookie",
  "Authorization",
  "key",
  "monkey",
  "session_id",
  "command",
  "name",
  "value",
  "DB_",
  "client_",
  "\u212Aey"
]

/** `count` texts of 1 to `most` pieces each, drawn by a seeded generator: the same texts on every run. */
function* piecedTexts(
  pieces: ReadonlyArray<string>,
  { seed: start, count, most }: { readonly seed: number; readonly count: number; readonly most: number }
): Generator<string> {
  let seed = start
  const next = (n: number) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
    return (seed >>> 8) % n
  }
  for (let i = 0; i < count; i++) {
    let text = ""
    for (let k = 1 + next(most); k > 0; k--) text += pieces[next(pieces.length)]
    yield text
  }
}

describe("secret rules", () => {
  it.each(MASKED)("%s: masks %j", (_, input, expected) => {
    expect(redactText(input).text).toBe(expected)
  })

  it.each(UNCHANGED)("%s: leaves %j alone", (_, input) => {
    expect(redactText(input)).toEqual({ text: input, redactions: 0 })
  })

  it("has a positive and a negative case for every rule kind", () => {
    const kinds = new Set(SECRET_RULES.map((rule) => rule.kind))
    expect(new Set(MASKED.map(([kind]) => kind))).toEqual(kinds)
    for (const [kind] of UNCHANGED) expect(kinds).toContain(kind)
  })

  it("uses only global patterns, so every occurrence is masked", () => {
    for (const rule of SECRET_RULES) expect(rule.pattern.global, rule.kind).toBe(true)
    expect(redactText("AKIAIOSFODNN7EXAMPLE AKIAIOSFODNN7EXAMPLE").redactions).toBe(2)
  })

  it("skips a rule only when its pattern cannot match: every hint is a necessary condition", () => {
    // Texts assembled from the pieces the patterns are made of (names, separators, quotes, values), so
    // that many of them match; whenever a pattern matches, its hint must match too.
    const pieces = [
      "password",
      "passwd",
      "PASS",
      "Passphrase",
      "api_key",
      "api-key",
      "ApiKey",
      "private-key",
      "secret_access_key",
      "SECRET",
      "secrets",
      "token",
      "Token",
      "auth",
      "_auth",
      "oauth",
      "Ident",
      "credentials",
      "Credential",
      "cookie",
      "name",
      "Name",
      "value",
      "Value",
      "DB_",
      "x-",
      "config.",
      "--",
      "-",
      "\"",
      "'",
      "\\\"",
      "\\\\\\\"",
      `${FOUR}"`,
      `${FIVE}"`,
      "\\",
      "]",
      "[",
      ":",
      "=",
      ":=",
      "==",
      "=>",
      " ",
      "\t",
      "\n",
      "\r\n",
      ",",
      "?",
      "string",
      "none",
      "abc123",
      "hunter2",
      "&",
      "bypass",
      "key",
      "passed",
      "{",
      "}",
      ";",
      "os.environ",
      "const ",
      "AKIAIOSFODNN7EXAMPLE",
      "Bearer ",
      "://",
      "@",
      "sk-",
      "ghp_",
      "\"password\"",
      "'token'",
      "\"name\"",
      "\"value\"",
      "name: ",
      "value: ",
      "\": \"",
      "--token ",
      "password: ",
      "secre",
      "oken",
      "ecret",
      "word",
      "phrase",
      "s",
      "valuex",
      "mysql ",
      " -p",
      "-phunter2",
      "sshpass -p ",
      "curl ",
      " -u ",
      "admin:",
      "config set ",
      "configure ",
      " is ",
      "=>",
      "'password' => ",
      "APP_KEY",
      "hunter2x9",
      "curl -u a:",
      "wget --user=b:",
      "Pwd",
      "AccountKey",
      "os.getenv(",
      "getenv(\"token\", ",
      "get('pw', ",
      "name: pwd\n  value: ",
      " # c",
      "name: DB_TOKEN # c\n\tvalue: ",
      "name: DB_TOKEN\n\n  # c\n  value: ",
      "- value: x # c\n\n  name: ",
      "{\"Value\": \"x\", \"name\": \"",
      String.raw`\"value\":\"x\",\"name\":\"`,
      String.raw`name: DB_TOKEN # c\n\n  value: `,
      String.raw`\\\\n  `,
      String.raw`",\n\t\t"value": "`,
      "#",
      "%3D",
      "%22token%22%3A%22",
      "\", ",
      "h:5432:db:u:",
      "=\\\n",
      "SharedAccessSignature",
      "sig=",
      "sv=1&",
      "AbC%2Bdef0123456789ghij",
      "password: |\n  ",
      ">-\n ",
      "|",
      ":\n  ",
      "=\n  \"",
      "<password>",
      "</password>",
      "<ApiKey>",
      "</ApiKey>",
      "<add key=\"ApiKey\" value=\"",
      "name='db.password'",
      "name='pwd' value='",
      "Value  = ",
      "value=\"",
      "value='",
      "\" ",
      "IDENTIFIED BY ",
      "identified with x by '",
      "SET PASSWORD FOR x = '",
      "${",
      "define('pw', ",
      "setPassword(",
      "auth=(\"u\", ",
      "auth: [u, ",
      "login(u, ",
      "getConnection(u, ",
      "PDO(u, \"bob\", ",
      "\"bob:",
      "@tcp(",
      "variable \"pw\" {\n  default = \"",
      "secret_key_base: ",
      "?X-Amz-Signature=",
      "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d",
      "keytool -storepasswd -new ",
      " -keypass ",
      "zip -P",
      "7z a -p",
      "echo 'root:",
      "echo root:x1 | chpasswd",
      "echo ",
      " | chpasswd",
      " | docker login --password-stdin",
      "chpasswd <<< ",
      "--password-stdin <<< ",
      "net user bob ",
      " /add",
      "sqlcmd -P",
      "rabbitmqctl add_user u ",
      "gh secret set N --body ",
      "token =\n  'x1'",
      "\nENV DB_PASS ",
      "zip -rP ",
      "7z a \"-p",
      " | sudo -S ",
      "gh\tsecret\tset x -b"
    ]
    // The rules for prose and accounts are made of words the pieces above seldom put in order: a second round adds
    // them.
    const prosePieces = [
      ...pieces,
      "use ",
      "use x as ",
      " as ",
      "the ",
      "를 ",
      "x를 ",
      "비밀번호",
      "비밀번호로",
      "로",
      "login: ",
      "계정은 ",
      "/",
      " / ",
      "로 로그인",
      "user ",
      "user x",
      " pass ",
      " pass x"
    ]
    const matches = new Map(SECRET_RULES.map((rule) => [rule, 0]))
    const texts = [
      ...piecedTexts(pieces, { seed: 42, count: 60_000, most: 10 }),
      ...piecedTexts(prosePieces, { seed: 43, count: 20_000, most: 10 })
    ]
    for (const text of texts) {
      for (const rule of SECRET_RULES) {
        if (!new RegExp(rule.pattern.source, rule.pattern.flags).test(text)) continue
        matches.set(rule, matches.get(rule)! + 1)
        expect(rule.hint.test(text), `${rule.kind} ${JSON.stringify(text)}`).toBe(true)
      }
    }
    // The texts did exercise every credential pattern.
    for (const [rule, count] of matches) {
      if (rule.kind === "credential") expect(count, rule.pattern.source).toBeGreaterThan(2)
    }
  })

  it("hints at a flag named in Korean, as its pattern reads one (`--비밀번호 x`, `--API 키 x`)", () => {
    for (const text of ["--비밀번호 x", "--API 키 x", "-인증 토큰=x"]) {
      const matching = SECRET_RULES.filter((rule) => new RegExp(rule.pattern.source, rule.pattern.flags).test(text))
      expect(matching.length, text).toBeGreaterThan(0)
      for (const rule of matching) expect(rule.hint.test(text), `${text} ${rule.pattern.source}`).toBe(true)
    }
  })

  it("runs the prose rule only where its pattern can match, and not for test output's words", () => {
    const prose = SECRET_RULES.at(-1)!
    const pattern = new RegExp(prose.pattern.source, prose.pattern.flags)
    // Names, endings, linking words, separators and values, in random order: whenever the pattern matches, the hint
    // must say so.
    const pieces = [
      ...SENSITIVE_WORDS,
      "pass",
      "PASS",
      "password",
      "passwd",
      "Passphrase",
      "passed",
      "passes",
      "passwords",
      "bypass",
      "secret",
      "secrets",
      "ecret",
      "secretoken",
      "token",
      "tokens",
      "tokenize",
      "oken",
      "api key",
      "API_KEY",
      "key",
      "auth",
      "oauth",
      "credential",
      "Cookies",
      " ",
      "\t",
      "  ",
      ":",
      "=",
      " is ",
      " was ",
      " now ",
      " set to ",
      " to ",
      "'s",
      "is",
      "is-",
      "isx",
      "set",
      "\"",
      "'",
      "`",
      ".",
      "-",
      "_",
      "x",
      "12",
      "Tr0ub4dor-and-3",
      "hunter2x9",
      "\n"
    ]
    let matched = 0
    let skipped = 0
    for (const text of piecedTexts(pieces, { seed: 7, count: 60_000, most: 8 })) {
      pattern.lastIndex = 0
      const hinted = prose.hint.test(text)
      if (pattern.test(text)) {
        matched++
        expect(hinted, JSON.stringify(text)).toBe(true)
      } else if (!hinted) skipped++
    }
    expect(matched).toBeGreaterThan(5000)
    expect(skipped).toBeGreaterThan(5000)
    // What test runners print: the words, with no value after them.
    const lines = [
      "all good 12 passed",
      "PASS src/auth/token.test.ts",
      "Tests  41 passed (41)",
      "tokens.ts",
      "keys.length"
    ]
    for (const line of lines) {
      expect(prose.hint.test(line), line).toBe(false)
    }
  })

  it("recognises sensitive keys exactly as the full pattern does", () => {
    const full = new RegExp(String.raw`(?:${SENSITIVE_NAME}|authorization)$`, "i")
    for (const a of SENSITIVE_WORDS) {
      for (const b of ["", ...SENSITIVE_WORDS]) {
        const key = `${b}${a}`
        expect(isSensitiveKey(key), key).toBe(full.test(key.slice(-64)))
      }
    }
  })

  it("reports a labelled token by its precise kind, not as a generic credential", () => {
    expect(redactText("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toEqual({
      text: "GITHUB_TOKEN=[secret:github-token]",
      redactions: 1
    })
  })

  it("reads a test runner's PASS as a verdict, not a password", () => {
    for (
      const line of [
        "PASS ZEBRA-7731-QUOKKA",
        "PASS test_2fa_login",
        "echo \"PASS ZEBRA-7731-QUOKKA\" # npm test",
        "  PASS  src/auth.test.ts (5 ms)"
      ]
    ) {
      expect(redactText(line), line).toEqual({ text: line, redactions: 0 })
    }
  })

  it("still masks a bare pass with a colon or a linking word", () => {
    expect(redactText("pass: hunter2x9").text).toBe("pass: [secret:credential]")
    expect(redactText("db pass is Xy9z8w7v6").text).toBe("db pass is [secret:credential]")
  })
})
