import { describe, expect, it } from "vitest"
import { redactText } from "../../src/privacy/index.ts"

/** `aws secretsmanager get-secret-value --secret-id prod/db`: the secret is a JSON string, under any keys. */
const AWS_SECRET = JSON.stringify(
  {
    ARN: "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    Name: "prod/db",
    SecretString: JSON.stringify({ host: "db.internal", master: "AwsSmPw-31x", engine: "postgres" }),
    VersionId: "EXAMPLE1-90ab-cdef-fedc-ba987EXAMPLE"
  },
  null,
  4
)

/** `aws ssm get-parameter --name /prod/db/master --with-decryption`. */
const SSM_PARAMETER = JSON.stringify(
  { Parameter: { Name: "/prod/db/master", Type: "SecureString", Value: "SsmPw-33x", Version: 1 } },
  null,
  4
)

/** `az keyvault secret show --vault-name myvault --name prod-db`. */
const KEY_VAULT_SECRET = JSON.stringify(
  {
    attributes: { enabled: true },
    contentType: null,
    id: "https://myvault.vault.azure.net/secrets/prod-db/0123456789abcdef0123456789abcdef",
    name: "prod-db",
    tags: {},
    value: "AzKvPw-32x"
  },
  null,
  2
)

describe("a secret manager's output", () => {
  it.each([
    ["AWS Secrets Manager's SecretString", AWS_SECRET, "AwsSmPw-31x", `"SecretString": "[secret:secret-manager]"`],
    ["AWS Systems Manager's SecureString", SSM_PARAMETER, "SsmPw-33x", `"Value": "[secret:secret-manager]"`],
    ["Azure Key Vault's secret", KEY_VAULT_SECRET, "AzKvPw-32x", `"value": "[secret:secret-manager]"`]
  ])("has %s masked, what names it kept", (_, output, secret, masked) => {
    const { text } = redactText(output)
    expect(text).not.toContain(secret)
    expect(text).toContain(masked)
    expect(text).toMatch(/prod\/db|prod-db/)
  })

  it("as YAML, and escaped inside another JSON string", () => {
    const yaml = "Name: prod/db\nSecretString: '{\"master\":\"AwsSmYamlPw-34x\"}'\nVersionId: v1\n"
    expect(redactText(yaml).text).toBe("Name: prod/db\nSecretString: [secret:secret-manager]\nVersionId: v1\n")
    const escaped = JSON.stringify({ stdout: AWS_SECRET })
    expect(redactText(escaped).text).not.toContain("AwsSmPw-31x")
    // Escaped twice (that JSON inside another string): masked up to the closing quote, escaped as the opening one.
    const twice = redactText(JSON.stringify(escaped)).text
    expect(twice).not.toContain("AwsSmPw-31x")
    expect(twice).toContain(String.raw`\\\"SecretString\\\": \\\"[secret:secret-manager]\\\",`)
    // Escaped five times: masked the same way, up to the closing quote's 31 backslashes.
    const five = redactText(JSON.stringify(JSON.stringify(JSON.stringify(JSON.stringify(escaped))))).text
    const quote = "\\".repeat(31) + "\""
    expect(five).not.toContain("AwsSmPw-31x")
    expect(five).toContain(`${quote}SecretString${quote}: ${quote}[secret:secret-manager]${quote},`)
    const yamlVault = "id: https://v.vault.azure.net/secrets/db/1\nname: db\nvalue: \"AzKvYamlPw-35x\"\n"
    expect(redactText(yamlVault).text).toBe(
      "id: https://v.vault.azure.net/secrets/db/1\nname: db\nvalue: [secret:secret-manager]\n"
    )
  })

  it.each([
    [
      "a plain String parameter",
      JSON.stringify({ Parameter: { Name: "/app/region", Type: "String", Value: "eu-west-1" } })
    ],
    ["a value field elsewhere", `{"name": "replicas", "value": "3"}\nvalue: 42`],
    ["the word in prose", "the SecretString field holds it; a SecureString parameter is encrypted"]
  ])("leaves %s alone", (_, text) => {
    expect(redactText(text)).toEqual({ text, redactions: 0 })
  })
})
