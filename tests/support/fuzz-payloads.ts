/**
 * Seeded generators for tests/fuzz.test.ts: hostile hook payloads (as the bytes Claude Code would
 * pipe to stdin), CLI argument vectors, and the oracle that says what ralph-mem must do with each.
 *
 * The oracle follows the hook input contract (packages/hooks/src/payload.ts and /work/shared/claude-code.md),
 * not the implementation: stdin is UTF-8 (invalid bytes become U+FFFD), then JSON; a payload is valid when
 * it is an object whose `session_id` is a string of 1..256 characters, whose hook-specific required field
 * is present (`prompt`, `tool_name`), and whose known optional fields have their documented types.
 */
import { gzipSync } from "node:zlib"

export const HOOKS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "StopFailure",
  "PreCompact",
  "SessionEnd"
] as const
export type Hook = (typeof HOOKS)[number]
export const isHook = (name: string): name is Hook => (HOOKS as ReadonlyArray<string>).includes(name)

/** The hook entry refuses (and logs) stdin larger than this. */
export const MAX_STDIN_BYTES = 64 * 1024 * 1024
/** Nesting depth of the "deeply nested" payloads. */
export const DEEP = 10_000
export const TEN_MB = 10 * 1024 * 1024

// ---------------------------------------------------------------------------------------------
// A small seeded PRNG (mulberry32): the same seed gives the same inputs.

export class Rng {
  private state: number
  constructor(seed: number) {
    this.state = seed >>> 0
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  pick<T>(items: ReadonlyArray<T>): T {
    return items[this.int(items.length)]!
  }
  some<T>(items: ReadonlyArray<T>, min: number, max: number): Array<T> {
    return Array.from({ length: min + this.int(max - min + 1) }, () => this.pick(items))
  }
  bytes(n: number): Buffer {
    return Buffer.from(Array.from({ length: n }, () => this.int(256)))
  }
  weighted<T>(table: ReadonlyArray<readonly [T, number]>): T {
    const total = table.reduce((s, [, w]) => s + w, 0)
    let r = this.next() * total
    for (const [value, weight] of table) {
      r -= weight
      if (r < 0) return value
    }
    return table[table.length - 1]![0]
  }
}

// ---------------------------------------------------------------------------------------------
// JSON with splices: `Raw` puts exact bytes (1e400, invalid UTF-8, 10,000 levels of nesting) into
// an otherwise ordinary value; top-level payloads are entry lists, so keys may repeat or be __proto__.

export class Raw {
  readonly bytes: string | Buffer
  constructor(bytes: string | Buffer) {
    this.bytes = bytes
  }
}
export type J = null | boolean | number | string | Raw | ReadonlyArray<J> | { readonly [key: string]: J }
export type Entries = Array<[string, J]>

const encodeInto = (value: J, out: Array<string | Buffer>): void => {
  if (value instanceof Raw) out.push(value.bytes)
  else if (Array.isArray(value)) {
    out.push("[")
    value.forEach((item: J, i: number) => {
      if (i > 0) out.push(",")
      encodeInto(item, out)
    })
    out.push("]")
  } else if (value !== null && typeof value === "object") encodeEntries(Object.entries(value), out)
  else out.push(JSON.stringify(value))
}
const encodeEntries = (entries: ReadonlyArray<readonly [string, J]>, out: Array<string | Buffer>) => {
  out.push("{")
  entries.forEach(([key, item], i) => {
    if (i > 0) out.push(",")
    out.push(JSON.stringify(key), ":")
    encodeInto(item, out)
  })
  out.push("}")
}
const toBuffer = (parts: ReadonlyArray<string | Buffer>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p)))
export const encodePayload = (entries: Entries): Buffer => {
  const out: Array<string | Buffer> = []
  encodeEntries(entries, out)
  return toBuffer(out)
}

const set = (entries: Entries, key: string, value: J): void => {
  const at = entries.findIndex(([k]) => k === key)
  if (at >= 0) entries[at] = [key, value]
  else entries.push([key, value])
}
const remove = (entries: Entries, key: string): void => {
  const at = entries.findIndex(([k]) => k === key)
  if (at >= 0) entries.splice(at, 1)
}
const get = (entries: Entries, key: string): J | undefined => entries.find(([k]) => k === key)?.[1]

/** Deep nesting built as text, never as a recursive value. */
export const deepObject = (depth: number): Raw => new Raw(`${"{\"a\":".repeat(depth)}0${"}".repeat(depth)}`)
export const deepArray = (depth: number): Raw => new Raw(`${"[".repeat(depth)}${"]".repeat(depth)}`)
export const deepMixed = (depth: number): Raw => new Raw(`${"[{\"k\":".repeat(depth / 2)}null${"}]".repeat(depth / 2)}`)
/** A JSON string literal holding invalid UTF-8 bytes between two texts. */
const badString = (before: string, bad: Buffer, after: string): Raw =>
  new Raw(
    Buffer.concat([Buffer.from(JSON.stringify(before).slice(0, -1)), bad, Buffer.from(JSON.stringify(after).slice(1))])
  )

// ---------------------------------------------------------------------------------------------
// Value pools.

export const FTS_SYNTAX: ReadonlyArray<string> = [
  "\"",
  "\"\"",
  "\"unterminated phrase",
  "*",
  "foo*",
  "*foo",
  "NEAR(",
  "NEAR(a b, 3)",
  "NEAR/2",
  "-x",
  "-",
  "--",
  "col:",
  "title:x",
  "content:value",
  "{a b}: c",
  "^start",
  "a AND",
  "OR OR",
  "NOT",
  "AND NOT OR",
  "(((",
  ")",
  "()",
  "+",
  "'",
  "''",
  "\\",
  "%",
  "_",
  "; DROP TABLE events; --",
  "' OR 1=1 --",
  "MATCH",
  "rank",
  "bm25(observations_fts)",
  "x\"y",
  ":",
  "::",
  ".",
  "..",
  "*:*",
  "\"a\" NEAR \"b\"",
  "rowid:1",
  "a\u0000b",
  "\u0000",
  "observations_fts:*",
  "highlight(",
  "snippet(x,",
  "[",
  "]",
  "\"\"\"\"",
  "a:b:c"
]
export const TRAVERSAL: ReadonlyArray<string> = [
  "../../etc/passwd",
  "../../../../../../../../etc/shadow",
  "..\\..\\..\\windows\\system32\\config\\sam",
  "/etc/passwd",
  "/dev/zero",
  "/proc/self/mem",
  "~/.ssh/id_rsa",
  "file:///etc/passwd",
  "%2e%2e%2f%2e%2e%2fetc",
  "....//....//etc",
  ".ralph-mem/memory.db",
  "../.ralph-mem/memory.db",
  ".git/config",
  "./../../",
  "\\\\?\\C:\\",
  "C:\\..\\..",
  "a/\u0000/b",
  "CON",
  "NUL",
  "|cat /etc/hostname",
  "$(echo pwned)",
  "`echo pwned`",
  "${HOME}",
  "session:../../x",
  "/",
  ".",
  "..",
  "a/./b/../../.."
]
export const UNICODE: ReadonlyArray<string> = [
  "🦀🔥",
  "👨‍👩‍👧‍👦",
  "\u202eevil",
  "\u200bzero\u200bwidth",
  "e\u0301",
  "日本語のテキスト",
  "인증을 고쳐줘",
  "مرحبا",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud83dy",
  "\ufeffbom",
  "\r\n\t",
  "\u001b[31mred\u001b[0m",
  "\u2028\u2029",
  "\uffff",
  "\u{10ffff}",
  "𝕳𝖊𝖑𝖑𝖔"
]
const INVALID_UTF8: ReadonlyArray<Buffer> = [
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xa0, 0xa1],
  [0xe2, 0x28, 0xa1],
  [0xf0, 0x28, 0x8c, 0xbc],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc3]
].map((b) => Buffer.from(b))
const PROMPTS: ReadonlyArray<string> = [
  "The login test fails with TokenExpiredError; fix it",
  "why did refreshSession throw before?",
  "add a --dry-run flag to the deploy script",
  "run the tests",
  "hello",
  "",
  "Refactor src/auth.ts <private>my pin is 1234</private> please",
  "what did we decide about the cache?",
  "continue",
  "인증 모듈을 고쳐줘",
  "explain this error:\n  TypeError: x is undefined"
]
const REPLIES: ReadonlyArray<string | null> = [
  "Fixed: the token now lives an hour.",
  "Done.",
  "",
  "   ",
  null,
  "I ran the tests; 3 failed.",
  "All checks pass. DONE",
  "\n\n"
]
const TOOLS: ReadonlyArray<string> = [
  "Bash",
  "Edit",
  "Write",
  "Read",
  "Grep",
  "Glob",
  "WebFetch",
  "MultiEdit",
  "Task",
  "mcp__github__search",
  "NotebookEdit",
  "Skill"
]
/** Hostile values for fields of a JSON type other than the contract's. */
const WRONG: ReadonlyArray<J> = [42, -1, 0, true, false, null, [], ["x"], {}, { a: 1 }, new Raw("1e400"), 3.5]
const NUMBERS: ReadonlyArray<J> = [
  0,
  -1,
  1e308,
  -1e308,
  5e-324,
  0.1,
  new Raw("-0"),
  new Raw("9007199254740993"),
  new Raw("123456789012345678901234567890"),
  2147483648
]
/** JSON numbers that are not finite doubles: a hook may store or refuse them, but never store them broken. */
const NON_FINITE: ReadonlyArray<Raw> = [new Raw("1e400"), new Raw("-1e400"), new Raw(`1${"0".repeat(400)}`)]

const uuid = (rng: Rng) => {
  const hex = () => rng.int(16).toString(16)
  const part = (n: number) => Array.from({ length: n }, hex).join("")
  return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`
}

// ---------------------------------------------------------------------------------------------
// Hook cases.

export interface HookCase {
  readonly id: number
  /** Index of the project it runs in. */
  readonly project: number
  readonly hook: string
  readonly category: string
  /** Short and printable: never the payload itself. */
  readonly description: string
  readonly stdin: Buffer
  /** Some inputs may be either recorded or refused with a logged reason (1e400, a BOM). */
  readonly either?: true
}

type Category =
  | "realistic"
  | "fts"
  | "traversal"
  | "unicode"
  | "numbers"
  | "nulls-arrays"
  | "deep"
  | "invalid-utf8"
  | "extra-fields"
  | "boundary"
  | "retry"
  | "truncated"
  | "wrong-types"
  | "missing-fields"
  | "top-level"
  | "binary"
  | "malformed-json"

const CATEGORIES: ReadonlyArray<readonly [Category, number]> = [
  ["realistic", 12],
  ["fts", 10],
  ["traversal", 9],
  ["unicode", 8],
  ["numbers", 6],
  ["nulls-arrays", 6],
  ["deep", 5],
  ["invalid-utf8", 7],
  ["extra-fields", 4],
  ["boundary", 4],
  ["retry", 3],
  ["truncated", 6],
  ["wrong-types", 8],
  ["missing-fields", 5],
  ["top-level", 4],
  ["binary", 4],
  ["malformed-json", 6]
]

/** The text-bearing slots of each hook, where hostile strings go. */
const TEXT_SLOTS: Record<Hook, ReadonlyArray<string>> = {
  SessionStart: ["source", "model", "transcript_path", "prompt_id"],
  UserPromptSubmit: ["prompt", "prompt", "prompt", "prompt_id", "transcript_path"],
  PreToolUse: ["tool_name", "tool_input.command", "tool_input.command", "tool_input.file_path", "tool_use_id"],
  PostToolUse: [
    "tool_name",
    "tool_input.command",
    "tool_input.file_path",
    "tool_input.pattern",
    "tool_response.stdout",
    "tool_response.stderr",
    "tool_response.filePath",
    "tool_use_id"
  ],
  PostToolUseFailure: ["tool_name", "tool_input.command", "tool_input.file_path", "error", "error", "tool_use_id"],
  Stop: ["last_assistant_message", "last_assistant_message", "transcript_path"],
  StopFailure: ["error", "last_assistant_message", "transcript_path"],
  PreCompact: ["custom_instructions", "trigger", "transcript_path"],
  SessionEnd: ["reason", "transcript_path"]
}

/** Where deep nesting goes: mostly where a hook accepts any JSON, sometimes where it must refuse it. */
const DEEP_FIELDS: Record<Hook, ReadonlyArray<string>> = {
  SessionStart: ["model", "model", "future_field", "session_id", "source"],
  UserPromptSubmit: ["prompt", "future_field", "future_field", "session_id", "prompt_id"],
  PreToolUse: ["tool_input", "tool_input", "future_field", "session_id", "tool_name"],
  PostToolUse: ["tool_input", "tool_response", "tool_response", "future_field", "session_id", "tool_name"],
  PostToolUseFailure: ["tool_input", "tool_input", "error", "future_field", "session_id", "tool_name"],
  Stop: ["future_field", "future_field", "last_assistant_message", "session_id"],
  StopFailure: ["future_field", "error", "last_assistant_message", "session_id"],
  PreCompact: ["future_field", "future_field", "custom_instructions", "session_id"],
  SessionEnd: ["future_field", "future_field", "reason", "session_id"]
}

/** The field each hook requires besides session_id, and its optional fields that carry a declared type. */
const REQUIRED: Partial<Record<Hook, string>> = {
  UserPromptSubmit: "prompt",
  PreToolUse: "tool_name",
  PostToolUse: "tool_name",
  PostToolUseFailure: "tool_name"
}
const TYPED_OPTIONAL: Record<Hook, ReadonlyArray<string>> = {
  SessionStart: ["cwd", "transcript_path", "prompt_id", "source"],
  UserPromptSubmit: ["cwd", "transcript_path", "prompt_id"],
  PreToolUse: ["cwd", "tool_use_id"],
  PostToolUse: ["cwd", "tool_use_id", "duration_ms"],
  PostToolUseFailure: ["cwd", "tool_use_id", "duration_ms", "is_interrupt", "error"],
  Stop: ["cwd", "stop_hook_active", "last_assistant_message"],
  StopFailure: ["cwd", "error", "last_assistant_message"],
  PreCompact: ["cwd", "trigger", "custom_instructions"],
  SessionEnd: ["cwd", "reason", "transcript_path"]
}

export interface GenerateOptions {
  readonly seed: number
  /** Absolute project roots (each holds a `.git` folder). */
  readonly projects: ReadonlyArray<string>
  readonly perProject: number
}

export const generateHookCases = ({ seed, projects, perProject }: GenerateOptions): Array<HookCase> => {
  const rng = new Rng(seed)
  const cases: Array<HookCase> = []
  let toolCounter = 0
  const toolUseId = (base = "toolu_") => `${base}-${++toolCounter}`

  projects.forEach((root, project) => {
    const sessions = [
      uuid(rng),
      uuid(rng),
      uuid(rng),
      uuid(rng),
      "../../etc/passwd",
      "..\\..\\x",
      "session:../../y",
      "/",
      ".",
      "🦀 crab session",
      "a\u0000b",
      "\ud800",
      "x".repeat(256),
      " ",
      "'; DROP TABLE events; --",
      "\"",
      "*",
      "NEAR(",
      "%2e%2e%2f"
    ]
    const session = () => (rng.chance(0.5) ? sessions[rng.int(4)]! : rng.pick(sessions))
    const cwd = (): J | undefined =>
      rng.weighted<J | undefined>([[root, 8], [undefined, 1], [`${root}/does/not/exist`, 1], [
        `${root}/src/../../${root.split("/").at(-1)}/deep/er`,
        1
      ], ["", 0.5]])

    const base = (hook: Hook): Entries => {
      const entries: Entries = [["session_id", session()], ["transcript_path", `${root}/.claude/projects/t.jsonl`]]
      const where = cwd()
      if (where !== undefined) entries.push(["cwd", where])
      entries.push(["hook_event_name", hook])
      if (rng.chance(0.3)) entries.push(["permission_mode", rng.pick(["default", "plan", "bypassPermissions"])])
      if (rng.chance(0.2)) entries.push(["prompt_id", uuid(rng)])
      return entries
    }

    const realistic = (hook: Hook): Entries => {
      const e = base(hook)
      switch (hook) {
        case "SessionStart":
          e.push(["source", rng.pick(["startup", "resume", "clear", "compact", "weird"])])
          if (rng.chance(0.5)) e.push(["model", rng.pick(["claude-opus-4", "claude-sonnet-4"])])
          break
        case "UserPromptSubmit":
          e.push(["prompt", rng.pick(PROMPTS)])
          break
        case "PreToolUse": {
          const tool = rng.pick(TOOLS)
          e.push(["tool_name", tool])
          e.push([
            "tool_input",
            tool === "Bash"
              ? { command: rng.pick(["npm test", "rm -rf build", "git status > out.txt", "cat $(ls)"]) }
              : { file_path: `${root}/src/auth.ts`, content: "x" }
          ])
          e.push(["tool_use_id", toolUseId()])
          break
        }
        case "PostToolUse": {
          const tool = rng.pick(TOOLS)
          e.push(["tool_name", tool])
          e.push([
            "tool_input",
            tool === "Bash"
              ? { command: rng.pick(["npm test", "ls -la", "git status", "tsc --noEmit"]) }
              : { file_path: `${root}/src/auth.ts`, content: "x" }
          ])
          e.push([
            "tool_response",
            tool === "Bash"
              ? { stdout: "PASS src/auth.test.ts", stderr: "", interrupted: false }
              : { type: "create", filePath: `${root}/src/auth.ts` }
          ])
          e.push(["tool_use_id", toolUseId()])
          if (rng.chance(0.5)) e.push(["duration_ms", rng.int(5000)])
          break
        }
        case "PostToolUseFailure":
          e.push(["tool_name", rng.pick(TOOLS)])
          e.push(["tool_input", { command: "npm test -- auth" }])
          e.push(["tool_use_id", toolUseId()])
          e.push(["error", rng.pick<J>(["Exit code 1\nFAIL src/auth.test.ts", "interrupted", null, ""])])
          e.push(["is_interrupt", rng.chance(0.2)])
          break
        case "Stop":
          e.push(["stop_hook_active", rng.chance(0.3)])
          e.push(["last_assistant_message", rng.pick(REPLIES)])
          break
        case "StopFailure":
          e.push(["error", rng.pick<J>(["rate_limit", "overloaded", "authentication_failed", null])])
          e.push([
            "last_assistant_message",
            rng.pick<J>(["API Error: Request rejected (429) · rate limited", "", null])
          ])
          break
        case "PreCompact":
          e.push(["trigger", rng.pick(["manual", "auto"])])
          e.push(["custom_instructions", rng.pick<J>([null, "keep the auth notes", ""])])
          break
        case "SessionEnd":
          e.push(["reason", rng.pick(["prompt_input_exit", "clear", "logout", "other"])])
          break
      }
      return e
    }

    /** Puts `value` into one text slot of the hook (a dotted slot goes into a nested object). */
    const putSlot = (hook: Hook, e: Entries, value: J) => {
      const slot = rng.pick(TEXT_SLOTS[hook])
      const [outer, inner] = slot.split(".") as [string, string | undefined]
      if (inner === undefined) set(e, outer, value)
      else {
        const current = get(e, outer)
        const object =
          current !== null && typeof current === "object" && !Array.isArray(current) && !(current instanceof Raw)
            ? current
            : {}
        set(e, outer, Object.fromEntries([...Object.entries(object), [inner, value]]))
      }
      return slot
    }
    /** tool_use_id values must stay unique, or an idempotent retry would change the accounting. */
    const uniqueToolId = (value: string) => `${value}-${++toolCounter}`
    const hostileText = (
      hook: Hook,
      e: Entries,
      pool: ReadonlyArray<string>,
      joiner: (parts: Array<string>) => string
    ) => {
      const slots: Array<string> = []
      for (let n = 1 + rng.int(3); n > 0; n--) {
        const text = joiner(rng.some(pool, 1, 5))
        const slot = putSlot(hook, e, text)
        if (slot === "tool_use_id") set(e, "tool_use_id", uniqueToolId(text))
        slots.push(slot)
      }
      return slots
    }

    const make = (hook: string, category: string, description: string, stdin: Buffer, either = false): HookCase => {
      const c = {
        id: cases.length,
        project,
        hook,
        category,
        description: `${description} (${stdin.length} bytes)`,
        stdin
      }
      return either ? { ...c, either: true } : c
    }

    const build = (hook: Hook, category: Category): Array<HookCase> => {
      const e = realistic(hook)
      switch (category) {
        case "realistic":
          return [make(hook, category, "a realistic payload", encodePayload(e))]
        case "fts": {
          let slots = ["prompt"]
          if (hook === "UserPromptSubmit") {
            set(e, "prompt", rng.some(FTS_SYNTAX, 1, 8).join(rng.pick([" ", "", " AND "])))
          } else slots = hostileText(hook, e, FTS_SYNTAX, (p) => p.join(" "))
          return [make(hook, category, `FTS syntax in ${slots.join(", ")}`, encodePayload(e))]
        }
        case "traversal": {
          const slots = hostileText(hook, e, TRAVERSAL, (p) => p.join(rng.pick(["/", "", " "])))
          if (rng.chance(0.5)) {
            set(e, "tool_input", {
              file_path: rng.pick(TRAVERSAL),
              notebook_path: rng.pick(TRAVERSAL),
              path: rng.pick(TRAVERSAL)
            })
            slots.push("tool_input paths")
          }
          if (hook === "PostToolUse" || hook === "PostToolUseFailure") {
            set(e, "tool_use_id", uniqueToolId(rng.pick(TRAVERSAL)))
          }
          return [make(hook, category, `path traversal in ${slots.join(", ")}, tool_use_id`, encodePayload(e))]
        }
        case "unicode": {
          const slots = hostileText(hook, e, UNICODE, (p) => p.join(""))
          return [make(hook, category, `emoji/NUL/lone surrogates in ${slots.join(", ")}`, encodePayload(e))]
        }
        case "numbers": {
          const nonFinite = (hook === "PostToolUse" || hook === "PostToolUseFailure") && rng.chance(0.3)
          const value = nonFinite ? rng.pick(NON_FINITE) : rng.pick(NUMBERS)
          const text = value instanceof Raw ? String(value.bytes) : String(value)
          if (hook === "PostToolUse" || hook === "PostToolUseFailure") set(e, "duration_ms", value)
          set(e, "tool_input", { n: value, big: new Raw("1e400"), list: [value, -0, 1e-300] })
          set(e, "future_number", value)
          if (hook === "SessionStart") set(e, "model", value)
          return [
            make(
              hook,
              category,
              `huge/odd number ${
                text.length > 30 ? `${text.slice(0, 20)}…(${text.length} digits)` : text
              } in duration_ms, tool_input, an extra field`,
              encodePayload(e),
              nonFinite
            )
          ]
        }
        case "nulls-arrays": {
          const value = rng.pick<J>([null, [], [1, 2], "a string", 42, true, [{ command: "ls" }], ["Bash"]])
          const field = rng.pick([
            "tool_input",
            "tool_response",
            "model",
            "error",
            "custom_instructions",
            "last_assistant_message",
            "future_field",
            "source",
            "stop_hook_active"
          ])
          set(e, field, value)
          return [make(hook, category, `${field} = ${JSON.stringify(value)}`, encodePayload(e))]
        }
        case "deep": {
          const shape = rng.pick([deepObject, deepArray, deepMixed])
          const field = rng.pick(DEEP_FIELDS[hook])
          set(e, field, shape(DEEP))
          return [make(hook, category, `${shape.name}(${DEEP}) in ${field}`, encodePayload(e))]
        }
        case "invalid-utf8": {
          const bad = rng.pick(INVALID_UTF8)
          const where = rng.pick(["text", "text", "text", "session_id", "structure", "prefix"])
          if (where === "text") {
            const slot = putSlot(hook, e, badString("before ", bad, " after"))
            return [make(hook, category, `invalid UTF-8 ${bad.toString("hex")} inside ${slot}`, encodePayload(e))]
          }
          if (where === "session_id") {
            set(e, "session_id", badString("s-", bad, `-${rng.int(1000)}`))
            return [make(hook, category, `invalid UTF-8 ${bad.toString("hex")} inside session_id`, encodePayload(e))]
          }
          const body = encodePayload(e)
          if (where === "prefix") {
            return [
              make(hook, category, `invalid UTF-8 ${bad.toString("hex")} before the JSON`, Buffer.concat([bad, body]))
            ]
          }
          // Not inside cwd: a cwd naming a missing folder is its own case ("nonexistent-cwd" below).
          const cwdValue = get(e, "cwd")
          const needle = typeof cwdValue === "string" ? Buffer.from(`"cwd":${JSON.stringify(cwdValue)}`) : undefined
          const from = needle === undefined ? -1 : body.indexOf(needle)
          let cut = 1 + rng.int(body.length - 1)
          while (from >= 0 && cut > from && cut < from + needle!.length) cut = 1 + rng.int(body.length - 1)
          return [
            make(
              hook,
              category,
              `invalid UTF-8 ${bad.toString("hex")} spliced into the JSON at byte ${cut}`,
              Buffer.concat([body.subarray(0, cut), bad, body.subarray(cut)])
            )
          ]
        }
        case "extra-fields": {
          const kind = rng.pick([
            "proto",
            "constructor",
            "many",
            "long-key",
            "nul-key",
            "duplicate-ok",
            "duplicate-bad",
            "future"
          ])
          if (kind === "proto") e.push(["__proto__", { session_id: 42, polluted: true, prompt: ["x"] }])
          if (kind === "constructor") e.push(["constructor", { prototype: { polluted: true } }])
          if (kind === "many") { for (let i = 0; i < 5000; i++) e.push([`extra_${i}`, i]) }
          if (kind === "long-key") e.push(["k".repeat(100_000), "v"])
          if (kind === "nul-key") e.push(["\u0000", "nul"], ["🦀", { "": "" }])
          if (kind === "duplicate-ok") e.unshift(["session_id", 42])
          if (kind === "duplicate-bad") e.push(["session_id", 42])
          if (kind === "future") {
            e.push(["effort", "high"], ["agent_id", null], ["tool_response_v2", { nested: [1, { a: null }] }])
          }
          return [make(hook, category, `extra fields: ${kind}`, encodePayload(e))]
        }
        case "boundary": {
          const length = rng.pick([1, 2, 255, 256, 257, 300, 0, 10_000])
          set(
            e,
            "session_id",
            "b".repeat(length - (length > 5 ? 5 : 0)) + (length > 5 ? `${rng.int(90_000) + 10_000}` : "")
          )
          return [make(hook, category, `session_id of ${length} characters`, encodePayload(e))]
        }
        case "retry": {
          const tool = rng.chance(0.5) ? "PostToolUse" : "PostToolUseFailure"
          const payload = encodePayload(realistic(tool))
          return [
            make(tool, category, "a tool call, then the same call retried", payload),
            make(tool, category, "the retried tool call (must be stored once)", payload)
          ]
        }
        case "truncated": {
          const body = encodePayload(e)
          const cut = rng.int(body.length)
          return [make(hook, category, `truncated at byte ${cut} of ${body.length}`, body.subarray(0, cut))]
        }
        case "wrong-types": {
          const fields = [
            "session_id",
            "session_id",
            ...(REQUIRED[hook] ? [REQUIRED[hook]!, REQUIRED[hook]!] : []),
            ...TYPED_OPTIONAL[hook]
          ]
          const field = rng.pick(fields)
          const value = rng.pick(field === "session_id" ? [...WRONG, ""] : WRONG)
          set(e, field, value)
          return [
            make(
              hook,
              category,
              `${field} = ${value instanceof Raw ? String(value.bytes) : JSON.stringify(value)}`,
              encodePayload(e)
            )
          ]
        }
        case "missing-fields": {
          const kind = rng.pick(["session_id", "required", "all", "only-event-name", "everything-but-session"])
          if (kind === "session_id") remove(e, "session_id")
          if (kind === "required") remove(e, REQUIRED[hook] ?? "session_id")
          if (kind === "all") e.splice(0)
          if (kind === "only-event-name") e.splice(0, e.length, ["hook_event_name", hook])
          if (kind === "everything-but-session") e.splice(0, e.length, ["session_id", uuid(rng)])
          return [make(hook, category, `missing: ${kind}`, encodePayload(e))]
        }
        case "top-level": {
          const options: ReadonlyArray<readonly [string, Buffer]> = [
            ["empty stdin", Buffer.alloc(0)],
            ["whitespace", Buffer.from(" \n\t ")],
            ["null", Buffer.from("null")],
            ["true", Buffer.from("true")],
            ["a number", Buffer.from("42")],
            ["a string", Buffer.from("\"session_id\"")],
            ["an empty array", Buffer.from("[]")],
            ["the payload inside an array", Buffer.concat([Buffer.from("["), encodePayload(e), Buffer.from("]")])],
            ["the payload as a JSON string", Buffer.from(JSON.stringify(encodePayload(e).toString("utf8")))],
            ["a huge number", Buffer.from("1e400")]
          ]
          const [what, bytes] = rng.pick(options)
          return [make(hook, category, `top level: ${what}`, bytes)]
        }
        case "binary": {
          const kind = rng.pick(["random", "random", "zeros", "ff", "gzip", "json-prefix"])
          const bytes = kind === "random" ?
            rng.bytes(1 + rng.int(4096))
            : kind === "zeros" ?
            Buffer.alloc(1 + rng.int(4096))
            : kind === "ff" ?
            Buffer.alloc(1 + rng.int(4096), 0xff)
            : kind === "gzip" ?
            gzipSync(encodePayload(e))
            : Buffer.concat([Buffer.from("{\"session_id\":\""), rng.bytes(64 + rng.int(512))])
          return [make(hook, category, `binary: ${kind}`, bytes)]
        }
        case "malformed-json": {
          const text = encodePayload(e).toString("utf8")
          const kind = rng.pick([
            "NaN",
            "trailing-comma",
            "single-quotes",
            "comment",
            "unquoted-key",
            "raw-newline",
            "raw-nul",
            "trailing-garbage",
            "two-objects",
            "json-lines",
            "bom",
            "utf16",
            "bad-escape"
          ])
          const variants: Record<string, () => Buffer> = {
            NaN: () => Buffer.from(text.replace(/}$/, ",\"duration_ms\":NaN}")),
            "trailing-comma": () => Buffer.from(text.replace(/}$/, ",}")),
            "single-quotes": () => Buffer.from(text.replaceAll("\"", "'")),
            comment: () => Buffer.from(`// a comment\n${text}`),
            "unquoted-key": () => Buffer.from(text.replace("\"session_id\"", "session_id")),
            "raw-newline": () => Buffer.from(text.replace(/}$/, ",\"x\":\"line\nbreak\"}")),
            "raw-nul": () => Buffer.from(text.replace(/}$/, ",\"x\":\"nul\u0000byte\"}")),
            "trailing-garbage": () => Buffer.from(`${text}x`),
            "two-objects": () => Buffer.from(`${text}${text}`),
            "json-lines": () => Buffer.from(`${text}\n${text}\n`),
            bom: () => Buffer.from(`\ufeff${text}`),
            utf16: () => Buffer.from(text, "utf16le"),
            "bad-escape": () => Buffer.from(text.replace(/}$/, ",\"x\":\"\\q\\u12\"}"))
          }
          // A BOM is not JSON, but stripping it would be lenient too: either outcome is fine, if it is consistent.
          return [make(hook, category, `malformed JSON: ${kind}`, variants[kind]!(), kind === "bom")]
        }
      }
    }

    for (let i = 0; cases.filter((c) => c.project === project).length < perProject; i++) {
      const hook = HOOKS[(i + project) % HOOKS.length]!
      cases.push(...build(hook, rng.weighted(CATEGORIES)))
    }

    // A cwd that names a folder that does not exist (outside every project): the hook must record in
    // the project it runs in, or refuse with a logged reason, but never create that folder.
    const parent = root.slice(0, root.lastIndexOf("/"))
    for (const missing of [`${parent}/missing-${project}/sub`, `../missing-relative-${project}/sub`]) {
      const hook = rng.pick(HOOKS)
      const e = realistic(hook)
      set(e, "cwd", missing)
      cases.push(
        make(
          hook,
          "nonexistent-cwd",
          `cwd ${JSON.stringify(missing.replace(parent, "<work>"))} does not exist`,
          encodePayload(e),
          true
        )
      )
    }

    // Deep nesting where every hook must accept it, whatever the seed draws: one of these per project.
    const deepHook = (["PostToolUse", "PostToolUseFailure", "SessionStart", "PostToolUse"] as const)[project % 4]!
    const deep = realistic(deepHook)
    const deepField = deepHook === "SessionStart"
      ? "model"
      : deepHook === "PostToolUse"
      ? "tool_response"
      : "tool_input"
    const deepShape = [deepObject, deepMixed, deepMixed, deepArray][project % 4]!
    if (deepHook !== "SessionStart") set(deep, "tool_name", "mcp__fuzz__deep")
    set(deep, deepField, deepShape(DEEP))
    cases.push(
      make(
        deepHook,
        "deep",
        `${deepShape.name}(${DEEP}) in ${deepField}${deepHook === "SessionStart" ? "" : " of an MCP tool call"}`,
        encodePayload(deep)
      )
    )

    // The big ones: a few per project (each costs ~0.1 to 0.5 s).
    const big = (hook: Hook, description: string, patch: (e: Entries) => Entries | Buffer) => {
      const result = patch(realistic(hook))
      cases.push(make(hook, "10MB", description, Buffer.isBuffer(result) ? result : encodePayload(result)))
    }
    const tenMb = (head: string) => `${head}\n${"x".repeat(TEN_MB)}\nlast line`
    if (project === 0) {
      big(
        "PostToolUse",
        "10 MB Bash stdout",
        (e) => (set(e, "tool_name", "Bash"), set(e, "tool_response", { stdout: tenMb("first line"), stderr: "" }), e)
      )
      big(
        "PostToolUse",
        "10 MB tool_response of an unknown tool",
        (e) => (set(e, "tool_name", "mcp__x__y"), set(e, "tool_response", { blob: tenMb("b") }), e)
      )
      cases.push(
        make(
          "UserPromptSubmit",
          "64MB",
          "stdin over the 64 MiB limit",
          Buffer.concat([
            Buffer.from("{\"session_id\":\"s\",\"prompt\":\""),
            Buffer.alloc(MAX_STDIN_BYTES + 1024, 0x61),
            Buffer.from("\"}")
          ])
        )
      )
    }
    if (project === 1) {
      big(
        "UserPromptSubmit",
        "10 MB prompt full of FTS syntax",
        (e) => (set(e, "prompt", `${FTS_SYNTAX.join(" ")} ${"NEAR( \"x* col:y ".repeat(TEN_MB / 16)}`), e)
      )
      big("Stop", "10 MB last_assistant_message", (e) => (set(e, "last_assistant_message", tenMb("Done.")), e))
    }
    if (project === 2) {
      big("PostToolUseFailure", "10 MB error", (e) => (set(e, "error", tenMb("Exit code 1")), e))
      big("PreCompact", "10 MB custom_instructions", (e) => (set(e, "custom_instructions", tenMb("keep")), e))
    }
    if (project === 3) {
      big(
        "PostToolUse",
        "10 MB payload truncated in the middle",
        (e) => (set(e, "tool_response", { stdout: tenMb("a") }), encodePayload(e).subarray(0, TEN_MB / 2))
      )
      big("SessionEnd", "10 MB session_id", (e) => (set(e, "session_id", "s".repeat(TEN_MB)), e))
    }
  })
  return cases
}

/** Event names ralph-mem does not handle, each with a payload that would be valid for a real hook. */
export const ignoredHookCases = (root: string): Array<HookCase> =>
  [
    "Notification",
    "SubagentStop",
    "PreToolUse ",
    "pretooluse",
    "",
    "sessionstart",
    "SESSIONSTART",
    "Stop ",
    "../../etc/passwd",
    "toString",
    "__proto__",
    "constructor",
    "hasOwnProperty",
    "valueOf",
    "isPrototypeOf"
  ].map(
    (hook, id) => ({
      id,
      project: -1,
      hook,
      category: "unknown-event",
      description: `unhandled event name ${JSON.stringify(hook)}`,
      stdin: encodePayload([["session_id", "s1"], ["cwd", root], ["hook_event_name", hook], ["prompt", "hi"], [
        "tool_name",
        "Bash"
      ]])
    })
  )

// ---------------------------------------------------------------------------------------------
// The oracle.

export type Expectation =
  | { readonly kind: "rejected"; readonly why: string }
  | { readonly kind: "valid"; readonly writes: boolean; readonly sessionId: string }
  | { readonly kind: "either"; readonly sessionId?: string }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * What a hook must do with `stdin`. `toolKeys` collects (session, tool_use_id) pairs already stored,
 * so a retried tool call is expected to write nothing the second time.
 */
export const expectationOf = (c: HookCase, toolKeys: Set<string>): Expectation => {
  const hook = c.hook as Hook
  if (c.stdin.length > MAX_STDIN_BYTES) return { kind: "rejected", why: "stdin over 64 MiB" }
  let json: unknown
  try {
    json = JSON.parse(c.stdin.toString("utf8"))
  } catch {
    return c.either ? { kind: "either" } : { kind: "rejected", why: "not JSON" }
  }
  if (!isRecord(json)) return { kind: "rejected", why: "not an object" }
  const has = (k: string) => Object.hasOwn(json, k)
  const is = (k: string, ...types: Array<"string" | "number" | "boolean" | "null">) =>
    !has(k) || types.some((t) => (t === "null" ? json[k] === null : typeof json[k] === t))
  const sid = json["session_id"]
  if (typeof sid !== "string" || sid.length < 1 || sid.length > 256) return { kind: "rejected", why: "session_id" }
  const required = REQUIRED[hook]
  if (required !== undefined && typeof json[required] !== "string") return { kind: "rejected", why: required }
  const types: Record<string, ReadonlyArray<"string" | "number" | "boolean" | "null">> = {
    cwd: ["string"],
    transcript_path: ["string"],
    prompt_id: ["string"],
    source: ["string"],
    tool_use_id: ["string"],
    duration_ms: ["number"],
    is_interrupt: ["boolean"],
    error: ["string", "null"],
    stop_hook_active: ["boolean"],
    last_assistant_message: ["string", "null"],
    trigger: ["string"],
    custom_instructions: ["string", "null"],
    reason: ["string"]
  }
  const known = ["cwd", "transcript_path", "prompt_id", ...TYPED_OPTIONAL[hook]]
  for (const k of known) if (!is(k, ...types[k]!)) return { kind: "rejected", why: `${k} has the wrong type` }
  if (c.either) return { kind: "either", sessionId: sid }
  if (hook === "PostToolUse" || hook === "PostToolUseFailure") {
    const duration = json["duration_ms"]
    if (typeof duration === "number" && !Number.isFinite(duration)) return { kind: "either", sessionId: sid }
    const toolUseId = json["tool_use_id"]
    if (typeof toolUseId === "string") {
      const key = JSON.stringify([sid, toolUseId])
      if (toolKeys.has(key)) return { kind: "valid", writes: false, sessionId: sid }
      toolKeys.add(key)
    }
  }
  // No plan loop runs in the fuzzed projects: a valid tool call is let through, with nothing recorded.
  if (hook === "PreToolUse") return { kind: "valid", writes: false, sessionId: sid }
  // A cut-off turn records nothing of the session (no loop runs in the fuzzed projects).
  if (hook === "StopFailure") return { kind: "valid", writes: false, sessionId: sid }
  if (hook === "Stop") {
    const message = json["last_assistant_message"]
    return { kind: "valid", writes: typeof message === "string" && message.trim() !== "", sessionId: sid }
  }
  return { kind: "valid", writes: true, sessionId: sid }
}

// ---------------------------------------------------------------------------------------------
// CLI argument vectors.

export interface CliCase {
  readonly id: number
  readonly args: ReadonlyArray<string>
  /** Index into the projects, or -1 for a folder outside any project. */
  readonly cwd: number
  readonly description: string
}

export interface CliTargets {
  /** A directory, a text file, a binary file and a file with an SQLite header over garbage. */
  readonly directory: string
  readonly junk: ReadonlyArray<string>
  /** A folder where new databases may be created. */
  readonly scratch: string
}

export const generateCliCases = (
  seed: number,
  projects: number,
  targets: CliTargets,
  count: number
): Array<CliCase> => {
  const rng = new Rng(seed ^ 0x9e3779b9)
  const huge = () => rng.pick(["q", "🦀", "NEAR( ", "\"", "../"]).repeat(20_000).slice(0, 100_000)
  const garbage = () =>
    rng.weighted<string>([
      [rng.pick(FTS_SYNTAX).replaceAll("\u0000", ""), 3],
      [rng.pick(TRAVERSAL).replaceAll("\u0000", ""), 3],
      [rng.pick(UNICODE).replaceAll("\u0000", ""), 2],
      [huge(), 0.5],
      ["", 1],
      [String(rng.pick([0, -1, 1e21, 2 ** 53 + 1, 1.5])), 1],
      ["NaN", 0.5],
      ["1e400", 0.5],
      ["-", 0.5],
      ["--", 0.5]
    ])
  const dbFlag = (): Array<string> =>
    rng.weighted<Array<string>>([
      [[], 6],
      [["--db", targets.directory], 1],
      [["--db", rng.pick(targets.junk)], 2],
      [["--db", `${targets.scratch}/new-${rng.int(1e6)}/nested/memory.db`], 1],
      [["--db", ""], 0.5],
      [["--db"], 0.5],
      [["--db", "../../../../../../../../dev/null/x.db"], 0.5],
      [["--db=" + rng.pick(targets.junk)], 0.5]
    ])
  const maybe = (p: number, flag: () => Array<string>) => (rng.chance(p) ? flag() : [])
  const flag =
    (name: string, values: ReadonlyArray<string>) => () => [name, rng.chance(0.7) ? rng.pick(values) : garbage()]
  const limit = flag("--limit", ["0", "-5", "abc", "1e9", "99999999999999999999", "3", "1.5", ""])
  const since = flag("--since", ["7d", "yesterday", "2026-13-45", "0", "-1d", "9999999d", "2026-11-20T09:30:00Z", ""])
  const json = () => ["--json"]
  const unknownFlag = () => [
    rng.pick([
      "--bogus",
      "-x",
      "--=",
      "--json=maybe",
      "---",
      "--no-json",
      "-",
      "--agent",
      "--rollback=no",
      "--LIMIT",
      "-vv"
    ])
  ]
  const templates: ReadonlyArray<readonly [string, () => Array<string>]> = [
    [
      "search",
      () => [
        "search",
        ...rng.some([...FTS_SYNTAX.map((s) => s.replaceAll("\u0000", "")), "token", "refresh"], 0, 4),
        ...maybe(0.3, () => [garbage()]),
        ...maybe(0.3, flag("--layer", ["1", "2", "3", "4", "0", "x"])),
        ...maybe(0.3, flag("--type", ["error", "note", "x"])),
        ...maybe(0.3, flag("--session", TRAVERSAL.map((t) => t.replaceAll("\u0000", "")))),
        ...maybe(0.3, limit),
        ...maybe(0.2, since),
        ...maybe(0.3, json),
        ...maybe(0.2, () => ["--all-projects"])
      ]
    ],
    [
      "show",
      () => [
        "show",
        ...Array.from({ length: rng.int(3) }, () =>
          rng.pick([
            "1",
            "0",
            "-1",
            "99999999999",
            "1.5",
            "NaN",
            "../../etc/passwd",
            "01J0000000000000000000000",
            garbage()
          ])),
        ...maybe(0.3, json)
      ]
    ],
    [
      "forget",
      () => [
        "forget",
        ...Array.from(
          { length: rng.int(3) },
          () => rng.pick(["../../etc/passwd", "01J0000000000000000000000", "*", "%", garbage()])
        ),
        ...maybe(0.3, flag("--session", TRAVERSAL.map((t) => t.replaceAll("\u0000", "")))),
        ...maybe(0.3, flag("--query", FTS_SYNTAX.map((t) => t.replaceAll("\u0000", "")))),
        ...maybe(0.4, () => ["--confirm"]),
        ...maybe(0.3, json)
      ]
    ],
    [
      "inject",
      () => [
        "inject",
        ...Array.from({ length: rng.int(3) }, garbage),
        ...maybe(0.3, flag("--type", ["note", "warning", "../../x", ""]))
      ]
    ],
    [
      "decide",
      () => [
        "decide",
        ...Array.from({ length: rng.int(3) }, garbage),
        ...maybe(0.7, flag("--why", ["because", "", " "])),
        ...maybe(0.3, flag("--alternative", ["a: b", ":", "x"])),
        ...maybe(0.3, flag("--impact", ["low", "huge", ""])),
        ...maybe(0.3, flag("--task", ["nope", "../x", ""])),
        ...maybe(0.3, json)
      ]
    ],
    [
      "why",
      () => [
        "why",
        ...rng.some([...FTS_SYNTAX.map((s) => s.replaceAll("\u0000", "")), "token", "검색을"], 0, 4),
        ...maybe(0.3, limit),
        ...maybe(0.3, json)
      ]
    ],
    [
      "belief",
      () => [
        "belief",
        rng.pick(["set", "list", "unset", "nope", ""]),
        ...Array.from({ length: rng.int(3) }, garbage),
        ...maybe(0.3, json)
      ]
    ],
    [
      "task",
      () => [
        "task",
        rng.pick(["start", "plan", "step", "finding", "handoff", "done", "show", "list", "nope", ""]),
        ...Array.from({ length: rng.int(3) }, garbage),
        ...maybe(0.3, flag("--task", ["nope", "../x", ""])),
        ...maybe(0.2, flag("--id", ["t1", "../x", ""])),
        ...maybe(0.3, json)
      ]
    ],
    ["resume", () => ["resume", ...maybe(0.5, json)]],
    [
      "export",
      () => [
        "export",
        ...maybe(0.5, flag("--format", ["md", "json", "pdf"])),
        ...maybe(0.3, flag("--task", ["nope", ""])),
        ...maybe(0.3, () => ["--out", `${targets.scratch}/export-${rng.int(1e6)}`]),
        ...maybe(0.3, json)
      ]
    ],
    ["status", () => ["status", ...maybe(0.5, json)]],
    ["verify", () => ["verify", ...maybe(0.5, json)]],
    [
      "timeline",
      () => [
        "timeline",
        ...maybe(0.4, since),
        ...maybe(0.3, limit),
        ...maybe(0.3, flag("--session", TRAVERSAL.map((t) => t.replaceAll("\u0000", "")))),
        ...maybe(0.3, json)
      ]
    ],
    [
      "audit",
      () => [
        "audit",
        ...maybe(0.3, flag("--stream", ["session:../../x", "loop:", "*", ""])),
        ...maybe(0.3, flag("--type", ["HookFailed", "Nope,,", ",", "' OR 1=1"])),
        ...maybe(0.3, flag("--until", ["zz", "2026-11-20", "1e400"])),
        ...maybe(0.3, since),
        ...maybe(0.3, limit),
        ...maybe(0.3, json)
      ]
    ],
    [
      "replay",
      () => ["replay", ...maybe(0.5, flag("--projection", ["sessions", "observations", "../x", "sqlite_master", ""]))]
    ],
    [
      "config",
      () => [
        "config",
        ...maybe(
          0.7,
          () => [
            rng.pick([
              "memory.context_window",
              "memory.search.recency_weight",
              "__proto__.polluted",
              "constructor.prototype.x",
              "../../x",
              "a..b",
              "",
              garbage()
            ])
          ]
        ),
        ...maybe(0.5, () => [rng.pick(["abc", "-1", "1e400", "[", "{a: b", "null", "0.2", "30m", garbage()])]),
        ...maybe(0.3, () => ["--global"])
      ]
    ],
    [
      "ralph",
      () => [
        "ralph",
        rng.pick(["start", "status", "stop", "config", "nope", ""]),
        ...Array.from({ length: rng.int(3) }, garbage),
        ...maybe(0.5, flag("--session", ["../../etc/passwd", "s1", "🦀", ""])),
        ...maybe(0.3, flag("--max-iterations", ["0", "-1", "1e9", "x"])),
        ...maybe(0.3, flag("--max-duration", ["30m", "forever", "-1h"])),
        ...maybe(0.3, flag("--criteria", ["test_pass", "bogus", "marker=DONE", "custom=", "=", "kind="])),
        ...maybe(0.2, flag("--reason", ["x"])),
        ...maybe(0.3, json)
      ]
    ],
    ["backup", () => ["backup", ...maybe(0.3, () => ["--if-due"])]],
    ["doctor", () => ["doctor", ...maybe(0.3, () => ["--repair"]), ...maybe(0.3, json)]],
    [
      "global",
      () => [
        rng.pick([
          "--help",
          "-h",
          "--version",
          "-v",
          "--wizard",
          "--completions",
          "--completions=bash",
          "--log-level",
          "--log-level=nope",
          "--log-level=all"
        ]),
        ...maybe(0.3, () => ["status"])
      ]
    ],
    [
      "garbage",
      () =>
        Array.from({ length: rng.int(5) }, () => (rng.chance(0.5)
          ? garbage()
          : rng.pick(["nosuch", "STATUS", "search", "--", "-", "help", ...unknownFlag()])))
    ]
  ]
  const cases: Array<CliCase> = []
  const describeArgs = (args: ReadonlyArray<string>, cwd: number) =>
    `ralph-mem ${
      args.map((a) => (a.length > 60 ? `${JSON.stringify(a.slice(0, 24))}…(${a.length} chars)` : JSON.stringify(a)))
        .join(" ")
    } (cwd: ${cwd === -1 ? "no project" : `project ${cwd}`})`
  // Whatever the seed draws, each project has its observations rebuilt on their own: they must equal a full replay.
  for (let p = 0; p < projects; p++) {
    const args = ["replay", "--projection", "observations"]
    cases.push({ id: cases.length, args, cwd: p, description: describeArgs(args, p) })
  }
  for (let id = cases.length; id < count; id++) {
    const [name, build] = rng.pick(templates)
    let args = build()
    args = [...args, ...(name === "global" || name === "garbage" ? [] : dbFlag()), ...maybe(0.15, unknownFlag)]
    if (rng.chance(0.1)) {
      args = rng.chance(0.5)
        ? args.reverse()
        : [args[0] ?? "", ...args.slice(1).sort(() => rng.next() - 0.5)]
    }
    const cwd = rng.chance(0.15) ? -1 : rng.int(projects)
    cases.push({ id, args, cwd, description: describeArgs(args, cwd) })
  }
  return cases
}
