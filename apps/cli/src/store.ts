/** How every command finds and opens the memory: `--db`, then RALPH_MEM_DB, then the project's. */
import { LATEST_SCHEMA_VERSION, newSqliteDatabase, resolveDatabasePath } from "@ralph-mem/events"
import { acquireMemory, type Memory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError } from "effect/cli"
import { existsSync, statSync } from "node:fs"
import { startGrowthProgress } from "./growth-watcher.ts"

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
  Effect.scoped(Effect.flatMap(openWithProgress(databasePath(db)), use)).pipe(
    Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: error.message }))
  )

/** The schema a database file is at, or undefined for a new or unreadable one (the open will say why). */
const schemaOf = (path: string): number | undefined => {
  if (!existsSync(path)) return undefined
  try {
    const db = newSqliteDatabase(path, { readonly: true, fileMustExist: true })
    try {
      return db.pragma("user_version", { simple: true }) as number
    } finally {
      db.close()
    }
  } catch {
    return undefined
  }
}

/**
 * Opens the memory; a database of an older schema is migrated first (a copy of the log, in one statement
 * per table), with its progress on stderr.
 */
const openWithProgress = (path: string) => {
  const schema = schemaOf(path)
  if (schema === undefined || schema === 0 || schema >= LATEST_SCHEMA_VERSION) return acquireMemory({ path })
  return Effect.suspend(() => {
    const watcher = startGrowthProgress({
      label: `migrating the memory to schema ${LATEST_SCHEMA_VERSION}`,
      files: [path, `${path}-wal`],
      expectedBytes: statSync(path).size
    })
    return acquireMemory({ path }).pipe(Effect.ensuring(Effect.sync(watcher.stop)))
  })
}
