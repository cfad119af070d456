/**
 * How a failure is recognised again: the command that failed (normalised, so `npm test 2>&1 | tail -20`
 * is `npm test`), its family (the kind of check it runs, or the command itself), a digest of what failed
 * and its distinctive terms. Pure: the fold of failures and the hook that recalls them compute the same.
 */
import { digest53 } from "@ralph-mem/events"
import { extractFailures, failureSignature, stripAnsi } from "./fingerprint.ts"

/** The checks a command can run; a loop's criteria map onto them (test_pass is `test`). */
export type CheckKind = "test" | "build" | "lint" | "typecheck"

// A word followed by `/` is a folder in a path (`git log -- tests/conftest.py`, `ls build/`), not a check.
const CHECK_PATTERNS: ReadonlyArray<readonly [CheckKind, RegExp]> = [
  ["typecheck", /\b(?:tsc|typecheck|type-check|mypy|pyright|cargo check|go vet)\b(?!\/)/i],
  ["lint", /\b(?:lint|eslint|biome|ruff|clippy|flake8|pylint)\b(?!\/)/i],
  ["test", /\b(?:test|tests|jest|vitest|mocha|pytest|tox|cargo test|go test)\b(?!\/)/i],
  ["build", /\b(?:build|make|gradle|mvn|webpack)\b(?!\/)/i]
]

/** The check a command runs, by the first check word in it (`npm run build && npm test` builds first). */
export const checkKind = (command: string): CheckKind | undefined => {
  let found: { readonly kind: CheckKind; readonly at: number } | undefined
  for (const [kind, pattern] of CHECK_PATTERNS) {
    const at = pattern.exec(command)?.index
    if (at !== undefined && (found === undefined || at < found.at)) found = { kind, at }
  }
  return found?.kind
}

const CRITERION_KINDS: Readonly<Record<string, CheckKind>> = {
  test_pass: "test",
  build_success: "build",
  lint_clean: "lint",
  type_check: "typecheck"
}

/** The family of a loop criterion: its check, `custom` for a command of the user's, none for the others. */
export const criterionFamily = (kind: string): string | undefined =>
  CRITERION_KINDS[kind] ?? (kind === "custom" ? "custom" : undefined)

/**
 * The command as run, without what only shapes its output: a leading `cd <dir> &&`, the commands it is
 * piped into (`| tail -20`), and redirections (`2>&1`, `> out.log`).
 */
export const normalizeCommand = (command: string): string => {
  const flat = command.replace(/\s+/g, " ").trim()
  // Most commands have nothing to take off: a replay folds every command run.
  if (!/[|>]|^cd /.test(flat)) return flat
  return (flat.replace(/^cd \S+ && /, "").split(/\s*(?<!\|)\|(?!\|)\s*/)[0] ?? "")
    .replace(/\s*\d?>&\d/g, "")
    .replace(/\s*(?:\d|&)?>>?\s*\S+/g, "")
    .trim()
}

/** The family of a shell command: its check, or `command` (then only the same command resolves it). */
export const commandFamily = (command: string): string => checkKind(command) ?? "command"

export const commandKey = (family: string, command: string): number => digest53(`${family}\u0000${command}`)

/** Families whose loop criterion checks the whole project: its passing run resolves any failure of them. */
const WHOLE_CHECKS = new Set<string>(["test", "build", "lint", "typecheck"])

/**
 * The keys of the passing runs that resolve a failure of `command`: the command and each shorter run of it
 * from two words up (`npm test` passing resolves `npm test -- auth`; not the other way round), and for a
 * check, the loop's criterion of that check.
 */
export const resolvingKeys = (family: string, command: string): Array<number> => {
  const words = command.split(" ")
  const keys = [commandKey(family, command)]
  for (let n = words.length - 1; n >= 2; n--) keys.push(commandKey(family, words.slice(0, n).join(" ")))
  if (WHOLE_CHECKS.has(family)) keys.push(commandKey(family, "*"))
  return keys
}

/** The keys a passing run of `command` (none: a loop criterion's own detected command) resolves failures by. */
export const passingKeys = (family: string, command: string | undefined, criterion: boolean): Array<number> => [
  ...(command === undefined || command === "" ? [] : [commandKey(family, command)]),
  ...(criterion && WHOLE_CHECKS.has(family) ? [commandKey(family, "*")] : [])
]

/** Lines every failure of a tool prints: they say nothing about what failed. */
const GENERIC_LINE = new RegExp(
  [
    String.raw`^\s*(?:npm|pnpm|yarn)(?: ERR!| error|:)`,
    String.raw`^\s*error Command failed`,
    String.raw`^\s*make(?:\[\d+\])?: \*\*\*`,
    String.raw`^\s*Exit code \d+\s*$`,
    // A loop's check, as ralph-mem reports its exit (timing out or failing to start says more, and stays).
    String.raw`^\s*\[ralph-mem\] exit code -?\d+, expected \d+\s*$`,
    String.raw`^\s*Error: Process completed with exit code`
  ].join("|")
)

const SIGNATURE_HEX = 14

/** What failed, as the lines that name it (see failureSignature), leaving out the lines every failure prints. */
export const signatureOf = (output: string): Array<string> => failureSignature(output, { generic: GENERIC_LINE })

/** A digest of what failed, or none when the output names nothing (then no two failures match by it). */
export const failureDigest = (signature: ReadonlyArray<string>): string | undefined =>
  signature.length === 0 ? undefined : digest53(signature.join("\n")).toString(16).padStart(SIGNATURE_HEX, "0")

const HEADLINE_CHARS = 200

/** Words that say what went wrong (beyond "FAIL"): a line with one carries its own message. */
const SAYS_WHAT = /error|exception|panic|assert|expected|timeout|timed out|cannot|not found|denied|refused|unsupported/i
/** A stack frame or a pointer into the source: where, not what. */
const FRAME_LINE = /^(?:at\s|-->|\^|\||File "|Traceback|\d+\s*\|)/
/** The name of a failure without the marks every tool adds (`FAIL`, `--- FAIL:`, `... FAILED`, `×`, `●`). */
const FAILURE_MARKS = /^(?:FAILED|FAIL|ERROR|--- FAIL:|[\u00d7\u2715\u2717\u25cf])\s*|\s*\.\.\.\s*FAILED$/g

/**
 * What failed in one line, as the output says it: its first line naming a failure, with the message that
 * follows it when that line only names a test or a file (`FAIL src/a.test.ts: TokenExpiredError: jwt
 * expired`); else the first line that says something, else the first line at all (`npm ERR! engine
 * Unsupported engine`: a tool's own line is still better than nothing).
 */
export const failureHeadline = (output: string): string => {
  const lines = stripAnsi(output).split(/\r?\n/).map((line) => line.trim())
  const names = (line: string) => extractFailures([line]).length > 0
  const at = lines.findIndex(names)
  const said = (line: string) => line !== "" && !GENERIC_LINE.test(line)
  const next = () => lines.slice(at + 1).filter((line) => said(line) && !names(line) && !FRAME_LINE.test(line))
  const first = at === -1
    ? lines.find(said) ?? lines.find((line) => line !== "" && !/^Exit code \d+$/.test(line)) ?? ""
    : withMessage(lines[at]!, next())
  const flat = first.replace(/\s+/g, " ")
  return flat.length > HEADLINE_CHARS ? `${flat.slice(0, HEADLINE_CHARS - 1)}…` : flat
}

/** A line naming a failure, with the first of the next lines that says what went wrong when it says nothing itself. */
const withMessage = (named: string, next: ReadonlyArray<string>): string => {
  if (SAYS_WHAT.test(named.replace(FAILURE_MARKS, ""))) return named
  const message = next.slice(0, 5).find((line) => SAYS_WHAT.test(line))
  return message === undefined ? named : `${named}: ${message}`
}

const STOP_TERMS = new Set([
  "fail",
  "failed",
  "failing",
  "failure",
  "error",
  "errors",
  "test",
  "tests",
  "expected",
  "received",
  "exit",
  "code",
  "true",
  "false",
  "undefined",
  "null",
  "with",
  "from",
  "that",
  "this",
  "line",
  "file",
  "found",
  "cannot",
  "could"
])

/**
 * How a line splits into words, and what makes a word a term (a letter in it). A Unicode property class costs
 * a hook about half a millisecond to build, the first time it is used; nearly all output is ASCII, and for
 * ASCII text the plain ranges match exactly what the Unicode classes would. So those are built only for a
 * line that is not ASCII.
 */
interface TermPatterns {
  readonly separator: RegExp
  readonly letter: RegExp
}

const ASCII = /^[\x00-\x7f]*$/
const ASCII_TERMS: TermPatterns = { separator: /[^A-Za-z0-9_./-]+/, letter: /[A-Za-z]/ }
let unicodeTerms: TermPatterns | undefined
const termPatterns = (line: string): TermPatterns =>
  ASCII.test(line) ? ASCII_TERMS : (unicodeTerms ??= { separator: /[^\p{L}\p{N}_./-]+/u, letter: /\p{L}/u })

/** The words of what failed that tell one failure from another: error names, files, test names, codes. */
export const failureTerms = (signature: ReadonlyArray<string>): Array<string> => {
  const terms = new Set<string>()
  for (const line of signature) {
    const { separator, letter } = termPatterns(line)
    for (const word of line.toLowerCase().split(separator)) {
      const term = word.replace(/^[./-]+|[./-]+$/g, "")
      if (term.length >= 4 && letter.test(term) && !STOP_TERMS.has(term)) terms.add(term)
    }
  }
  return [...terms].sort().slice(0, 24)
}

/** What recognising a failure again takes, from its output: the fold keeps it with the failure's row. */
export interface FailureFacts {
  readonly digest: string | undefined
  readonly terms: ReadonlyArray<string>
}

export const failureFacts = (output: string): FailureFacts => {
  const signature = signatureOf(output)
  return { digest: failureDigest(signature), terms: failureTerms(signature) }
}

/**
 * What a failure's row keeps of its output: what it is recognised by (failureFacts) and its headline without
 * the closing period, as lessons and recalls tell it.
 */
export interface RecognisedFailure {
  readonly digest: string | null
  readonly terms: ReadonlyArray<string>
  readonly headline: string
}

export const recogniseFailure = (output: string): RecognisedFailure => {
  const { digest, terms } = failureFacts(output)
  return { digest: digest ?? null, terms, headline: failureHeadline(output).replace(/\.$/, "") }
}

/** Whether two failures are the same by their terms: most of them shared, and at least two. */
export const sameTerms = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  const shared = a.filter((t) => b.includes(t)).length
  const union = new Set([...a, ...b]).size
  return shared >= 2 && shared / union >= 0.5
}
