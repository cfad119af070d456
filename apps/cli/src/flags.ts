/** Flags shared by many commands, and the parsing of their values. */
import { DURATION_EXAMPLES, parseDuration as parseDurationText } from "@ralph-mem/settings"
import { CliError, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { pointInTime } from "./time.ts"

export const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print machine-readable JSON"),
  Flag.withDefault(false)
)

export const db = Flag.String("db").pipe(
  Flag.withDescription("The database file (default: $RALPH_MEM_DB, else <git root>/.ralph-mem/memory.db)"),
  Flag.optional
)

export const limit = Flag.Int("limit").pipe(Flag.withDescription("Show at most N entries"), Flag.optional)

/** How many entries a listing of the whole memory (timeline, audit) shows unless asked for more: a screenful. */
export const LISTING_DEFAULT = 50

/** A listing's `--limit`: which entries it keeps, by default `LISTING_DEFAULT` of them. */
export const listingLimit = (keeps: string) =>
  Flag.Int("limit").pipe(
    Flag.withDescription(`Show ${keeps} (default ${LISTING_DEFAULT}; --json: all unless --limit)`),
    Flag.optional
  )

export const all = Flag.Boolean("all").pipe(
  Flag.withDescription(`Show every entry, not only ${LISTING_DEFAULT}`),
  Flag.withDefault(false)
)

export const since = Flag.String("since").pipe(
  Flag.withDescription("Only from this time on: ISO 8601 (2026-11-20, 2026-11-20T09:30:00Z) or an age (30m, 12h, 7d)"),
  Flag.optional
)

export const allProjects = Flag.Boolean("all-projects").pipe(
  Flag.withDescription("Search every project in the database, not only the current one"),
  Flag.withDefault(false)
)

const userError = (message: string) => new CliError.UserError({ cause: message, userMessage: message })

/**
 * The flags whose value is text of any length (a rationale, a command line, a search) rather than one word (an
 * id, a path, a date, a number, a choice). Typed unquoted after a slash command, such a value runs to the next
 * `--flag` (slash.ts); from a shell, which has already split it, words after its value are refused
 * (`refuseWordsAfterFreeText`) rather than silently joined to the command's own text.
 */
const FREE_TEXT_FLAGS = [
  "why",
  "alternative",
  "criteria",
  "query",
  "reason",
  "marker",
  "required-sections",
  "agent"
] as const

/** A flag whose value is text of any length (see `FREE_TEXT_FLAGS`). */
export const freeText = (name: (typeof FREE_TEXT_FLAGS)[number]) => Flag.String(name)

/** The free-text flag an argument names, as `--why` or `--why=<value>`, with the value it carries. */
export const freeTextFlagIn = (arg: string): { readonly name: string; readonly inlineValue?: string } | undefined => {
  const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg)
  if (match === null || !(FREE_TEXT_FLAGS as ReadonlyArray<string>).includes(match[1]!)) return undefined
  return match[2] === undefined ? { name: match[1]! } : { name: match[1]!, inlineValue: match[2] }
}

/**
 * The command line as a shell split it, unless words follow a free-text flag's value (`decide Use SQLite --why
 * because it is simple`): effect/cli would take "because" as the rationale and join "it is simple" to the
 * decision, so the user is told to quote instead. Arguments after `--` are operands, left alone.
 */
export const refuseWordsAfterFreeText = (
  args: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, CliError.UserError> => {
  const end = args.indexOf("--")
  const options = end === -1 ? args : args.slice(0, end)
  for (let i = 0; i < options.length; i++) {
    const flag = freeTextFlagIn(options[i]!)
    if (flag === undefined) continue
    const valueAt = flag.inlineValue === undefined ? i + 1 : i
    const value = flag.inlineValue ?? options[valueAt]
    if (value === undefined || (flag.inlineValue === undefined && value.startsWith("-"))) continue
    let after = valueAt + 1
    while (after < options.length && !options[after]!.startsWith("-")) after++
    const stray = options.slice(valueAt + 1, after)
    if (stray.length === 0) continue
    return Effect.fail(userError(
      `the words ${JSON.stringify(stray.join(" "))} follow the value of --${flag.name}, which is one argument: ` +
        `quote a value of several words (--${flag.name} ${JSON.stringify([value, ...stray].join(" "))}), ` +
        `and give the command's own words before its flags`
    ))
  }
  return Effect.succeed(args)
}

/** A duration flag (`0`, `90s`, `30m`, `12h`, `7d`, `2w`, `1h30m`: the config files' grammar) in milliseconds. */
export const parseDuration = (flag: string, value: string): Effect.Effect<number, CliError.UserError> => {
  const ms = parseDurationText(value.trim())
  return ms === undefined
    ? Effect.fail(userError(`--${flag} ${JSON.stringify(value)} is not a duration; use 0, ${DURATION_EXAMPLES}`))
    : Effect.succeed(ms)
}

/**
 * An optional time flag as epoch milliseconds: ISO 8601, or an age back from now (`7d`); malformed is a clear
 * error.
 */
export const parseTime = (
  flag: string,
  value: Option.Option<string>,
  now = Date.now()
): Effect.Effect<number | undefined, CliError.UserError> => {
  if (Option.isNone(value)) return Effect.succeed(undefined)
  const ms = pointInTime(value.value, now)
  return ms === undefined
    ? Effect.fail(userError(
      `--${flag} ${JSON.stringify(value.value)} is not a date; ` +
        `use ISO 8601 (2026-11-20T09:30:00Z) or an age (${DURATION_EXAMPLES})`
    ))
    : Effect.succeed(ms)
}

/** An optional positive limit; zero or negative is a clear error. */
export const parseLimit = (value: Option.Option<number>): Effect.Effect<number | undefined, CliError.UserError> =>
  Option.isNone(value)
    ? Effect.succeed(undefined)
    : value.value > 0
    ? Effect.succeed(value.value)
    : Effect.fail(userError(`--limit must be a positive whole number, got ${value.value}`))

/**
 * How many entries a listing shows (undefined: all): `--limit`, else every one with `--all` or `--json` (a program
 * asked; it gets all it asked for, never cut short without a word), else `LISTING_DEFAULT`.
 */
export const parseListingLimit = (
  value: Option.Option<number>,
  options: { readonly all: boolean; readonly json: boolean }
): Effect.Effect<number | undefined, CliError.UserError> => {
  if (options.all && Option.isSome(value)) {
    return Effect.fail(
      userError("--limit and --all do not go together: give --limit N for N entries, --all for every one")
    )
  }
  if (Option.isSome(value)) return parseLimit(value)
  return Effect.succeed(options.all || options.json ? undefined : LISTING_DEFAULT)
}

export const failWith = (message: string) => Effect.fail(userError(message))

/** Runs `run`, failing with its error's message when it throws one of `kind` (anything else is a defect, as before). */
export const failingWith = <A>(kind: new(...args: Array<never>) => Error, run: () => A) =>
  Effect.try({ try: run, catch: (error) => error }).pipe(
    Effect.catch((error) => (error instanceof kind ? failWith(error.message) : Effect.die(error)))
  )

export const task = Flag.String("task").pipe(
  Flag.withDescription("The task (default: the current one, i.e. the open task changed last)"),
  Flag.optional
)
