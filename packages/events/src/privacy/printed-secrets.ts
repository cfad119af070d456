/**
 * Commands whose output is a secret with nothing around it to say so: `gcloud secrets versions access` prints the
 * password alone, `printenv DB_PASSWORD` the value alone. No rule on the text can tell such a line from any other,
 * but the command that printed it can: a Bash tool call running one has its output masked whole (stdout, and a
 * failure's error), its command and stderr kept.
 *
 * Each pattern is tried anywhere in the command (a pipeline, `sudo`, `FOO=1 cmd`), on the command's first
 * MAX_COMMAND_CHARS (a command runs on one line or a few): no pattern runs past a line.
 */
import { isSensitiveKey, secretMarker } from "./filter.ts"

const MAX_COMMAND_CHARS = 4096

/** A flag's value may follow a space or `=`; `[^\n]*` keeps each pattern within the line it starts on. */
const PRINTS_A_SECRET: ReadonlyArray<RegExp> = [
  // Google Secret Manager: the secret's payload, alone.
  /\bgcloud\s+secrets\s+versions\s+access\b/,
  // HashiCorp Vault: a secret's fields as a table, or one field alone (-field).
  /\bvault\s+(?:kv\s+get|read)\b/,
  // AWS: a secret or a decrypted parameter as text (the JSON is masked by secret-stores.ts).
  /\baws\s+(?:secretsmanager\s+get-secret-value|ssm\s+get-parameters?(?:-by-path)?)\b[^\n]*--output[\s=]+text\b/,
  // Azure Key Vault: a secret's value as text.
  /\baz\s+keyvault\s+secret\s+show\b[^\n]*(?:--query[\s=]+["']?value\b|(?:-o|--output)[\s=]+tsv\b)/,
  // 1Password, pass and gopass, the macOS keychain (-w prints the password alone), Doppler, Heroku.
  /\bop\s+(?:read|item\s+get\b[^\n]*--reveal)\b/,
  /\b(?:go)?pass\s+show\b/,
  /\bsecurity\s+find-(?:generic|internet)-password\b[^\n]*\s-w\b/,
  /\bdoppler\s+secrets\s+(?:get\b[^\n]*--plain|download)\b/,
  /\bheroku\s+config:get\b/
]

/**
 * `printenv NAME`, and the arguments of an echo or printf up to the end of its command (`;`, `|`, `&`, a line
 * break): the value of a variable whose name is a secret's is printed when one of them names it (`$NAME`, `${NAME}`).
 */
const PRINTS_VARIABLES = /\b(?:echo|printf)\b([^\n;|&]*)|\bprintenv\s+([A-Za-z_]\w*)/g
const VARIABLE = /\$\{?([A-Za-z_]\w*)/g

/**
 * A Kubernetes Secret's values through a template (base64 alone); -o yaml and -o json keep their keys (kubernetes.ts
 * masks the values). Three tests, not one pattern: `kubectl .* secrets .* -o` backtracks over every pair of its words.
 */
const printsKubernetesSecret = (line: string): boolean =>
  /\bkubectl\b/.test(line) && /\bsecrets?\b/.test(line) && /(?:-o|--output)[\s=]*(?:jsonpath|go-template)/.test(line)

/** A variable named like a secret; not `PWD`, which the shell sets to its working directory (`echo $PWD`). */
const namesSecret = (name: string): boolean => name !== "PWD" && isSensitiveKey(name)

/** Whether a shell command prints a secret alone (see above). */
export const printsSecret = (command: string): boolean => {
  const line = command.slice(0, MAX_COMMAND_CHARS)
  if (PRINTS_A_SECRET.some((pattern) => pattern.test(line)) || printsKubernetesSecret(line)) return true
  for (const [, echoed, printed] of line.matchAll(PRINTS_VARIABLES)) {
    if (printed !== undefined && namesSecret(printed)) return true
    for (const [, name] of (echoed ?? "").matchAll(VARIABLE)) if (namesSecret(name!)) return true
  }
  return false
}

type Payload = Record<string, unknown>

const isRecord = (value: unknown): value is Payload =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const masked = (value: unknown): unknown =>
  typeof value === "string" && value !== "" ? secretMarker("printed-by-command") : value

/**
 * A hook payload whose Bash command prints a secret, with that output masked whole: the tool's stdout (or its whole
 * response when it is text) and a failure's error. Any other payload is returned as it is.
 */
export function maskPrintedSecrets(payload: unknown): unknown {
  if (!isRecord(payload) || payload["tool_name"] !== "Bash" || !isRecord(payload["tool_input"])) return payload
  const command = payload["tool_input"]["command"]
  if (typeof command !== "string" || !printsSecret(command)) return payload
  const response = payload["tool_response"]
  return {
    ...payload,
    ...("tool_response" in payload
      ? { tool_response: isRecord(response) ? { ...response, stdout: masked(response["stdout"]) } : masked(response) }
      : {}),
    ...("error" in payload ? { error: masked(payload["error"]) } : {})
  }
}
