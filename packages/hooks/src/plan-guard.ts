/**
 * The plan loop's guard: while a plan loop runs in a session, its tool calls may read but not change
 * anything. File edits are refused; a shell command passes only when every part of it is a known
 * read-only program (deny by default: anything unrecognised is treated as a change). Pure.
 */

/** Tools that write files. */
const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"])

/** Programs that only read, whatever their arguments (except the ones checked below). */
const READ_ONLY_PROGRAMS = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "tree",
  "pwd",
  "echo",
  "printf",
  "file",
  "stat",
  "du",
  "df",
  "which",
  "whereis",
  "type",
  "date",
  "whoami",
  "uname",
  "printenv",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "uniq",
  "cut",
  "tr",
  "diff",
  "cmp",
  "comm",
  "nl",
  "column",
  "jq",
  "cd",
  "true",
  "test",
  "["
])

/** Arguments that make an otherwise reading program write or run something. */
const WRITING_ARGUMENTS: Readonly<Record<string, RegExp>> = {
  find: /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/,
  sort: /^(-o|--output)/,
  sed: /^(-i|--in-place)/,
  tree: /^-o/,
  date: /^(-s|--set)/,
  file: /^(-C|--compile)$/
}

/** git subcommands that only read; a few more read only with no arguments that change things. */
const GIT_READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "ls-files",
  "ls-tree",
  "grep",
  "blame",
  "rev-parse",
  "describe",
  "shortlog",
  "cat-file",
  "rev-list",
  "reflog",
  "whatchanged",
  "name-rev",
  "merge-base",
  "show-ref",
  "for-each-ref"
])
const GIT_LISTING = new Set(["branch", "tag", "remote", "stash"])
const GIT_LISTING_ARGUMENTS = /^(-a|--all|-r|--remotes|-v|-vv|--verbose|-l|--list|--merged|--no-merged|--show-current)$/

type Parsed = { readonly segments: ReadonlyArray<ReadonlyArray<string>> } | { readonly refused: string }

/**
 * Splits a command line into simple commands (at `|`, `||`, `&&`, `;`, `&` and newlines), honouring quotes.
 * Output redirections (other than to /dev/null or another descriptor) and command substitution are refused.
 */
const parse = (line: string): Parsed => {
  const segments: Array<Array<string>> = []
  let words: Array<string> = []
  let word = ""
  let started = false
  let quote: "\"" | "'" | undefined
  const endWord = () => {
    if (started) words.push(word)
    word = ""
    started = false
  }
  const endSegment = () => {
    endWord()
    if (words.length > 0) segments.push(words)
    words = []
  }
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quote === "'") {
      if (ch === "'") quote = undefined
      else word += ch
      continue
    }
    if (ch === "`" || (ch === "$" && line[i + 1] === "(")) return { refused: "command substitution" }
    if (quote === "\"") {
      if (ch === "\"") quote = undefined
      else if (ch === "\\" && i + 1 < line.length) word += line[++i]
      else word += ch
      continue
    }
    if (ch === "'" || ch === "\"") {
      quote = ch
      started = true
    } else if (ch === "\\" && i + 1 < line.length) {
      word += line[++i]
      started = true
    } else if (ch === ">") {
      // `2>&1`, `>&2`, `> /dev/null`: nothing is written.
      const harmless = /^>?\s*(&\d|\/dev\/null)(?=[\s|;&]|$)/.exec(line.slice(i + 1))
      if (harmless === null) return { refused: "output redirection" }
      // The descriptor before it (`2>`) is part of the redirection, not a word.
      if (started && /^\d$/.test(word)) {
        word = ""
        started = false
      }
      i += harmless[0].length
    } else if (ch === "<" && line[i + 1] === "(") {
      return { refused: "process substitution" }
    } else if (ch === "|" || ch === ";" || ch === "&" || ch === "\n") {
      endSegment()
      if ((ch === "|" || ch === "&") && line[i + 1] === ch) i++
    } else if (/\s/.test(ch)) {
      endWord()
    } else {
      word += ch
      started = true
    }
  }
  if (quote !== undefined) return { refused: "an unclosed quote" }
  endSegment()
  return { segments }
}

const isReadOnlyGit = (args: ReadonlyArray<string>): boolean => {
  // Options before the subcommand (`git -C dir log`) are skipped; `-c key=value` could run anything.
  let i = 0
  while (i < args.length && args[i]!.startsWith("-")) {
    if (args[i] === "-c" || args[i]!.startsWith("--exec-path")) return false
    i += args[i] === "-C" ? 2 : 1
  }
  const sub = args[i]
  if (sub === undefined) return true
  if (GIT_READ_ONLY.has(sub)) return !args.slice(i + 1).some((a) => a === "--output" || a.startsWith("--output="))
  const rest = args.slice(i + 1)
  // `git stash` alone stashes; `git branch x` or `git tag x` creates: only listings pass.
  if (sub === "stash") return rest[0] === "list" || rest[0] === "show"
  return GIT_LISTING.has(sub) && rest.every((a) => GIT_LISTING_ARGUMENTS.test(a))
}

const isReadOnlySimple = (words: ReadonlyArray<string>): boolean => {
  const [program, ...args] = words
  if (program === undefined) return true
  // `FOO=1 cmd`: an assignment prefix could change what any program does.
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program)) return false
  const name = program.split("/").at(-1)!
  if (name === "git") return isReadOnlyGit(args)
  // `uniq in out` writes `out`.
  if (name === "uniq") return args.filter((a) => !a.startsWith("-")).length <= 1
  if (name === "sed") return args.includes("-n") && !args.some((a) => WRITING_ARGUMENTS["sed"]!.test(a))
  if (name in WRITING_ARGUMENTS) return !args.some((a) => WRITING_ARGUMENTS[name]!.test(a))
  return READ_ONLY_PROGRAMS.has(name)
}

/** Why a shell command is not read-only, or `undefined` when it is. */
const shellChange = (command: string): string | undefined => {
  const parsed = parse(command)
  if ("refused" in parsed) return `it uses ${parsed.refused}`
  const writer = parsed.segments.find((words) => !isReadOnlySimple(words))
  return writer === undefined ? undefined : `\`${writer.join(" ").slice(0, 80)}\` is not a known read-only command`
}

/** Why a plan loop refuses this tool call, or `undefined` when it may run. */
export const planGuard = (toolName: string, toolInput: unknown): string | undefined => {
  if (EDIT_TOOLS.has(toolName)) return `${toolName} edits files`
  if (toolName !== "Bash") return undefined
  const command = typeof toolInput === "object" && toolInput !== null
    ? (toolInput as Record<string, unknown>)["command"]
    : undefined
  if (typeof command !== "string") return "the shell command could not be read"
  const change = shellChange(command)
  return change === undefined ? undefined : `the shell command may change something: ${change}`
}

/** What the model reads when a call is refused. */
export const planGuardMessage = (loopId: string, refusal: string): string =>
  `Blocked by ralph-mem: plan loop ${loopId} is running in this session, so it writes a plan, not code (${refusal}). ` +
  "Read files and use read-only commands (ls, cat, grep, git log/diff/status) instead, " +
  "and put the plan in your reply. " +
  "The user can end the plan loop with /ralph-mem:ralph stop."
