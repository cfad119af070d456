/**
 * Env entries read by their structure, after the credential rules (secret-rules.ts) have read what regexes can: an
 * entry whose `name` names a credential (DB_PASSWORD, API_TOKEN) has its sibling `value` masked, wherever the two
 * stand in the entry and whatever else stands between them. The rules read a name and its value a few lines apart;
 * here the whole entry is read:
 * - YAML (a pod's env, kubectl's output): a list item or a mapping, line by line, its keys at one indentation. The
 *   value may be a block scalar (`value: |` and the lines below), quoted over several lines or with `''` in it, any
 *   number of blank, comment or other keys' lines from its name, above or below it; a comment after the name is a
 *   comment, whatever it holds. The same when the lines are escaped in a JSON string (`\n`: a ConfigMap's data).
 * - JSON, YAML flow mappings and HCL blocks: an object from its `{` to its `}`, its keys in any order, after `:` or
 *   `=` (`{"name": "DB_PASSWORD", "type": "x", "value": "s"}`, `{name: DB_PASSWORD, value: one two}`,
 *   `env { value = "s"  name = "DB_PASSWORD" }`), its quotes escaped as deeply as ESCAPED_QUOTED reads them.
 * - Helm's `--set` and `--set-string`: `env[0].name=DB_PASSWORD,env[0].value=s` in one command.
 * A value is left when it holds no secret: empty, a placeholder (`null`), one marker already (`[secret:github-token]`,
 * a rule's more precise kind), or the path of the working directory under the name PWD.
 *
 * Linear: the YAML pass reads each line once, keeping a stack of the mappings the line is in; the object pass reads
 * windows around the credentials' names once each, a quoted value to its closing quote, where its next search starts;
 * a Helm argument is read once. Most text names no credential in a `name` key, and the passes do not run; the YAML
 * pass runs only where such a key starts a line, and the object pass reads around each one, not the whole text.
 */

import { NAME_WORDS, SENSITIVE_NAME } from "./secret-rules.ts"

const MARKER = "[secret:credential]"

/** A span of the text to mask: `[start, end)`. */
type Edit = readonly [start: number, end: number]

/** One of the words every credential's name holds: tested before the full pattern. */
const NAME_WORD = new RegExp(NAME_WORDS, "i")

let credentialName: RegExp | undefined

/** The names tested last, and whether each is a credential's: a text repeats the few it holds. */
const tested = new Map<string, boolean>()

/** An env var's name that is a credential's, whole: `DB_PASSWORD`, `api-token`, `PWD`; not `PASSWORD_FILE`. */
const isCredentialName = (name: string): boolean => {
  if (name.length === 0 || name.length > 100 || !NAME_WORD.test(name)) return false
  let credential = tested.get(name)
  if (credential === undefined) {
    credential = (credentialName ??= new RegExp(String.raw`^[\w.-]*(?:${SENSITIVE_NAME})$`, "i")).test(name)
    if (tested.size >= 256) tested.clear()
    tested.set(name, credential)
  }
  return credential
}

/** Values that name a type or an empty state (NOT_A_PLACEHOLDER in secret-rules.ts), and YAML's `~`. */
const PLACEHOLDER = /^(?:true|false|null|nil|none|undefined|string|number|boolean|str|int|bool|~)$/i

/** A value another pass or rule masked already, or a private block's marker. */
const ONE_MARKER = /^\[(?:secret:[\w-]+|private)\]$/

/** Whether the value of an entry named `name` (a credential's) holds a secret. */
const holdsSecret = (name: string, value: string): boolean =>
  value.trim() !== "" && !PLACEHOLDER.test(value) && !ONE_MARKER.test(value)
  && !(value.startsWith("/") && name.toLowerCase() === "pwd")

const pushEdit = (text: string, name: string, start: number, end: number, edits: Array<Edit>): void => {
  if (end > start && holdsSecret(name, text.slice(start, end))) edits.push([start, end])
}

/**
 * The text with each span replaced by the marker (a span overlapping one before it left out), and `positions` (in
 * order, none inside a span) where they now are.
 */
const applyEdits = (
  text: string,
  edits: ReadonlyArray<Edit>,
  positions: ReadonlyArray<number>
): { readonly text: string; readonly redactions: number; readonly positions: Array<number> } => {
  const sorted = [...edits].sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const moved: Array<number> = []
  let output = ""
  let cursor = 0
  let shift = 0
  let next = 0
  let redactions = 0
  for (const [start, end] of sorted) {
    if (start < cursor) continue
    for (; next < positions.length && positions[next]! < end; next++) {
      moved.push(Math.min(positions[next]!, start) + shift)
    }
    output += text.slice(cursor, start) + MARKER
    shift += MARKER.length - (end - start)
    cursor = end
    redactions++
  }
  for (; next < positions.length; next++) moved.push(positions[next]! + shift)
  return { text: output + text.slice(cursor), redactions, positions: moved }
}

const isBlank = (character: string | undefined): boolean => character === " " || character === "\t"

/** A space or a tab, by its code. */
const isBlankCode = (code: number): boolean => code === 32 || code === 9

/** Moves past a run of backslashes. */
const skipBackslashes = (text: string, at: number, end = text.length): number => {
  let i = at
  while (i < end && text[i] === "\\") i++
  return i
}

/**
 * Where a quoted value whose content starts at `from` closes (the index where the closing quote's escape starts), or,
 * as `~stop`, where it stops unclosed: at `end`, or at a line break when `oneLine`. `"` is escaped as the opening
 * one was, by `escape` backslashes: a run before a quote of blocks of escape + 1 backslashes (the value's own
 * escapes, escaped again) and then `escape` closes the value when the blocks are even in number (ESCAPED_QUOTED's
 * reading; `escape` 0 is plain JSON). `'` is closed by a quote that is not doubled (YAML's `''`).
 */
const closingQuote = (
  text: string,
  from: number,
  end: number,
  quote: string,
  escape: number,
  oneLine: boolean
): number => {
  for (let i = from; i < end; i++) {
    const character = text[i]
    if (oneLine && (character === "\n" || character === "\r")) return ~i
    if (character !== quote) continue
    if (quote === "'") {
      if (text[i + 1] === "'") i++
      else return i
      continue
    }
    let run = 0
    while (i - run > from && text[i - run - 1] === "\\") run++
    if (run >= escape && (run - escape) % (escape + 1) === 0 && ((run - escape) / (escape + 1)) % 2 === 0) {
      return i - escape
    }
  }
  return ~end
}

// ---------------------------------------------------------------------------------------------------------------
// Which texts: a `name` key naming a credential.

/**
 * `name:`, `"name": "`, `\"Name\":\"`, `name = "`, Helm's `.name=`, and the name after it: past quotes and escapes, up
 * to what no env var's name holds (one character more than isCredentialName takes).
 */
const NAME_KEY = /name[\\"']{0,32}[ \t]*[:=][ \t]*[\\"']{0,32}([^\s"'\\,;{}[\]#]{1,101})/gi

/** Where a `name` key names a credential (NAME_KEY's index), in order. */
const credentialNameKeys = (text: string): Array<number> => {
  const found: Array<number> = []
  NAME_KEY.lastIndex = 0
  for (let key = NAME_KEY.exec(text); key !== null; key = NAME_KEY.exec(text)) {
    if (isCredentialName(key[1]!)) found.push(key.index)
    // The name read may hold another key (`name:name: x`): the next search starts after this key's word.
    NAME_KEY.lastIndex = key.index + 4
  }
  return found
}

// ---------------------------------------------------------------------------------------------------------------
// YAML, line by line.

/** A line: `[start, end)`, its line break left out. */
type Line = readonly [start: number, end: number]

/** The text's lines, a `\r` before a line break left out. */
function* textLines(text: string): Generator<Line> {
  let start = 0
  for (;;) {
    const next = text.indexOf("\n", start)
    const end = next === -1 ? text.length : next
    yield [start, end > start && text[end - 1] === "\r" ? end - 1 : end]
    if (next === -1) return
    start = next + 1
  }
}

/**
 * The lines of `[from, to)` whose line breaks are escaped (`\n`, `\r\n`, as deeply as a run of backslashes escapes
 * them: YAML in a JSON string). A quote no backslash escapes ends a line too, and is left out: it opens or closes the
 * JSON string the lines are in, and what follows it is no part of them.
 */
function* escapedLines(text: string, from: number, to: number): Generator<Line> {
  let start = from
  let i = from
  while (i < to) {
    const character = text[i]
    if (character === "\\") {
      const run = skipBackslashes(text, i, to)
      let next = -1
      if (text[run] === "n") next = run + 1
      else if (text[run] === "r") {
        const newline = skipBackslashes(text, run + 1, to)
        next = newline > run + 1 && text[newline] === "n" ? newline + 1 : run + 1
      }
      if (next === -1) i = text[run] === "\"" ? run + 1 : run
      else {
        yield [start, i]
        start = i = next
      }
    } else if (character === "\"") {
      yield [start, i]
      start = i = i + 1
    } else i++
  }
  yield [start, to]
}

/** A block scalar's header (`|`, `>-`, `|2+`), a comment after it or not. */
const BLOCK_HEADER = /^[|>][-+1-9]{0,2}(?:[ \t]+#.*)?$/

/** A `value` key's value: from `start` to `rest` on the key's line, and the lines below it from `below` to `end`. */
interface YamlValue {
  readonly start: number
  readonly rest: number
  below: number
  end: number
}

/** A mapping the current line may be in: a list item's (`- name: x`) or not. */
interface Mapping {
  /** The column of its list item's dash, or -1. */
  readonly dash: number
  /** The column of its first key. */
  readonly keys: number
  /** The column of the key read last, and whether that key is `value` (the lines deeper than it are its value). */
  keyColumn: number
  inValue: boolean
  /** Its name, if a credential's. */
  name: string | undefined
  readonly values: Array<YamlValue>
}

/**
 * Where a line's key ends: its first `:` followed by a blank, an escape (escaped lines) or the line's end, before any
 * comment (` #`); or -1.
 */
const keyColon = (text: string, from: number, end: number, escaped: boolean): number => {
  for (let i = from; i < end; i++) {
    const code = text.charCodeAt(i)
    if (code === 58) {
      const after = text.charCodeAt(i + 1)
      if (i + 1 === end || isBlankCode(after) || (escaped && after === 92)) return i
    } else if (code === 35 && i > from && isBlankCode(text.charCodeAt(i - 1))) return -1
  }
  return -1
}

/** A name's value on its line from `at`: quoted, or up to a comment; "" when it cannot be an env var's name. */
const yamlName = (text: string, at: number, end: number): string => {
  const quote = skipBackslashes(text, at, end)
  if (text[quote] === "\"" || text[quote] === "'") {
    const close = closingQuote(text, quote + 1, Math.min(end, quote + 102), text[quote]!, quote - at, true)
    return close < 0 ? "" : text.slice(quote + 1, close)
  }
  let i = at
  while (i < end && i < at + 101 && !(text[i] === "#" && isBlank(text[i - 1]))) i++
  return text.slice(at, i).trim()
}

/** Masks a YAML value (YamlValue) of an entry named `name`. */
const yamlValueEdit = (text: string, name: string, value: YamlValue, edits: Array<Edit>): void => {
  const quote = skipBackslashes(text, value.start, value.rest)
  if (value.start < value.rest && (text[quote] === "\"" || text[quote] === "'")) {
    const close = closingQuote(text, quote + 1, value.end, text[quote]!, quote - value.start, false)
    pushEdit(text, name, quote + 1, close < 0 ? value.end : close, edits)
    return
  }
  const head = text.slice(value.start, value.rest)
  if (head === "" || head.startsWith("#") || BLOCK_HEADER.test(head)) {
    if (value.below !== -1) pushEdit(text, name, value.below, value.end, edits)
    return
  }
  pushEdit(text, name, value.start, value.end, edits)
}

/**
 * The YAML pass over `lines` (of the text, or escaped: escapedLines). A mapping holds the lines after its first key
 * that are indented deeper than its list item's dash (or, without one, as deep as its keys at least); a key at the
 * indentation of its keys, or between them and the dash, is its own, a deeper one starts a mapping inside it, and a
 * dash at or past the last key's column starts a list inside it (`env:` then `- name:` below it). The lines deeper
 * than a `value` key are its value (a block scalar's, a quoted or plain one's continued), never keys. A comment line
 * or a blank one is skipped; any other line that is no key ends the mapping. When a mapping ends, its values are
 * masked if one of its keys named a credential.
 */
const yamlEdits = (text: string, lines: Iterable<Line>, escaped: boolean, edits: Array<Edit>): void => {
  const stack: Array<Mapping> = []
  const close = (mapping: Mapping): void => {
    if (mapping.name === undefined) return
    for (const value of mapping.values) yamlValueEdit(text, mapping.name, value, edits)
  }
  const read = (mapping: Mapping, column: number, key: number, colon: number, end: number): void => {
    mapping.keyColumn = column
    const word = colon - key === 4 || colon - key === 5 ? text.slice(key, colon).toLowerCase() : ""
    mapping.inValue = word === "value"
    let start = colon + 1
    while (start < end && (isBlank(text[start]) || (escaped && text[start] === "\\"))) {
      if (text[start] === "\\") {
        const run = skipBackslashes(text, start, end)
        if (text[run] !== "t") break
        start = run + 1
      } else start++
    }
    if (word === "name" && mapping.name === undefined) {
      const name = yamlName(text, start, end)
      if (isCredentialName(name)) mapping.name = name
    } else if (word === "value") mapping.values.push({ start, rest: end, below: -1, end })
  }
  for (const [start, lineEnd] of lines) {
    // The indentation: blanks, and tabs escaped as deeply as the line breaks (`\t`).
    let body = start
    let column = 0
    for (;;) {
      if (body < lineEnd && isBlankCode(text.charCodeAt(body))) body++
      else if (escaped && text[body] === "\\") {
        const run = skipBackslashes(text, body, lineEnd)
        if (text[run] !== "t" || run >= lineEnd) break
        body = run + 1
      } else break
      column++
    }
    let end = lineEnd
    while (end > body && isBlankCode(text.charCodeAt(end - 1))) end--
    if (end === body) continue
    let top = stack.at(-1)
    if (top?.inValue === true && column > top.keyColumn) {
      const value = top.values.at(-1)!
      value.end = end
      if (value.below === -1) value.below = body
      continue
    }
    if (text[body] === "#") continue
    // A list item's dashes, then a key.
    let key = body
    let dash = -1
    while (text[key] === "-" && (key + 1 === end || isBlank(text[key + 1]))) {
      dash = column + key - body
      key++
      while (key < end && isBlank(text[key])) key++
    }
    const keyColumn = column + key - body
    const colon = key < end ? keyColon(text, key, end, escaped) : -1
    while (top !== undefined) {
      const inside = dash !== -1
        ? column >= top.keyColumn
        : top.dash !== -1
        ? column > top.dash
        : column >= top.keys
      if (inside) break
      close(stack.pop()!)
      top = stack.at(-1)
    }
    if (top !== undefined && dash === -1 && column <= top.keyColumn) {
      if (colon === -1 || colon === key) close(stack.pop()!)
      else read(top, column, key, colon, end)
      continue
    }
    if (colon === -1 || colon === key) continue
    const mapping: Mapping = { dash, keys: keyColumn, keyColumn, inValue: false, name: undefined, values: [] }
    stack.push(mapping)
    read(mapping, keyColumn, key, colon, end)
  }
  while (stack.length > 0) close(stack.pop()!)
}

// ---------------------------------------------------------------------------------------------------------------
// JSON, flow mappings, HCL: objects.

/** A brace, a double quote, or a `name` or `value` key's word. */
const OBJECT_TOKEN = /[{}"]|(?<![\w.$-])(?:name|value)(?![\w.-])/gi

/** `name` or `value`, as a quoted key holds it. */
const ENTRY_KEY = /^(?:name|value)$/i

/** Where a key's value starts, after its quote and escapes, blanks, and `:` or `=` (not `==`, `=>`, `::`); or -1. */
const keyValueStart = (text: string, at: number): number => {
  let i = at
  while (i < at + 32 && (text[i] === "\\" || text[i] === "\"" || text[i] === "'")) i++
  while (isBlank(text[i])) i++
  const separator = text[i]
  const after = text[i + 1]
  if (separator === ":" ? after === ":" : separator !== "=" || after === "=" || after === ">" || after === "~") {
    return -1
  }
  i++
  while (isBlank(text[i])) i++
  return i
}

/** A scalar value in an object: its content `[start, end)`, and where reading goes on. */
interface Scalar {
  readonly start: number
  readonly end: number
  readonly next: number
}

/**
 * The scalar at `at`: quoted (escaped as deeply as its opening quote) up to its closing quote, or unclosed to its
 * line's end; or bare, up to a `,`, a `}` or a line break (escaped or not), as a flow mapping's plain value of several
 * words. None for an object or a list (`[`, but for a marker).
 */
const objectScalar = (text: string, at: number): Scalar | undefined => {
  const quote = skipBackslashes(text, at)
  const character = text[quote]
  if (character === "\"" || character === "'") {
    const close = closingQuote(text, quote + 1, text.length, character, quote - at, true)
    return close < 0
      ? { start: quote + 1, end: ~close, next: ~close }
      : { start: quote + 1, end: close, next: close + quote - at + 1 }
  }
  if (character === "{" || (character === "[" && !text.startsWith("[secret:", quote))) return undefined
  let end = at
  while (end < text.length) {
    const next = text[end]
    if (next === "," || next === "}" || next === "\n" || next === "\r") break
    if (next === "\\") {
      const run = skipBackslashes(text, end)
      if (text[run] === "n" || text[run] === "r") break
      end = run
    } else end++
  }
  let last = end
  while (last > at && isBlank(text[last - 1])) last--
  return last === at ? undefined : { start: at, end: last, next: end }
}

/** An object whose keys were read: its depth of braces, its name if a credential's (and where), its values. */
interface ObjectEntry {
  readonly depth: number
  name: string | undefined
  nameAt: number
  readonly values: Array<Edit>
}

/**
 * How far from its name an object's value may be, in solid characters (solidCounts): an env entry is small, even
 * escaped five times or holding a certificate, while braces in code's strings (`"{"`) or a truncated text may leave an
 * object open long after its last key, and keys far below are no part of it.
 */
const ENTRY_REACH = 4096

/**
 * How many solid characters (neither blanks nor line breaks) stand before each position of the text: distances that
 * indentation or padding does not stretch (`{name: pw,` then a page of blanks, then `value: x}` is one entry).
 */
const solidCounts = (text: string): Int32Array => {
  const counts = new Int32Array(text.length + 1)
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) count++
    counts[i + 1] = count
  }
  return counts
}

/** The first position with `count` solid characters before it (solidCounts), or the text's end. */
const positionOf = (counts: Int32Array, count: number): number => {
  let low = 0
  let high = counts.length - 1
  while (low < high) {
    const middle = (low + high) >>> 1
    if (counts[middle]! < count) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * The object pass: the text's braces kept as a depth, and for the objects that hold a `name` or `value` key, each one
 * from its `{` to the `}` that closes it; a `{` never closed is ended by the text's end (a truncated output). A brace
 * inside a quoted `name` or `value` is read as part of it, and so is one in a string that holds no backslash
 * (`"note": "}"`, code's `"{"`): such a string is read whole, once, up to its closing quote on its line. A string
 * that holds one may hold JSON escaped in it (`"{\"name\": ...}"`), and is read inside, as text of its own: its keys
 * count only in an object opened in it, and an object opened in it ends with it. So keys in code's strings
 * (`"name: pwd\n"`) are not read as a function body's (`() => {`).
 * It reads `[from, to)` of the text (objectWindows), and returns how far it read: a value may run past `to`.
 */
const objectEdits = (text: string, counts: Int32Array, from: number, to: number, edits: Array<Edit>): number => {
  const open: Array<ObjectEntry> = []
  // How far a scalar was read: past `to`, what it read is no part of the next window.
  let reached = from
  let depth = 0
  // The string being read inside, if any: where it ends, and the depth of braces where it started.
  let stringEnd = -1
  let stringDepth = 0
  const close = (entry: ObjectEntry): void => {
    if (entry.name === undefined) return
    for (const [start, end] of entry.values) {
      const solid = end <= entry.nameAt ? counts[entry.nameAt]! - counts[end]! : counts[start]! - counts[entry.nameAt]!
      if (solid <= ENTRY_REACH) {
        pushEdit(text, entry.name, start, end, edits)
      }
    }
  }
  OBJECT_TOKEN.lastIndex = from
  for (let token = OBJECT_TOKEN.exec(text); token !== null && token.index < to; token = OBJECT_TOKEN.exec(text)) {
    if (stringEnd !== -1 && token.index >= stringEnd) {
      while ((open.at(-1)?.depth ?? 0) > stringDepth) close(open.pop()!)
      depth = stringDepth
      const closing = token.index === stringEnd
      stringEnd = -1
      if (closing) continue
    }
    let word = token[0]
    let wordEnd = token.index + word.length
    if (word === "\"") {
      if (text[token.index - 1] === "\\") continue
      let end = wordEnd
      while (end < text.length && text[end] !== "\"" && text[end] !== "\\" && text[end] !== "\n") end++
      if (text[end] === "\\") {
        const quoteEnd = closingQuote(text, wordEnd, text.length, "\"", 0, true)
        stringEnd = quoteEnd < 0 ? ~quoteEnd : quoteEnd
        stringDepth = depth
        continue
      }
      if (text[end] !== "\"") continue
      word = end - wordEnd === 4 || end - wordEnd === 5 ? text.slice(wordEnd, end) : ""
      if (!ENTRY_KEY.test(word)) {
        OBJECT_TOKEN.lastIndex = end + 1
        continue
      }
      wordEnd = end
    }
    const floor = stringEnd === -1 ? 0 : stringDepth
    if (word === "{") depth++
    else if (word === "}") {
      if (depth === floor) continue
      if (open.at(-1)?.depth === depth) close(open.pop()!)
      depth--
    } else if (depth > floor) {
      const start = keyValueStart(text, wordEnd)
      const scalar = start === -1 ? undefined : objectScalar(text, start)
      if (scalar === undefined) continue
      OBJECT_TOKEN.lastIndex = scalar.next
      reached = Math.max(reached, scalar.next)
      let entry = open.at(-1)
      if (entry?.depth !== depth) open.push(entry = { depth, name: undefined, nameAt: -1, values: [] })
      if (word.length === 5) entry.values.push([scalar.start, scalar.end])
      else if (entry.name === undefined && scalar.end - scalar.start <= 100) {
        const name = text.slice(scalar.start, scalar.end)
        if (isCredentialName(name)) {
          entry.name = name
          entry.nameAt = scalar.start
        }
      }
    }
  }
  while (open.length > 0) close(open.pop()!)
  return reached
}

/**
 * Where the object pass reads: around each credential's `name` key, as far as an object's value may be from its name
 * (ENTRY_REACH solid characters), and twice that before it for the object's `{`; overlapping windows merged. A big
 * JSON output with one such entry is read around it, not whole.
 */
const objectWindows = (counts: Int32Array, names: ReadonlyArray<number>): Array<Line> => {
  const windows: Array<[number, number]> = []
  for (const at of names) {
    const start = positionOf(counts, counts[at]! - 2 * ENTRY_REACH)
    const end = positionOf(counts, counts[at]! + ENTRY_REACH + 1)
    const last = windows.at(-1)
    if (last !== undefined && start <= last[1]) last[1] = end
    else windows.push([start, end])
  }
  return windows
}

// ---------------------------------------------------------------------------------------------------------------
// Helm: --set env[0].name=DB_PASSWORD,env[0].value=x

const HELM_SET = /--set(?:-string)?(?:=|[ \t]+)/g

/**
 * Where an argument not quoted ends: at a blank or a line break, but for those a quote inside it holds, as a shell
 * reads `env[0].value="a b"` (a quote not closed on its line runs to the line's end). Read by hand: a regex's loop of
 * alternatives costs V8's backtracking stack an entry a character, and a value of millions overflowed it (matches.ts).
 */
/** `\s` as a regex reads it, printable ASCII answered without one. */
const isSpace = (character: string): boolean => {
  const code = character.charCodeAt(0)
  return code > 32 && code < 127 ? false : /\s/.test(character)
}

const argumentEnd = (text: string, start: number): number => {
  let i = start
  while (i < text.length) {
    const character = text[i]!
    if (character === "\"" || character === "'") {
      let close = i + 1
      while (close < text.length && text[close] !== character && text[close] !== "\n" && text[close] !== "\r") close++
      i = text[close] === character ? close + 1 : close
    } else if (isSpace(character)) {
      return i
    } else {
      i++
    }
  }
  return i
}

/** `env[0].name`, `extraEnv[2].Value`: the entry's path, and which key. */
const HELM_KEY = /^(?<path>.{1,200})\.(?<key>name|value)$/i

/** Where the command holding `at` ends: the end of its line, after any lines continued with a backslash. */
const commandEnd = (text: string, at: number): number => {
  for (let i = at;;) {
    const next = text.indexOf("\n", i)
    if (next === -1) return text.length
    const before = text[next - 1] === "\r" ? next - 2 : next - 1
    if (text[before] !== "\\") return next
    i = next + 1
  }
}

/**
 * The Helm pass: each command's `--set` arguments (quoted or not), split at the commas no backslash escapes and no
 * quote holds into `path=value` pairs; a path's `.value` is masked when its `.name` in the same command is a
 * credential's.
 */
const helmEdits = (text: string, edits: Array<Edit>): void => {
  let end = -1
  let entries = new Map<string, { name: string | undefined; readonly values: Array<Edit> }>()
  const flush = (): void => {
    for (const entry of entries.values()) {
      if (entry.name !== undefined) {
        for (const [start, stop] of entry.values) pushEdit(text, entry.name, start, stop, edits)
      }
    }
    entries = new Map()
  }
  const pair = (start: number, stop: number): void => {
    let equals = start
    while (equals < stop && text[equals] !== "=") equals++
    const key = equals < stop ? HELM_KEY.exec(text.slice(start, equals)) : null
    if (key === null) return
    const path = key.groups!["path"]!
    const entry = entries.get(path) ?? { name: undefined, values: [] }
    entries.set(path, entry)
    if (key.groups!["key"]!.toLowerCase() === "value") entry.values.push([equals + 1, stop])
    else if (isCredentialName(text.slice(equals + 1, stop))) entry.name = text.slice(equals + 1, stop)
  }
  HELM_SET.lastIndex = 0
  for (let set = HELM_SET.exec(text); set !== null; set = HELM_SET.exec(text)) {
    if (set.index > end) {
      flush()
      end = commandEnd(text, set.index)
    }
    let start = set.index + set[0].length
    const quote = skipBackslashes(text, start)
    let stop: number
    if (text[quote] === "\"" || text[quote] === "'") {
      const close = closingQuote(text, quote + 1, text.length, text[quote]!, quote - start, true)
      start = quote + 1
      stop = close < 0 ? ~close : close
    } else {
      stop = argumentEnd(text, start)
    }
    // Split at the commas no backslash escapes and no quote holds (`env[0].value="a,b"`).
    let from = start
    let quoted = ""
    for (let i = start; i < stop; i++) {
      const character = text[i]
      if (quoted !== "") {
        if (character === quoted) quoted = ""
      } else if (character === "\"" || character === "'") quoted = character
      else if (character === "," && text[i - 1] !== "\\") {
        pair(from, i)
        from = i + 1
      }
    }
    pair(from, stop)
    HELM_SET.lastIndex = Math.max(HELM_SET.lastIndex, stop)
  }
  flush()
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Whether the `name` at `at` is a YAML key at the start of its line (`name:`, `  - name:`): the YAML pass reads the
 * text's lines only when one names a credential.
 */
const YAML_NAME_KEY = /name[ \t]*:/iy

const isYamlNameKey = (text: string, at: number): boolean => {
  let start = at
  while (start > 0 && (isBlank(text[start - 1]) || text[start - 1] === "-")) start--
  YAML_NAME_KEY.lastIndex = at
  return (start === 0 || text[start - 1] === "\n" || text[start - 1] === "\r") && YAML_NAME_KEY.test(text)
}

/** The real lines that hold an escaped line break (`\n`) and a credential's `name` key (at `names`). */
const escapedLinesWithNames = (text: string, names: ReadonlyArray<number>): Array<Line> => {
  const found: Array<Line> = []
  let after = -1
  for (const at of names) {
    if (at < after) continue
    const start = text.lastIndexOf("\n", at) + 1
    const next = text.indexOf("\n", at)
    after = next === -1 ? text.length : next
    if (/\\(?:n|r)/.test(text.slice(start, after))) found.push([start, after])
  }
  return found
}

/** Masks the value of every env entry named as a credential (see the file's comment). */
export function maskEnvEntries(text: string): { readonly text: string; readonly redactions: number } {
  const names = credentialNameKeys(text)
  if (names.length === 0) return { text, redactions: 0 }
  let current = text
  let credentials = names
  let redactions = 0
  // Each pass reads what the last one left, the names' keys where they now are.
  const pass = (find: (text: string, edits: Array<Edit>) => void): void => {
    const edits: Array<Edit> = []
    find(current, edits)
    if (edits.length === 0) return
    const masked = applyEdits(current, edits, credentials)
    current = masked.text
    redactions += masked.redactions
    credentials = masked.positions
  }
  pass((text, edits) => {
    for (const [start, end] of escapedLinesWithNames(text, credentials)) {
      yamlEdits(text, escapedLines(text, start, end), true, edits)
    }
  })
  if (credentials.some((at) => isYamlNameKey(current, at))) {
    pass((text, edits) => yamlEdits(text, textLines(text), false, edits))
  }
  if (current.includes("{")) {
    pass((text, edits) => {
      // A value read past its window's end (a bare one with no `,`, `}` or line break after it) took the text it read:
      // the next window starts after it, so that no text is read by every window before it.
      const counts = solidCounts(text)
      let reached = 0
      for (const [start, end] of objectWindows(counts, credentials)) {
        if (end > reached) reached = objectEdits(text, counts, Math.max(start, reached), end, edits)
      }
    })
  }
  if (current.includes("--set")) pass(helmEdits)
  return { text: current, redactions }
}
