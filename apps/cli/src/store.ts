/** How every command finds and opens the memory: `--db`, then RALPH_MEM_DB, then the project's. */
import { resolveDatabasePath } from "@ralph-mem/events"
import { foldSpill } from "@ralph-mem/hooks"
import { acquireMemory, detectLostEvents, finishPendingErasure, type Memory } from "@ralph-mem/projections"
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
  use: (memory: Memory) => Effect.Effect<A, E>
) =>
  Effect.scoped(Effect.flatMap(acquireMemory({ path: databasePath(db) }), (memory) =>
    // Lost events are recorded and what hooks could not record goes in first; a forget that a reader
    // kept from erasing its text is finished by the first process after the reader.
    Effect.andThen(Effect.andThen(detectLostEvents(memory), foldSpill(memory)), () => {
      finishPendingErasure(memory.db, memory.path)
      return use(memory)
    }))).pipe(
    Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: error.message }))
  )
