/**
 * The secret shapes issue 15 found on disk unmasked. Each line holds its secret verbatim; the filter must
 * leave no trace of it, in a plain string and inside a hook payload.
 */
import { describe, expect, it } from "vitest"
import { redactStrings, redactText, redactValue } from "../../src/privacy/index.ts"

const OPAQUE = "Xq7vR2mK9pL4wT8zN3bH6cJ1"
const SHAPES: ReadonlyArray<readonly [string, string, string]> = [
  ["mysql -p glued", `mysql -u root -p${OPAQUE} app`, OPAQUE],
  ["mysql -u glued -p glued", `mysql -uroot -phunter2x app < dump.sql`, "hunter2x"],
  ["mysqldump -p", `mysqldump -h db -u admin -p'S3cr3t!pw' shop > shop.sql`, "S3cr3t!pw"],
  ["aws configure set", `aws configure set aws_secret_access_key ${OPAQUE}`, OPAQUE],
  ["aws configure set, short value", `aws configure set aws_secret_access_key abc123secret`, "abc123secret"],
  ["curl -u user:password", `curl -u admin:${OPAQUE} https://api.example.com`, OPAQUE],
  ["curl --user user:password", `curl --user deploy:letmein42 https://ci.example.com`, "letmein42"],
  ["X-Api-Key header in curl", `curl -H "X-Api-Key: ${OPAQUE}" https://api.example.com`, OPAQUE],
  ["PRIVATE-TOKEN header", `curl --header "PRIVATE-TOKEN: ${OPAQUE}" https://gitlab.example.com/api/v4`, OPAQUE],
  ["X-Auth-Token header", `curl -H 'X-Auth-Token: ${OPAQUE}' https://swift.example.com`, OPAQUE],
  ["PHP array password", `'password' => "${OPAQUE}",`, OPAQUE],
  ["PHP db_password", `'db_password' => 'pa55w0rd-prod',`, "pa55w0rd-prod"],
  ["Ruby hash password", `config.password => "s3cr3t-ruby-pw"`, "s3cr3t-ruby-pw"],
  ["ENCRYPTION_KEY", `ENCRYPTION_KEY=${OPAQUE}`, OPAQUE],
  [
    "APP_KEY",
    `APP_KEY=base64:q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c=`,
    "q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c="
  ],
  ["JWT_SIGNING_KEY", `export JWT_SIGNING_KEY=${OPAQUE}`, OPAQUE],
  [
    "SendGrid",
    `key 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 here`,
    "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"
  ],
  [
    "Google OAuth access token",
    `token ya29.a0AfH6SMBx3kQ9vLr2Zt8pW1nY5cD7eF0gH4jK6mN8qR-sT_uV in use`,
    "a0AfH6SMBx3kQ9vLr2Zt8pW1nY5cD7eF0gH4jK6mN8qR"
  ],
  ["prose password mid-line", `ok so the db password: ${OPAQUE} and the host is db1`, OPAQUE],
  ["prose password is", `fyi the staging password is Tr0ub4dor-and-3 for now`, "Tr0ub4dor-and-3"],
  [
    "PuTTY private key",
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIOd\n"
    + "Private-Lines: 1\nAAAAIHx9Zk3wQ7pLmN2vR8sT1uY4bC6dE0fG\nPrivate-MAC: 8f1e2d3c4b5a69788796a5b4c3d2e1f0",
    "AAAAIHx9Zk3wQ7pLmN2vR8sT1uY4bC6dE0fG"
  ],
  [
    "Authorization array, no digit",
    `"Authorization": ["Bearer abcdefghijklmnopqrstuvwxyzABCDEF"]`,
    "abcdefghijklmnopqrstuvwxyzABCDEF"
  ],
  [
    "token glued after underscore",
    `backup_ghp_abcdefghijklmnopqrstuvwxyz0123456789.txt`,
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
  ]
]

describe("issue 15: secret shapes that reached the disk", () => {
  it.each(SHAPES)("%s: masked in text", (_, input, secret) => {
    const result = redactText(input)
    expect(result.text).not.toContain(secret)
    expect(result.redactions).toBeGreaterThan(0)
  })

  it.each(SHAPES)("%s: masked as the log stores it", (_, input, secret) => {
    expect(JSON.stringify(redactStrings({ _tag: "NoteAdded", text: input }))).not.toContain(secret)
  })

  it.each(SHAPES)("%s: masked in a hook payload", (_, input, secret) => {
    const payload = { tool_name: "Bash", tool_input: { command: input }, tool_response: { stdout: input, stderr: "" } }
    expect(JSON.stringify(redactValue(payload).value)).not.toContain(secret)
  })
})

describe("key-aware masking on every write path", () => {
  it("masks a belief whose key names a credential", () => {
    const stored = redactStrings({ _tag: "BeliefSet", projectPath: "/p", key: "db-password", value: "hunter2" })
    expect(JSON.stringify(stored)).not.toContain("hunter2")
    expect(stored.key).toBe("db-password")
  })

  it("masks the argument after a credential flag in an argv array", () => {
    const stored = redactStrings({ command: ["mysql", "--password", "hunter2", "-e", "select 1"] })
    expect(stored.command).toEqual(["mysql", "--password", "[secret:credential]", "-e", "select 1"])
  })

  it("masks mysql's glued -p in an argv array", () => {
    expect(JSON.stringify(redactStrings({ command: ["mysql", "-uroot", "-phunter2", "app"] }))).not.toContain("hunter2")
  })
})

describe("<private> blocks in any shape", () => {
  it("hides a block opened in stdout and closed in stderr", () => {
    const payload = { tool_response: { stdout: "visible <private>hidden one", stderr: "hidden two</private> shown" } }
    const out = JSON.stringify(redactValue(payload).value)
    expect(out).not.toContain("hidden one")
    expect(out).not.toContain("hidden two")
    expect(out).toContain("visible")
    expect(out).toContain("shown")
  })

  it.each([
    ["attributes", `a <private data="x y z">hidden</private> b`],
    ["a long attribute", `a <private data="${"x".repeat(1000)}">hidden</private> b`],
    ["spaces after <", "a <   private>hidden</private> b"],
    ["many spaces and newlines", `a <${" ".repeat(40)}\n private\t>hidden<\n/  private   > b`],
    ["spaces in the closing tag", "a <private>hidden</ private > b"],
    ["any case", "a <PrIvAtE>hidden</pRiVaTe> b"]
  ])("hides a block with %s", (_, input) => {
    const result = redactText(input)
    expect(result.text).not.toContain("hidden")
    expect(result.text).toMatch(/^a .*b$/s)
  })
})
