/** How every command finds and opens the memory: `--db`, then RALPH_MEM_DB, then the project's. */
import {
  adoptMemory,
  type DatabaseUnusable,
  findProjectRoot,
  inspectMemoryFolder,
  LATEST_SCHEMA_VERSION,
  memoryOriginProblem,
  newSqliteDatabase,
  openDatabase,
  refusedFolder,
  resolveDatabasePath
} from "@ralph-mem/events"
import { checkTrackedMemory, foldSpill, trackedRefusal } from "@ralph-mem/hooks"
import { acquireMemory, detectLostEvents, finishPendingErasure, type MemoryStore } from "@ralph-mem/projections"
import { CliError } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startGrowthProgress } from "./growth-watcher.ts"

export const databasePath = (db: Option.Option<string>): string =>
  resolveDatabasePath({
    cwd: process.cwd(),
    env: Option.isSome(db) ? { ...process.env, RALPH_MEM_DB: db.value } : process.env
  })

/**
 * Where the memory is, and whether it was chosen (`--db`, RALPH_MEM_DB) or found from a git repository.
 * The project's own memory folder is refused while git tracks files in it: git is asked each time (a command
 * may run in a clone no session has started in yet), and the answer kept for the hooks.
 */
const location = (db: Option.Option<string>) => {
  const chosen = Option.isSome(db) || (process.env["RALPH_MEM_DB"] ?? "") !== ""
  const root = findProjectRoot(process.cwd())
  const inGitRepository = existsSync(join(root, ".git"))
  const path = databasePath(db)
  const tracked = chosen ? undefined : checkTrackedMemory(root, path)
  const problem = tracked === undefined ? undefined : trackedRefusal(tracked, path)
  const refusal = problem === undefined ? undefined : refusedFolder(path, problem)
  return { path, outsideGit: !chosen && !inGitRepository, refusal }
}

const refuse = (refusal: DatabaseUnusable) =>
  Effect.fail(new CliError.UserError({ cause: refusal, userMessage: refusal.message }))

/** Outside a git repository, a folder's memory lives in that folder: how to put it elsewhere. */
const ELSEWHERE = "run this inside your project's git repository, or pass --db <file> / set RALPH_MEM_DB"

/**
 * Opens the store for the duration of `use`; any error of ours becomes a clear message and exit code 1.
 * A command that writes creates the memory when there is none, saying where when no git repository
 * decided it (a memory made by mistake in the wrong folder is found at once, not weeks later).
 */
export const withStore = <A, E extends { readonly message: string }>(
  db: Option.Option<string>,
  use: (memory: MemoryStore) => Effect.Effect<A, E>
) => {
  const { path, outsideGit, refusal } = location(db)
  if (refusal !== undefined) return refuse(refusal)
  const announce = outsideGit && !existsSync(path)
    ? Effect.sync(() =>
      process.stderr.write(`ralph-mem: not in a git repository: the memory is created at ${path} (${ELSEWHERE}).\n`)
    )
    : Effect.void
  return announce.pipe(
    Effect.andThen(Effect.scoped(Effect.flatMap(openWithProgress(path), (memory) =>
      // Lost events are recorded and what hooks could not record goes in first; a forget that a reader
      // kept from erasing its text is finished by the first process after the reader.
      Effect.andThen(Effect.andThen(detectLostEvents(memory), foldSpill(memory)), () => {
        finishPendingErasure(memory.db, memory.path)
        return use(memory)
      })))),
    Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: error.message }))
  )
}

/**
 * For commands that only read. With no memory yet they create none: they run on an empty one made aside
 * (so each prints its own "nothing yet", in its own format) and, outside a git repository, say where the
 * memory would live.
 */
export const withExistingStore = <A, E extends { readonly message: string }>(
  db: Option.Option<string>,
  use: (memory: MemoryStore) => Effect.Effect<A, E>
) => {
  const { path, outsideGit, refusal } = location(db)
  if (refusal !== undefined) return refuse(refusal)
  // A refused memory folder is said to be refused (by the open), never shown as an empty memory.
  if (existsSync(path) || inspectMemoryFolder(path).problem !== undefined) return withStore(db, use)
  const note = outsideGit
    ? Effect.sync(() =>
      process.stderr.write(
        `ralph-mem: No memory at ${path} yet: not in a git repository, ` +
          `where it would live in this folder (${ELSEWHERE}).\n`
      )
    )
    : Effect.void
  const aside = Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "ralph-mem-empty-"))),
    (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true }))
  )
  return note.pipe(
    Effect.andThen(Effect.scoped(
      Effect.flatMap(
        aside,
        (folder) =>
          Effect.flatMap(acquireMemory({ path: join(folder, "memory.db") }), (memory) => use({ ...memory, path }))
      )
    )),
    Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: error.message }))
  )
}

/**
 * Makes the memory the user's own (`ralph-mem adopt`, memory-origin.ts): a memory copied from another machine, or
 * one made before ralph-mem kept ids whose sessions Claude Code no longer holds. A folder refused for anything else
 * (files git tracks, a planted link) stays refused. Says whether it was the user's already.
 */
export const adoptStore = (db: Option.Option<string>) => {
  const { path, refusal } = location(db)
  if (refusal !== undefined) return refuse(refusal)
  if (!existsSync(path)) {
    return Effect.fail(new CliError.UserError({ cause: path, userMessage: `No memory at ${path}: nothing to adopt.` }))
  }
  return Effect.acquireUseRelease(
    openDatabase(path, { anyOrigin: true }),
    (connection) =>
      Effect.try({
        try: () => {
          // Asked first, so the answer says whether it was the user's already (or its transcripts proved it now).
          const already = memoryOriginProblem(connection, path) === undefined
          return { path, id: adoptMemory(connection, path), already }
        },
        catch: (error) => new Error(`cannot adopt ${path}: ${(error as Error).message}`)
      }),
    (connection) => Effect.sync(() => connection.close())
  ).pipe(Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: error.message })))
}

/** The schema a database file is at, or undefined for a new or unreadable one (the open will say why). */
const schemaOf = (path: string): number | undefined => {
  // Not even read: a read-only connection makes the WAL's companions in a folder that is refused.
  if (!existsSync(path) || inspectMemoryFolder(path).problem !== undefined) return undefined
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
