import { describe, expect, it } from "vitest"
import { maskPrintedSecrets, printsSecret } from "../../src/index.ts"

describe("commands that print a secret alone", () => {
  it("are known by the command, wherever it stands in a pipeline", () => {
    for (
      const command of [
        "gcloud secrets versions access latest --secret=db",
        "sudo vault read -field=token auth/token/lookup-self",
        "vault kv get secret/app",
        "kubectl -n prod get secret db -o jsonpath='{.data.pw}' | base64 -d",
        "kubectl get secrets api --output=go-template='{{.data.key}}'",
        "aws ssm get-parameter --name /db/pw --with-decryption --query Parameter.Value --output text",
        "az keyvault secret show --vault-name v --name db --query value -o tsv",
        "op item get db --fields password --reveal",
        "pass show work/db",
        "gopass show -o work/db",
        "doppler secrets get DB_URL --plain",
        "heroku config:get DATABASE_URL -a app",
        "printenv GITHUB_TOKEN",
        "echo ${OPENAI_API_KEY}",
        "echo $pwd $DB_PWD",
        "FOO=1 printf '%s\\n' \"$AWS_SECRET_ACCESS_KEY\""
      ]
    ) expect(printsSecret(command), command).toBe(true)
  })

  it("are not commands that only read or list, nor an echo of an ordinary variable", () => {
    for (
      const command of [
        "gcloud secrets list",
        "vault status",
        "kubectl get secret db -o yaml",
        "kubectl get pods -o jsonpath='{.items[*].metadata.name}'",
        "aws secretsmanager list-secrets --output text",
        "aws secretsmanager get-secret-value --secret-id prod/db",
        "az keyvault secret list --vault-name v -o tsv",
        "passwd --status",
        "echo $HOME $PATH",
        "echo $PWD && printenv PWD OLDPWD",
        "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com && echo done",
        "npm test"
      ]
    ) expect(printsSecret(command), command).toBe(false)
  })

  it("mask a Bash call's stdout and a failure's error, and leave any other payload as it is", () => {
    const call = {
      tool_name: "Bash",
      tool_input: { command: "printenv DB_PASSWORD" },
      tool_response: { stdout: "x9-secret\n", stderr: "warning: old shell", interrupted: false }
    }
    expect(maskPrintedSecrets(call)).toEqual({
      ...call,
      tool_response: { stdout: "[secret:printed-by-command]", stderr: "warning: old shell", interrupted: false }
    })
    const failed = { tool_name: "Bash", tool_input: { command: "vault kv get secret/app" }, error: "Exit code 2\nx" }
    expect(maskPrintedSecrets(failed)).toEqual({ ...failed, error: "[secret:printed-by-command]" })
    const read = { tool_name: "Read", tool_input: { command: "printenv DB_PASSWORD" }, tool_response: "x9-secret" }
    expect(maskPrintedSecrets(read)).toBe(read)
    const plain = { ...call, tool_input: { command: "ls" } }
    expect(maskPrintedSecrets(plain)).toBe(plain)
  })

  it("are judged on the command's first 4 KiB, so a hostile command costs no more than a long one", () => {
    for (
      const command of [
        "kubectl secrets ".repeat(300),
        `echo ${"$".repeat(500_000)}`,
        "aws ssm get-parameter --output ".repeat(150),
        "security find-generic-password -".repeat(150)
      ]
    ) expect(printsSecret(command)).toBe(false)
    expect(printsSecret(`${"x".repeat(5000)} printenv DB_PASSWORD`)).toBe(false)
  })
})
