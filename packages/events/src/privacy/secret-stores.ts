/**
 * What a secret manager's CLI prints when asked for a secret: the secret is the value of a field whose name says
 * nothing (`value`, `Value`) or names the field, not a credential (`SecretString`).
 * - AWS Secrets Manager (`aws secretsmanager get-secret-value`): `"SecretString": "{\"password\":...}"` and
 *   `SecretBinary`, masked whole (the JSON inside holds any keys: `"master": "x"`).
 * - AWS Systems Manager (`aws ssm get-parameter --with-decryption`): a `SecureString` parameter's `"Value"`.
 * - Azure Key Vault (`az keyvault secret show`): the `"value"` of a secret whose `"id"` is
 *   `https://<vault>.vault.azure.net/secrets/...`.
 * The last two are masked in a text that shows that context (a `SecureString`, a vault secret's id): every
 * `value` in it, so a plain `String` parameter listed beside a SecureString one is masked too.
 *
 * Linear: each pattern is tried where its name starts and stops at the value's closing quote or line end.
 */

import { forEachMatch } from "./matches.ts"
import { ESCAPED_QUOTED, ESCAPES } from "./secret-rules.ts"

const marker = "[secret:secret-manager]"

/**
 * A JSON string's content after its opening quote, escapes included, up to its closing quote: escaped as deeply as
 * the opening one (ESCAPED_QUOTED), or else up to a quote no backslash escapes.
 */
const JSON_STRING = String.raw`(?:${ESCAPED_QUOTED}|(?:[^"\\\r\n]|\\[^\r\n])+)`

/**
 * `"SecretString": "...",` as JSON (the value escaped), or a YAML line `SecretString: '...'` (the rest of it). The JSON
 * forms here and below are tried only where a run of backslashes starts (`(?<!\\)`): tried at each backslash of a long
 * run, each try read up to ESCAPES' bound of it again.
 */
const SECRET_STRING = [
  new RegExp(
    String.raw`(?<keep>(?<!\\)${ESCAPES}"Secret(?:String|Binary)${ESCAPES}"[ \t]*:[ \t]*${ESCAPES}")${JSON_STRING}`,
    "g"
  ),
  /(?<keep>^[ \t]*Secret(?:String|Binary):[ \t]*)[^\s][^\r\n]*/gm
]

/** A parameter's or a secret's value: `"Value": "x"`, `"value": "x"`, a YAML line `value: x`. */
const VALUE_FIELD = [
  new RegExp(String.raw`(?<keep>(?<!\\)${ESCAPES}"[Vv]alue${ESCAPES}"[ \t]*:[ \t]*${ESCAPES}")${JSON_STRING}`, "g"),
  /(?<keep>^[ \t]*[Vv]alue:[ \t]*)[^\s][^\r\n]*/gm
]

/** Masks each pattern's values in turn; all a search that could not finish had yet to search too (matches.ts). */
const replaceAll = (
  text: string,
  patterns: ReadonlyArray<RegExp>
): { readonly text: string; readonly redactions: number } => {
  let redactions = 0
  let masked = text
  for (const pattern of patterns) {
    const current = masked
    let output = ""
    let cursor = 0
    const unsearched = forEachMatch(current, pattern, (match) => {
      output += current.slice(cursor, match.index) + match.groups!["keep"]! + marker
      cursor = match.index + match[0].length
      redactions++
    })
    if (unsearched !== -1) {
      output += current.slice(cursor, unsearched) + marker
      cursor = current.length
      redactions++
    }
    masked = output + current.slice(cursor)
  }
  return { text: redactions === 0 ? text : masked, redactions }
}

/** Masks the secrets a secret manager's CLI printed (see the file's comment). */
export function maskSecretStores(text: string): { readonly text: string; readonly redactions: number } {
  let current = text
  let redactions = 0
  if (current.includes("SecretString") || current.includes("SecretBinary")) {
    const masked = replaceAll(current, SECRET_STRING)
    current = masked.text
    redactions += masked.redactions
  }
  if (current.includes("SecureString") || current.includes(".vault.azure.net/secrets/")) {
    const masked = replaceAll(current, VALUE_FIELD)
    current = masked.text
    redactions += masked.redactions
  }
  return { text: current, redactions }
}
