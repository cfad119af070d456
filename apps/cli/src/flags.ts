/** Flags shared by many commands, and the parsing of their values. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError, Flag } from "effect/cli"

export const json = Flag.Boolean("json").pipe(Flag.withDescription("Print machine-readable JSON"), Flag.withDefault(false))

export const db = Flag.String("db").pipe(
  Flag.withDescription("The database file (default: $RALPH_MEM_DB, else <git root>/.ralph-mem/memory.db)"),
  Flag.optional
)

export const limit = Flag.Int("limit").pipe(Flag.withDescription("Show at most N entries"), Flag.optional)

export const since = Flag.String("since").pipe(
  Flag.withDescription("Only from this time on (ISO 8601, e.g. 2026-11-20 or 2026-11-20T09:30:00Z)"),
  Flag.optional
)

const userError = (message: string) => new CliError.UserError({ cause: message, userMessage: message })

/** An optional ISO 8601 time flag as epoch milliseconds; a malformed one is a clear error. */
export const parseTime = (flag: string, value: Option.Option<string>): Effect.Effect<number | undefined, CliError.UserError> => {
  if (Option.isNone(value)) return Effect.succeed(undefined)
  const ms = Date.parse(value.value)
  return Number.isNaN(ms)
    ? Effect.fail(userError(`--${flag} ${JSON.stringify(value.value)} is not a date; use ISO 8601, e.g. 2026-11-20T09:30:00Z`))
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
