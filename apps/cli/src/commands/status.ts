/** `ralph-mem status`: what the memory database holds, and how the hooks are doing. */
import { findProjectRoot, isProjectDatabase, LATEST_SCHEMA_VERSION, type SqliteDatabase } from "@ralph-mem/events"
import { spillPath, spillState } from "@ralph-mem/hooks"
import {
  hookInvocations,
  lastInjection,
  listBackups,
  logCounts,
  observationCountsByType,
  pendingErasure,
  runningLoops,
  sessionCount,
  sessionsRecordedElsewhere
} from "@ralph-mem/projections"
import { loadSettings } from "@ralph-mem/settings"
import { Command } from "effect/cli"
import * as Effect from "effect/Effect"
import { existsSync, statSync } from "node:fs"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printFields, printJson } from "../output.ts"

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0)

/** Hook invocations, counting those still in the spill file as failures: they are not recorded yet. */
const hookStats = (db: SqliteDatabase, spilled: number) => {
  const { succeeded, failures } = hookInvocations(db)
  const invocations = succeeded + failures + spilled
  const successRate = invocations === 0 ? 1 : succeeded / invocations
  return { invocations, failures: failures + spilled, notYetRecorded: spilled, successRate }
}

const latestInjection = (db: SqliteDatabase) => {
  const row = lastInjection(db)
  return row === undefined ? null : { ...row, at: new Date(row.at).toISOString() }
}

const configFindings = (projectRoot: string): ReadonlyArray<string> => {
  const { untrusted, problems } = loadSettings({ projectRoot, env: process.env })
  return [...untrusted, ...problems]
}

/** The project's own memory's sessions recorded at other roots: the project moved, and searches do not see them. */
const recordedElsewhere = (db: SqliteDatabase, path: string, projectRoot: string) =>
  isProjectDatabase(path, projectRoot)
    ? sessionsRecordedElsewhere(db, projectRoot).map((root) => ({
      ...root,
      lastStartedAt: new Date(root.lastStartedAt).toISOString()
    }))
    : []

export const status = Command.make(
  "status",
  { db: flags.db, json: flags.json },
  ({ db, json }) =>
    withExistingStore(db, ({ log, db: sqlite, path }) =>
      Effect.gen(function*() {
        const head = yield* log.headPosition
        const counts = logCounts(sqlite)
        const sessions = sessionCount(sqlite)
        const spilled = spillState(path)
        const projectRoot = findProjectRoot(process.cwd())
        const report = {
          database: path,
          sizeBytes: fileSize(path) + fileSize(`${path}-wal`),
          schemaVersion: LATEST_SCHEMA_VERSION,
          events: counts.events,
          streams: counts.streams,
          sessions,
          headPosition: head,
          observations: observationCountsByType(sqlite),
          lastInjection: latestInjection(sqlite),
          activeLoops: runningLoops(sqlite),
          lastBackup: listBackups(path)[0] === undefined ? null : new Date(listBackups(path)[0]!.takenAt).toISOString(),
          hooks: hookStats(sqlite, spilled.kept + spilled.counted + spilled.unreadable),
          /** Since when a forget's text waits to be erased from the file (a reader held it), or null. */
          erasurePendingSince: pendingErasure(path)?.since ?? null,
          // Settings ignored: commands in a project's file not accepted yet (`config trust`), invalid values.
          config: configFindings(projectRoot),
          // Sessions of the project's own memory recorded at another root (it moved): its searches miss them.
          recordedElsewhere: recordedElsewhere(sqlite, path, projectRoot)
        }
        if (json) return yield* printJson(report)
        yield* printFields([
          ["database", report.database],
          ["size", `${report.sizeBytes} bytes`],
          ["schema version", report.schemaVersion],
          ["events", report.events],
          ["streams", report.streams],
          ["sessions", report.sessions],
          ["head position", report.headPosition],
          [
            "observations",
            Object.entries(report.observations).map(([type, n]) => `${n} ${type}`).join(", ") || "none"
          ],
          [
            "last injection",
            report.lastInjection === null
              ? "never"
              : `${report.lastInjection.at}, ${report.lastInjection.hook}, ` +
                `~${report.lastInjection.tokens} tokens from ${report.lastInjection.sources} memories`
          ],
          [
            "active loops",
            report.activeLoops.map((l) => `${l.goal} (iteration ${l.iterations}/${l.maxIterations})`).join("; ") ||
            "none"
          ],
          ["last backup", report.lastBackup ?? "never"],
          [
            "hooks",
            `${report.hooks.invocations} invocations, ${report.hooks.failures} failed ` +
            `(${(report.hooks.successRate * 100).toFixed(1)}% ok)` +
            (report.hooks.notYetRecorded === 0
              ? ""
              : `; ${report.hooks.notYetRecorded} could not record and wait in ${spillPath(path)} ` +
                "(the next process that can write records them)")
          ],
          ...(report.erasurePendingSince === null ? [] : [
            [
              "forget",
              `NOT YET ERASED: the text forgotten at ${report.erasurePendingSince} ` +
              "is still in the file while another " +
              "process reads it; the next hook or command erases it"
            ] as const
          ]),
          ["config", report.config.length === 0 ? "ok" : report.config.join("\n")],
          ...report.recordedElsewhere.map((root) =>
            [
              "recorded elsewhere",
              `${root.sessions} session(s) at ${root.projectPath}, which this project's searches do not see ` +
              "(the project moved? ralph-mem doctor says more)"
            ] as const
          )
        ])
      }))
).pipe(Command.withDescription("Show what the memory database holds, and how the hooks are doing"))
