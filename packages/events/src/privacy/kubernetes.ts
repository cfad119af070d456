/**
 * A Kubernetes Secret's values (`kubectl get secret -o yaml`, `-o json`, a manifest, the last-applied
 * annotation that repeats it as escaped JSON). Under `data:` they are base64 (`cG9zdGdyZXM6Ly9hcHA6...` is
 * `postgres://app:password@db`), under `stringData:` plain text, and their keys are whatever the user named them
 * (`DATABASE_URL`, `admin`, `tls.key`): no shape and no name says they are secrets, only where they are. So in a
 * text that declares `kind: Secret`, every value of a `data` or `stringData` map is masked, its key kept. A
 * ConfigMap's `data` in the same text is masked too: the text cannot say which document a map belongs to as
 * cheaply as it can say a Secret is there, and a masked ConfigMap value costs less than a leaked Secret.
 *
 * Linear: the YAML pass reads each line once; a JSON map is read from its `{` to the first `}`, where the next
 * search starts.
 */

import { ESCAPED_QUOTED, ESCAPES } from "./secret-rules.ts"

const MARKER = "[secret:kubernetes-secret]"

/** `kind: Secret`, `"kind": "Secret"`, `\"kind\":\"Secret\"`, and escaped deeper (ESCAPES). */
const DECLARES_SECRET = new RegExp(String.raw`\bkind${ESCAPES}["']?[ \t]*:[ \t]*${ESCAPES}["']?Secret(?![\w-])`)

/** A YAML `data:` or `stringData:` key alone on its line, in a list item or not; `key` is where the name starts. */
const YAML_MAP = /^(?<head>[ \t]*(?:-[ \t]+)?)(?:data|stringData):[ \t]*(?:#.*)?$/

/** A map's entry: its indentation, its key and the blanks after, and its value. */
const YAML_ENTRY = /^(?<keep>(?<indent>[ \t]*)[\w.-]+:[ \t]*)(?<value>.*)$/

/** A block scalar's header (`|`, `>-`): the value is on the lines below. */
const BLOCK_HEADER = /^[|>][-+1-9]{0,2}[ \t]*(?:#.*)?$/

const indentOf = (line: string): number => line.length - line.trimStart().length

function maskYaml(text: string): { readonly text: string; readonly redactions: number } {
  const lines = text.split("\n")
  let redactions = 0
  for (let i = 0; i < lines.length; i++) {
    const map = YAML_MAP.exec(lines[i]!.replace(/\r$/, ""))
    if (map === null) continue
    const mapIndent = map.groups!["head"]!.length
    let entryIndent: number | undefined
    for (let j = i + 1; j < lines.length; j++) {
      const cr = lines[j]!.endsWith("\r") ? "\r" : ""
      const line = cr === "" ? lines[j]! : lines[j]!.slice(0, -1)
      if (line.trim() === "") continue
      const indent = indentOf(line)
      if (indent <= mapIndent) break
      entryIndent ??= indent
      i = j
      if (indent > entryIndent) {
        // A line of a block scalar's value.
        lines[j] = line.slice(0, indent) + MARKER + cr
        redactions++
        continue
      }
      const entry = YAML_ENTRY.exec(line)
      const value = entry?.groups!["value"] ?? ""
      if (entry === null || value === "" || BLOCK_HEADER.test(value) || value.startsWith("[secret:")) continue
      lines[j] = entry.groups!["keep"]! + MARKER + cr
      redactions++
    }
  }
  return { text: redactions === 0 ? text : lines.join("\n"), redactions }
}

/**
 * `"data": {` or, escaped, `\"stringData\":{`. Tried only where a run of backslashes starts (`(?<!\\)`), as the entries
 * below are: tried at each backslash of a long run, each try read up to ESCAPES' bound of it again.
 */
const JSON_MAP = new RegExp(String.raw`(?<!\\)${ESCAPES}"(?:data|stringData)${ESCAPES}"[ \t\r\n]*:[ \t\r\n]*\{`, "g")

/**
 * An entry of the map: a quoted key, a colon and the value's opening quote, then the value up to its closing one
 * (escaped as deeply as the opening one: ESCAPED_QUOTED).
 */
const JSON_ENTRY = new RegExp(
  String.raw`(?<keep>(?<!\\)${ESCAPES}"[\w.-]+${ESCAPES}"[ \t\r\n]*:[ \t\r\n]*${ESCAPES}")`
    + String.raw`(?:${ESCAPED_QUOTED}|(?:[^"\\\r\n]|\\[^"\r\n])+)`,
  "g"
)

function maskJson(text: string): { readonly text: string; readonly redactions: number } {
  let output = ""
  let cursor = 0
  let redactions = 0
  JSON_MAP.lastIndex = 0
  for (let map = JSON_MAP.exec(text); map !== null; map = JSON_MAP.exec(text)) {
    const start = map.index + map[0].length
    const close = text.indexOf("}", start)
    const end = close === -1 ? text.length : close
    const body = text.slice(start, end).replace(JSON_ENTRY, (_, keep: string) => {
      redactions++
      return keep + MARKER
    })
    output += text.slice(cursor, start) + body
    cursor = end
    JSON_MAP.lastIndex = end
  }
  return { text: redactions === 0 ? text : output + text.slice(cursor), redactions }
}

/** Masks the values of a Kubernetes Secret's `data` and `stringData` maps, as YAML and as JSON. */
export function maskKubernetesSecrets(text: string): { readonly text: string; readonly redactions: number } {
  if (!text.includes("Secret") || !DECLARES_SECRET.test(text)) return { text, redactions: 0 }
  const yaml = maskYaml(text)
  const json = maskJson(yaml.text)
  return { text: json.text, redactions: yaml.redactions + json.redactions }
}
