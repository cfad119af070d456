/** How every command finds and opens the event store: `--db`, then RALPH_MEM_DB, then the project's. */
import { acquireEventStore, resolveDatabasePath } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError } from "effect/cli"

export const databasePath = (db: Option.Option<string>): string =>
  resolveDatabasePath({
    cwd: process.cwd(),
    env: Option.isSome(db) ? { ...process.env, RALPH_MEM_DB: db.value } : process.env
  })

/** Opens the store for the duration of `use`; any error of ours becomes a clear message and exit code 1. */
export const withStore = <A, E extends { readonly message: string }>(
  db: Option.Option<string>,
  use: (store: Effect.Success<ReturnType<typeof acquireEventStore>>, path: string) => Effect.Effect<A, E>
) => {
  const path = databasePath(db)
  return Effect.scoped(Effect.flatMap(acquireEventStore({ path }), (store) => use(store, path))).pipe(
    Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: error.message }))
  )
}
