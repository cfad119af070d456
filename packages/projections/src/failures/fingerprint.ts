/**
 * A failure's fingerprint: a digest of WHAT failed (failing tests, error codes per file), blind to how long it
 * took, when it ran, where in a file it broke, and which temp folder it ran in. Two iterations that fail the same
 * way get the same fingerprint, which is how the loop notices it is making no progress.
 */

export interface FingerprintOptions {
  /** Absolute paths of the project, removed so paths compare as project-relative. */
  readonly projectRoots?: ReadonlyArray<string>
  /** Used when the output names nothing that failed (e.g. "exit code 1", or "timed out"). */
  readonly fallback?: string
  /** Always part of the signature: how the run ended when that is itself part of the failure ("timed out"). */
  readonly alwaysInclude?: ReadonlyArray<string>
}

const HASH_HEX_CHARS = 16
const READABLE_CHARS = 100
const FALLBACK_LINES = 3

/**
 * What failed, as normalized lines, sorted: the failures the output names, else its first lines with an error
 * word (`generic` leaves out lines every failure of a tool prints, such as npm's own). Empty: nothing named.
 */
export const failureSignature = (
  output: string,
  options: { readonly projectRoots?: ReadonlyArray<string>; readonly generic?: RegExp } = {}
): Array<string> => {
  const lines = stripAnsi(output).split(/\r?\n/)
  const scrub = (line: string) => normalizeLine(line, options.projectRoots ?? [])
  const named = uniqueSorted(extractFailures(lines).map(scrub))
  if (named.length > 0) return named
  const generic = options.generic
  const candidates = generic === undefined ? lines : lines.filter((line) => !generic.test(line))
  return uniqueSorted(firstErrorLines(candidates).map(scrub))
}

/** Builds the fingerprint: `<16 hex of sha-256> <first signature line>`. */
export const fingerprintFailure = (output: string, options: FingerprintOptions = {}): string => {
  let signature = failureSignature(output, options)
  if (signature.length === 0 && (options.alwaysInclude ?? []).length === 0) {
    signature = [options.fallback ?? "no output"]
  }
  signature = uniqueSorted([...(options.alwaysInclude ?? []), ...signature])
  const digest = process.getBuiltinModule("node:crypto").createHash("sha256").update(signature.join("\n")).digest("hex")
    .slice(0, HASH_HEX_CHARS)
  return `${digest} ${(signature[0] ?? "").slice(0, READABLE_CHARS)}`.trimEnd()
}

// --- extraction: one pattern per tool's way of naming a failure ---------------------------------------------

type Extractor = (line: string) => string | undefined

const match = (pattern: RegExp, render: (groups: RegExpExecArray) => string): Extractor => (line) => {
  const found = pattern.exec(line)
  return found === null ? undefined : render(found)
}

const lineExtractors: ReadonlyArray<Extractor> = [
  // vitest ` FAIL  src/a.test.ts > suite > name`, jest `FAIL src/a.test.js`, go `FAIL\tpkg/path\t0.01s`
  match(/^\s*FAIL\s+(.+)$/, (m) => `FAIL ${m[1]}`),
  // vitest `× name 12ms`, jest `✕ name (5 ms)` (patterns spell non-ASCII characters as \u escapes: the
  // hook bundle must be ASCII, and esbuild does not escape them in regex literals)
  match(/^\s*[\u00d7\u2715\u2717]\s+(.+)$/, (m) => `× ${m[1]}`),
  // jest `● suite › name` (but not its `● Console` block header)
  match(/^\s*\u25cf\s+(?!Console\s*$)(.+)$/, (m) => `● ${m[1]}`),
  // pytest `FAILED tests/test_a.py::test_b - AssertionError: ...` (the message can carry run-specific values)
  match(/^(FAILED|ERROR)\s+(\S+::\S+|\S+\.py)\b/, (m) => `${m[1]} ${m[2]}`),
  // go `--- FAIL: TestName (0.00s)`
  match(/^\s*--- FAIL:\s+(\S+)/, (m) => `--- FAIL: ${m[1]}`),
  // cargo `test module::name ... FAILED`
  match(/^test\s+(\S+)\s+\.\.\.\s+FAILED/, (m) => `test ${m[1]} ... FAILED`),
  // tsc `src/a.ts(3,5): error TS2322: ...` and its pretty form `src/a.ts:3:5 - error TS2322: ...`
  match(/^(\S.*?)\(\d+,\d+\):\s+error\s+(TS\d+)/, (m) => `${m[1]} error ${m[2]}`),
  match(/^(\S.*?):\d+:\d+\s+-\s+error\s+(TS\d+)/, (m) => `${m[1]} error ${m[2]}`),
  // tsc without a file: `error TS18003: No inputs were found ...`
  match(/^error\s+(TS\d+)/, (m) => `error ${m[1]}`),
  // eslint unix format `src/a.js:1:10: 'x' is defined but never used. [Error/no-unused-vars]`
  match(/^(\S.*?):\d+:\d+:\s.*\[(Error|Warning)\/([^\]]+)\]\s*$/, (m) => `${m[1]} ${m[2]?.toLowerCase()} ${m[3]}`),
  // mypy `src/a.py:3: error: Incompatible types ... [assignment]`
  match(/^(\S+?):\d+(?::\d+)?:\s+error:.*?(\[[\w-]+\])?\s*$/, (m) => `${m[1]} error ${m[2] ?? ""}`),
  // ruff `src/a.py:1:8: F401 [*] \`os\` imported but unused`
  match(/^(\S+?):\d+:\d+:\s+([A-Z]{1,4}\d{2,4})\b/, (m) => `${m[1]} ${m[2]}`),
  // rustc `error[E0308]: mismatched types`
  match(/^(error|warning)\[(E\d+)\]:\s*(.*)$/, (m) => `${m[1]}[${m[2]}]: ${m[3]}`)
]

/** eslint's default (stylish) format names the file on its own line, then `  12:5  error  message  rule`. */
const ESLINT_STYLISH_FILE = /^(?:\/|\.{0,2}\/|[A-Za-z]:\\)?[^\s:]+\.[cm]?[jt]sx?$|^\/\S+$/
const ESLINT_STYLISH_PROBLEM = /^\s+\d+:\d+\s+(error|warning)\s+.*?\s{2,}(\S+)\s*$/

export const extractFailures = (lines: ReadonlyArray<string>): Array<string> => {
  const found: Array<string> = []
  let eslintFile: string | undefined
  for (const line of lines) {
    if (ESLINT_STYLISH_FILE.test(line)) eslintFile = line.trim()
    const problem = ESLINT_STYLISH_PROBLEM.exec(line)
    if (problem !== null && eslintFile !== undefined) {
      found.push(`${eslintFile} ${problem[1]} ${problem[2]}`)
      continue
    }
    for (const extract of lineExtractors) {
      const signature = extract(line)
      if (signature !== undefined) {
        found.push(signature)
        break
      }
    }
  }
  return found
}

const ERROR_WORD = /error|Error|ERROR|FAIL/

const firstErrorLines = (lines: ReadonlyArray<string>): Array<string> =>
  lines.filter((line) => ERROR_WORD.test(line)).slice(0, FALLBACK_LINES)

// --- normalization: remove what changes between runs of the same failure -----------------------------------

/**
 * Terminal escapes: CSI (colors, cursor moves), OSC (window titles, hyperlinks; ended by BEL or ESC-backslash),
 * DCS/SOS/PM/APC strings, and two-character escapes (ESC c resets). An unterminated string ends at the line's
 * end, so a stray ESC ] cannot swallow the rest of a failure's output.
 */
const ANSI_ESCAPE = new RegExp(
  [
    String.raw`\u001b\[[0-9;?]*[ -/]*[@-~]`,
    String.raw`\u001b\][^\u0007\u001b\n]*(?:\u0007|\u001b\\)?`,
    String.raw`\u001b[PX^_][^\u001b\n]*(?:\u001b\\)?`,
    String.raw`\u001b[ -/]*[0-~]`,
    String.raw`\u009b[0-9;?]*[ -/]*[@-~]`
  ].join("|"),
  "g"
)

/** Other control characters (bells, backspaces, C1 codes): noise in a prompt, and a title could count up in them. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

/** Output as text a prompt and a fingerprint can use: no escapes, no control characters but tabs and line ends. */
export const stripAnsi = (text: string): string => text.replace(ANSI_ESCAPE, "").replace(CONTROL, "")

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A random folder under a temp root (`/tmp/vitest-x1y2/`, macOS `/var/folders/ab/cd/T/tmp.x/`). */
let tempFolder: RegExp | undefined
/** Built on first use: it needs os.tmpdir(), and every hook loads this module (the Stop hook runs the loop). */
const TEMP_FOLDER = (): RegExp => (tempFolder ??= new RegExp(
  [
    String.raw`(?:/private)?/var/folders/[^/\s]+/[^/\s]+/T/[^/\s:'"()]+`,
    String.raw`(?:/private)?/(?:var/)?tmp/[^/\s:'"()]+`,
    `${escapeRegExp(process.getBuiltinModule("node:os").tmpdir())}/[^/\\s:'"()]+`
  ].join("|"),
  "g"
))
const ISO_TIMESTAMP = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g
const CLOCK_TIME = /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g
const DURATION = /\(?\b\d+(?:\.\d+)?\s?(?:ns|\u00b5s|us|ms|s|sec|secs|seconds?|m|min|mins|minutes?)\b\)?/g
/** `:12` or `:12:5` right after a file extension (`a.ts:12:5`). */
const LINE_COLUMN_AFTER_FILE = /(\.[A-Za-z0-9]+)(?::\d+){1,2}\b/g
const LINE_COLUMN_PARENS = /\(\d+,\s*\d+\)/g
const LINE_COLUMN_WORDS = /\b(line)\s+\d+(?:,\s*col(?:umn)?\s+\d+)?/gi
const HEX_ADDRESS = /\b0x[0-9a-f]+\b/gi

export const normalizeLine = (line: string, projectRoots: ReadonlyArray<string>): string => {
  let text = stripAnsi(line)
  // Longest root first, so a root nested in another is removed whole.
  for (const root of [...projectRoots].sort((a, b) => b.length - a.length)) {
    if (root !== "") text = text.split(`${root.replace(/\/+$/, "")}/`).join("")
  }
  return text
    .replace(TEMP_FOLDER(), "<tmp>")
    .replace(ISO_TIMESTAMP, "<time>")
    .replace(CLOCK_TIME, "<time>")
    .replace(LINE_COLUMN_AFTER_FILE, "$1")
    .replace(LINE_COLUMN_PARENS, "")
    .replace(LINE_COLUMN_WORDS, "$1")
    .replace(DURATION, "")
    .replace(HEX_ADDRESS, "0x")
    .replace(/\s+/g, " ")
    .trim()
}

const uniqueSorted = (lines: ReadonlyArray<string>): Array<string> =>
  [...new Set(lines.filter((line) => line !== ""))].sort()
