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

export const since = Flag.String("since").pipe(
  Flag.withDescription("Only from this time on: ISO 8601 (2026-11-20, 2026-11-20T09:30:00Z) or an age (30m, 12h, 7d)"),
  Flag.optional
)

export const allProjects = Flag.Boolean("all-projects").pipe(
  Flag.withDescription("Search every project in the database, not only the current one"),
  Flag.withDefault(false)
)

const userError = (message: string) => new CliError.UserError({ cause: message, userMessage: message })

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

export const failWith = (message: string) => Effect.fail(userError(message))

export const task = Flag.String("task").pipe(
  Flag.withDescription("The task (default: the current one, i.e. the open task changed last)"),
  Flag.optional
)
