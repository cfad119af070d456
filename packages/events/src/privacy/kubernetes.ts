/**
 * A Kubernetes Secret's values (`kubectl get secret -o yaml`, `-o json`, a manifest, the last-applied
 * annotation that repeats it as escaped JSON). Under `data:` they are base64 (`cG9zdGdyZXM6Ly9hcHA6...` is
 * `postgres://app:password@db`), under `stringData:` plain text, and their keys are whatever the user named them
 * (`DATABASE_URL`, `admin`, `tls.key`): no shape and no name says they are secrets, only where they are. So in a
 * text that declares `kind: Secret`, every value of a `data` or `stringData` map is masked, its key kept. A
 * ConfigMap's `data` in the same text is masked too: the text cannot say which document a map belongs to as
 * cheaply as it can say a Secret is there, and a masked ConfigMap value costs less than a leaked Secret.
 *
 * Linear: the YAML pass reads each line once; a JSON map is read once, from its `{` to the `}` that closes it, where
 * the next search starts.
 */

import { ESCAPES } from "./secret-rules.ts"

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
 * `"data": {` or, escaped, `\"stringData\":{`. Tried only where a run of backslashes starts (`(?<!\\)`): tried at each
 * backslash of a long run, each try read up to ESCAPES' bound of it again.
 */
const JSON_MAP = new RegExp(String.raw`(?<!\\)${ESCAPES}"(?:data|stringData)${ESCAPES}"[ \t\r\n]*:[ \t\r\n]*\{`, "g")

/**
 * How many times the JSON whose quotes have this many backslashes was quoted as a string: none before `"`, once
 * before `\"`, twice before `\\\"` (each quoting doubles them and adds one: 1, 3, 7, 15, 31).
 */
const depthOf = (backslashes: number): number => {
  let depth = 0
  for (let run = backslashes; run % 2 === 1; run = (run - 1) / 2) depth++
  return depth
}

/**
 * What a quote after a run of backslashes is to JSON quoted as a string `depth` times: undone one quoting at a time,
 * an even run (none included) is a quote that quoting did not escape. Met before the last, such a quote ends a string
 * of the text around this JSON, and so ends this JSON ("outside"); at the last it opens or closes one of its strings;
 * an odd run there is a quote one of its strings holds.
 */
const quoteAt = (run: number, depth: number): "outside" | "delimiter" | "held" => {
  let backslashes = run
  for (let level = 0; level < depth; level++) {
    if (backslashes % 2 === 0) return "outside"
    backslashes = (backslashes - 1) / 2
  }
  return backslashes % 2 === 0 ? "delimiter" : "held"
}

/**
 * Masks a JSON map's values from `start`, just after its `{`, to the `}` that closes it: each string after a `:`
 * (blanks between them, raw or escaped: `\n`, `\\t`), in nested maps too. Its strings are read as JSON reads them,
 * quoted `depth` times (quoteAt), so a `{` or `}` inside a value (`"config.json": "{\"a\":1}"`) is the value's, not
 * the map's. The map also ends where its JSON does (a quote outside it: the end of the string that held it) or the text
 * does; a string ends at a line break (JSON holds none), a value masked to it. One pass: returns where the map ends.
 */
function maskJsonMap(text: string, start: number, depth: number, mask: (from: number, to: number) => void): number {
  // The backslashes before a delimiter that are its own, not the end of the string's content.
  const escape = 2 ** depth - 1
  let nesting = 0
  // Outside strings: whether a `:` came last, but for blanks.
  let afterColon = false
  // Where the content of the string being read starts, or -1 outside one; and whether it is a value.
  let opened = -1
  let value = false
  const close = (end: number): void => {
    if (value && end > opened) mask(opened, end)
    opened = -1
  }
  let i = start
  while (i < text.length) {
    const c = text[i]
    if (c === "\\" || c === "\"") {
      let quote = i
      while (text[quote] === "\\") quote++
      if (text[quote] !== "\"") {
        // A blank escaped (JSON indented, then quoted) leaves a `:` before it last.
        const blank = text[quote] === "n" || text[quote] === "r" || text[quote] === "t"
        if (opened === -1 && !blank) afterColon = false
        i = opened === -1 && blank ? quote + 1 : quote
        continue
      }
      const role = quoteAt(quote - i, depth)
      if (role === "outside") {
        if (opened !== -1) close(i)
        return i
      }
      if (opened !== -1) {
        if (role === "delimiter") close(quote - escape)
      } else if (role === "delimiter") {
        opened = quote + 1
        value = afterColon
      }
      afterColon = false
      i = quote + 1
    } else if (opened !== -1) {
      if (c === "\r" || c === "\n") close(i)
      i++
    } else {
      if (c === ":") afterColon = true
      else if (c !== " " && c !== "\t" && c !== "\r" && c !== "\n") {
        afterColon = false
        if (c === "{" || c === "[") nesting++
        else if (c === "}" || c === "]") {
          if (nesting === 0) return i
          nesting--
        }
      }
      i++
    }
  }
  if (opened !== -1) close(text.length)
  return text.length
}

function maskJson(text: string): { readonly text: string; readonly redactions: number } {
  let output = ""
  let cursor = 0
  let redactions = 0
  const mask = (from: number, to: number): void => {
    output += text.slice(cursor, from) + MARKER
    cursor = to
    redactions++
  }
  JSON_MAP.lastIndex = 0
  for (let map = JSON_MAP.exec(text); map !== null; map = JSON_MAP.exec(text)) {
    let backslashes = 0
    while (map[0][backslashes] === "\\") backslashes++
    JSON_MAP.lastIndex = maskJsonMap(text, map.index + map[0].length, depthOf(backslashes), mask)
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
