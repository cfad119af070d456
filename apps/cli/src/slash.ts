/**
 * `ralph-mem slash <command>`: runs a plugin slash command with the user's text exactly as typed.
 *
 * Claude Code pastes `$ARGUMENTS` into a command's shell step as raw text, so a shell parsed it: an
 * apostrophe (`Don't`) ended in "unexpected EOF", and `$`, backticks and parentheses were expanded, and
 * even a quoted heredoc breaks on a line equal to its delimiter or on three backticks (Claude Code's end
 * of a shell block). So the commands' shell steps carry no arguments at all. The UserPromptSubmit hook
 * runs before the shell step and records the prompt (`/ralph-mem:<command> <text>`, privacy-filtered like
 * everything recorded); this reads it back from the session's stream and splits it with quoting rules
 * that leave the text alone (see `splitArguments`), a free-text flag's value running to the next flag (see
 * `joinFreeTextValues`).
 */
import { lastPrompt } from "@ralph-mem/projections"
import { CliError } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withExistingStore } from "./command-memory.ts"
import { freeTextFlagIn } from "./flags.ts"

/** The plugin's commands (commands/<name>.md) and the CLI command each runs. */
const SLASH_COMMANDS: Readonly<Record<string, string>> = {
  "mem-search": "search",
  "mem-inject": "inject",
  "mem-forget": "forget",
  "mem-status": "status",
  decide: "decide",
  why: "why",
  belief: "belief",
  task: "task",
  resume: "resume",
  ralph: "ralph"
}

const QUOTES = new Set(["'", "\""])

/**
 * Splits a slash command's text into arguments. Spaces and tabs separate them (a newline stays inside
 * its argument, so a note keeps its lines). A quote groups words, as a shell's does, only where it opens
 * an argument or follows `=` (`--why "one unit"`, `custom="npm test"`) and its match closes the argument;
 * any other quote is text (`Don't`, `5'10"`). Nothing else is special: `$`, backticks, parentheses,
 * backslashes and `;` are text. Whitespace around the whole text (the newline or CRLF a prompt may end
 * with) belongs to no argument.
 */
export const splitArguments = (typed: string): Array<string> => {
  const text = typed.trim()
  const args: Array<string> = []
  let current = ""
  let started = false
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === " " || c === "\t") {
      if (started) args.push(current)
      current = ""
      started = false
      i++
      continue
    }
    if (QUOTES.has(c) && (!started || current.endsWith("="))) {
      const close = closingQuote(text, i)
      if (close !== undefined) {
        current += text.slice(i + 1, close)
        started = true
        i = close + 1
        continue
      }
    }
    current += c
    started = true
    i++
  }
  if (started) args.push(current)
  return args
}

/** The quote matching the one at `open` that ends an argument (followed by a space, a tab or the end). */
const closingQuote = (text: string, open: number): number | undefined => {
  for (let at = text.indexOf(text[open]!, open + 1); at !== -1; at = text.indexOf(text[open]!, at + 1)) {
    const next = text[at + 1]
    if (next === undefined || next === " " || next === "\t") return at
  }
  return undefined
}

/** What ends a free-text value: a long flag (`--impact`, `--why=x`), not `--` nor a word that starts with a dash. */
const isLongFlag = (arg: string): boolean => /^--[A-Za-z]/.test(arg)

/**
 * Joins the words after a free-text flag (flags.ts) into its value, up to the next long flag: people type
 * slash commands unquoted, and one word a value, a shell's rule, made `decide Use Postgres --why we need
 * concurrent writers` a rationale "we" and a decision "Use Postgres need concurrent writers". Words after a
 * quoted value join it too, as they would have joined it unquoted.
 */
export const joinFreeTextValues = (args: ReadonlyArray<string>): Array<string> => {
  const joined: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const flag = freeTextFlagIn(arg)
    if (flag === undefined) {
      joined.push(arg)
      continue
    }
    let end = i + 1
    while (end < args.length && !isLongFlag(args[end]!)) end++
    const words = args.slice(i + 1, end)
    if (flag.inlineValue !== undefined) joined.push([arg, ...words].join(" "))
    else joined.push(arg, ...(words.length === 0 ? [] : [words.join(" ")]))
    i = end - 1
  }
  return joined
}

const userError = (message: string) => new CliError.UserError({ cause: message, userMessage: message })

/** What the hook's trim (packages/hooks) leaves in a prompt longer than memory.max_prompt_chars. */
const CUT = /\n… \[\d+ characters cut\] …\n/

/** The arguments of the CLI command that slash command `name` runs, from the prompt that invoked it. */
export const slashArguments = (name: string | undefined) => {
  const command = name === undefined ? undefined : SLASH_COMMANDS[name]
  if (name === undefined || command === undefined) {
    return Effect.fail(userError(`slash: name one of the plugin's commands: ${Object.keys(SLASH_COMMANDS).join(", ")}`))
  }
  const sessionId = process.env["CLAUDE_CODE_SESSION_ID"] ?? ""
  const typeInstead = `run it in a terminal instead: ralph-mem ${command} ...`
  if (sessionId === "") {
    return Effect.fail(
      userError(`slash ${name} runs inside Claude Code (/ralph-mem:${name}), which names the session; ${typeInstead}`)
    )
  }
  return withExistingStore(Option.none(), ({ db }) => Effect.succeed(lastPrompt(db, sessionId))).pipe(
    Effect.flatMap((prompt) => {
      const invoked = prompt === undefined ? null : new RegExp(`^\\s*/(?:ralph-mem:)?${name}(?=\\s|$)`).exec(prompt)
      if (prompt === undefined || invoked === null) {
        return Effect.fail(userError(
          `could not read the text of /ralph-mem:${name}: the UserPromptSubmit hook did not record this prompt ` +
            `(ralph-mem doctor shows why); ${typeInstead}`
        ))
      }
      const text = prompt.slice(invoked[0].length)
      if (CUT.test(text)) {
        return Effect.fail(
          userError(`the text of /ralph-mem:${name} is longer than memory.max_prompt_chars allows; ${typeInstead}`)
        )
      }
      return Effect.succeed([command, ...joinFreeTextValues(splitArguments(text))])
    })
  )
}
