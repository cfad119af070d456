/** `ralph-mem backup` and `ralph-mem doctor`: keeping the memory database healthy. */
import {
  compactLog,
  type CompactOptions,
  type CompactReport,
  failureLogPath,
  findProjectRoot,
  MAINTENANCE_UNPACKED_STREAMS,
  removeAbandonedBuilds,
  type SqliteDatabase,
  storageError
} from "@ralph-mem/events"
import { diagnose, logFailure, resummarizeSessions } from "@ralph-mem/hooks"
import { backupDue, type IndexMergeReport, listBackups, mergeFullTextIndexes, takeBackup } from "@ralph-mem/projections"
import { loadSettings } from "@ralph-mem/settings"
import { CliError, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { databasePath, withStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { withGrowthProgress } from "../growth-watcher.ts"
import { inert, printJson } from "../output.ts"
import { progress } from "../progress.ts"

export const backup = Command.make(
  "backup",
  {
    ifDue: Flag.Boolean("if-due").pipe(
      Flag.withDescription("Only when the last backup is older than backup.interval"),
      Flag.withDefault(false)
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, ({ db, path }) =>
      Effect.gen(function*() {
        const { settings } = loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env })
        if (input.ifDue && !backupDue(path, settings.backup.intervalMs)) {
          return yield* input.json
            ? printJson({ taken: false, reason: "not due" })
            : Console.log("A recent backup exists; nothing to do.")
        }
        const taken = takeBackup(db, path, settings.backup.keep)
        if (input.json) return yield* printJson({ taken: true, path: taken, kept: listBackups(path).length })
        yield* Console.log(`Backed up to ${taken} (keeping the newest ${settings.backup.keep}).`)
      }))
).pipe(Command.withDescription("Take a backup of the memory database now (online, rotated)"))

/**
 * Packing, then merging the full-text indexes' segments (index-merge.ts), as an Effect: a locked or damaged
 * database is a clear message, not a stack trace. With `progress` (compact, by hand) it shows how far it got;
 * VACUUM rewrites every page in use through the WAL.
 */
const pack = (
  db: SqliteDatabase,
  options: CompactOptions & { readonly vacuum?: boolean; readonly progress?: boolean }
) =>
  Effect.try({
    try: () => {
      const bar = options.progress === true ? progress({ label: "packing", unit: "streams" }) : undefined
      const compaction = compactLog(db, { ...options, ...(bar === undefined ? {} : { onProgress: bar.update }) })
      bar?.finish()
      const indexes = mergeFullTextIndexes(db)
      if (options.vacuum === true) {
        const inUse = (db.pragma("page_count", { simple: true }) as number) -
          (db.pragma("freelist_count", { simple: true }) as number)
        const expectedBytes = inUse * (db.pragma("page_size", { simple: true }) as number)
        if (options.progress === true) {
          withGrowthProgress(
            { label: "vacuuming", files: [db.name, `${db.name}-wal`], expectedBytes },
            () => db.exec("VACUUM")
          )
        } else db.exec("VACUUM")
      }
      return { compaction, indexes }
    },
    catch: (error) => storageError("pack the log", error)
  })

const describeCompaction = (report: CompactReport, indexes: IndexMergeReport): string =>
  (report.events === 0
    ? "Nothing to pack: every settled event already is."
    : `Packed ${report.events} events of ${report.streams} streams into ${report.blocks} blocks: ` +
      `${(report.payloadBytes / 1024).toFixed(0)} KiB of payloads now take ${
        (report.blockBytes / 1024).toFixed(0)
      } KiB.`) +
  (indexes.merged.length === 0 ? "" : ` Merged the segments of ${indexes.merged.join(", ")}.`)

export const compact = Command.make(
  "compact",
  {
    idle: Flag.String("idle").pipe(
      Flag.withDescription(
        "Leave streams that had an append in this time (0, 30m, 12h, 7d); default 0: pack every stream"
      ),
      Flag.withDefault("0")
    ),
    vacuum: Flag.Boolean("vacuum").pipe(
      Flag.withDescription(
        "Then rewrite the file so it shrinks (holds the write lock while it runs; without it the space is reused)"
      ),
      Flag.withDefault(false)
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, ({ db }) =>
      Effect.gen(function*() {
        const idleMs = yield* flags.parseDuration("idle", input.idle)
        const { compaction, indexes } = yield* pack(db, { idleMs, vacuum: input.vacuum, progress: true })
        if (input.json) return yield* printJson({ ...compaction, indexes, vacuumed: input.vacuum })
        yield* Console.log(describeCompaction(compaction, indexes))
      }))
).pipe(
  Command.withDescription(
    "Pack the payloads of settled streams into compressed blocks and merge the full-text indexes' segments " +
      "(what runs after each session)"
  )
)

/** A stream idle this long is settled: its session has ended or moved on. */
const MAINTAIN_IDLE_MS = 10 * 60_000

/**
 * What runs in the background after a session ends: packing what has settled, then a backup when one is
 * due. Started detached, with nowhere to print, so a failure also goes where hook failures go (hooks.log,
 * which `doctor` reports).
 */
export const maintain = Command.make(
  "maintain",
  { db: flags.db, json: flags.json },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const { db, path } = memory
        const { settings } = loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env })
        // Sessions an older summariser summarised get a new summary first, so it is packed with them.
        const summaries = yield* resummarizeSessions(memory, { home: process.env["HOME"], writer: "maintain" })
        const { compaction, indexes } = yield* pack(db, {
          idleMs: MAINTAIN_IDLE_MS,
          keepNewestStreams: MAINTENANCE_UNPACKED_STREAMS
        })
        const backup = yield* Effect.try({
          try: () => (backupDue(path, settings.backup.intervalMs) ? takeBackup(db, path, settings.backup.keep) : null),
          catch: (error) => storageError("back up the database", error)
        })
        // New databases that processes which died while building them left beside this one.
        const abandonedBuilds = removeAbandonedBuilds(path)
        if (input.json) return yield* printJson({ summaries, compaction, indexes, backup, abandonedBuilds })
        yield* Console.log([
          ...(summaries.summarized === 0
            ? []
            : [`Summarised ${summaries.summarized} session(s) again with ${summaries.summarizer}.`]),
          describeCompaction(compaction, indexes),
          backup === null ? "A recent backup exists." : `Backed up to ${backup}.`,
          ...(abandonedBuilds === 0 ? [] : [`Removed ${abandonedBuilds} file(s) of a new database left half-built.`])
        ].join("\n"))
      })).pipe(
        Effect.tapError((error) =>
          Effect.sync(() =>
            logFailure(failureLogPath(databasePath(input.db)), {
              time: new Date().toISOString(),
              hook: "maintain",
              reason: error.userMessage ?? error.message
            })
          )
        )
      )
).pipe(
  Command.withDescription(
    "Summarise again sessions an older summariser summarised, pack streams idle for 10 minutes (but the 20 " +
      "newest), merge the full-text indexes' segments, then back up if due (runs after each session)"
  )
)

export const doctor = Command.make(
  "doctor",
  {
    repair: Flag.Boolean("repair").pipe(
      Flag.withDescription(
        "Fix what can be fixed: restore a damaged database, rebuild read models, tighten permissions"
      ),
      Flag.withDefault(false)
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const path = databasePath(input.db)
      const bar = progress({ label: "verifying", unit: "checks" })
      const { checks, folderRefused } = yield* diagnose(path, {
        repair: input.repair,
        projectRoot: findProjectRoot(process.cwd()),
        env: process.env,
        onVerifyProgress: bar.update
      })
      bar.finish()
      if (folderRefused) {
        if (input.json) yield* printJson({ database: path, ok: false, checks })
        else yield* Console.log(inert(`FAIL  memory folder: ${checks[0]!.detail}`))
        return yield* flags.failWith("doctor found 1 problem: the memory folder is refused (see above)")
      }
      const problems = checks.filter((c) => !c.ok && c.repaired === undefined)
      if (input.json) yield* printJson({ database: path, ok: problems.length === 0, checks })
      else {
        for (const c of checks) {
          const label = c.note === true ? "NOTE" : c.ok ? "ok  " : c.repaired ? "FIXED" : "FAIL"
          // A detail may quote what came with the project's files (a hooks.log line, a file's name).
          yield* Console.log(inert(`${label}  ${c.check}: ${c.detail}${c.repaired ? ` -> ${c.repaired}` : ""}`))
        }
      }
      if (problems.length > 0) {
        return yield* flags.failWith(
          `doctor found ${problems.length} problem(s)${
            input.repair ? " it could not repair" : "; run ralph-mem doctor --repair"
          }`
        )
      }
    }).pipe(
      // Whatever stops the doctor (an event the log cannot decode, a disk error) is a message, not a crash.
      Effect.mapError((error) => (error instanceof CliError.UserError
        ? error
        : new CliError.UserError({ cause: error, userMessage: `doctor could not finish: ${error.message}` }))
      )
    )
).pipe(
  Command.withDescription(
    "Check the database, its permissions, backups and hooks; --repair restores or rebuilds what is damaged"
  )
)
