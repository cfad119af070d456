/** Test helpers: real SQLite files in fresh temporary folders, and Effect runners. */
import * as Effect from "effect/Effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach } from "vitest"
import { removeWhenSettled } from "../../../tests/support/remove.ts"
import {
  catalog,
  makeEventLog,
  type MakeEventLogOptions,
  openDatabase,
  type RalphMemEvent,
  redactedBy,
  redactStrings
} from "../src/index.ts"

const folders: Array<string> = []
const closers: Array<() => void> = []

afterEach(async () => {
  for (const close of closers.splice(0)) close()
  // A SessionEnd hook run in the folder started maintenance in the background, which may still be writing.
  for (const folder of folders.splice(0)) await removeWhenSettled(folder)
})

/** A fresh folder, removed after the test. */
export const tempFolder = (): string => {
  const folder = mkdtempSync(join(tmpdir(), "ralph-mem-test-"))
  folders.push(folder)
  return folder
}

/** better-sqlite3 as a child process requires it: a test's other process, which holds a lock or a read. */
export const BETTER_SQLITE3 = join(import.meta.dirname, "..", "..", "..", "node_modules", "better-sqlite3")

export const run = <A, E>(effect: Effect.Effect<A, E>): A => Effect.runSync(effect)

/** Runs an effect that must fail and returns its error. */
export const failure = <A, E>(effect: Effect.Effect<A, E>): E => Effect.runSync(Effect.flip(effect))

/** A log over a new database file, closed after the test. */
export const freshLog = (options: MakeEventLogOptions<RalphMemEvent> = {}, path = join(tempFolder(), "memory.db")) => {
  const db = run(openDatabase(path))
  closers.push(() => db.close())
  return { log: makeEventLog(db, catalog, { redacts: redactedBy, sanitize: redactStrings, ...options }), path, db }
}

export const started = (sessionId: string): RalphMemEvent => ({
  _tag: "SessionStarted",
  sessionId,
  projectPath: "/work/project",
  source: "startup"
})

export const observed = (sessionId: string, content: string): RalphMemEvent => ({
  _tag: "ObservationRecorded",
  sessionId,
  kind: "tool_use",
  toolName: "Bash",
  content,
  files: []
})
