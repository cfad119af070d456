/** `ralph-mem backup` and `ralph-mem doctor`: keeping the memory database healthy. */
import { compactLog, type CompactOptions, type CompactReport, openDatabase, type SqliteDatabase, storageError } from "@ralph-mem/events"
import {
  backupDue,
  isCorruption,
  listBackups,
  loadSettings,
  openMemory,
  passesIntegrityCheck,
  acknowledgeLosses,
  describeLoss,
  detectLostEvents,
  finishPendingErasure,
  pendingErasure,
  unacknowledgedLosses,
  recoverDatabase,
  replay,
  takeBackup,
  verify
} from "@ralph-mem/projections"
import { findProjectRoot } from "@ralph-mem/events"
import { failureLogPath, foldSpill, logFailure, spillPath, spillState } from "@ralph-mem/hooks"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { CliError, Command, Flag } from "effect/cli"
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import * as flags from "../flags.ts"
import { withGrowthProgress } from "../growth-watcher.ts"
import { printJson } from "../output.ts"
import { progress } from "../progress.ts"
import { databasePath, withStore } from "../store.ts"

export const backup = Command.make(
  "backup",
  {
    ifDue: Flag.Boolean("if-due").pipe(Flag.withDescription("Only when the last backup is older than backup.interval"), Flag.withDefault(false)),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, ({ db, path }) =>
      Effect.gen(function*() {
        const { settings } = loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env })
        if (input.ifDue && !backupDue(path, settings.backup.intervalMs)) {
          return yield* input.json ? printJson({ taken: false, reason: "not due" }) : Console.log("A recent backup exists; nothing to do.")
        }
        const taken = takeBackup(db, path, settings.backup.keep)
        if (input.json) return yield* printJson({ taken: true, path: taken, kept: listBackups(path).length })
        yield* Console.log(`Backed up to ${taken} (keeping the newest ${settings.backup.keep}).`)
      })
    )
).pipe(Command.withDescription("Take a backup of the memory database now (online, rotated)"))

/**
 * Packing as an Effect: a locked or damaged database is a clear message, not a stack trace. With `progress`
 * (compact, by hand) it shows how far it got; VACUUM rewrites every page in use through the WAL.
 */
const pack = (db: SqliteDatabase, options: CompactOptions & { readonly vacuum?: boolean; readonly progress?: boolean }) =>
  Effect.try({
    try: () => {
      const bar = options.progress === true ? progress({ label: "packing", unit: "streams" }) : undefined
      const report = compactLog(db, { ...options, ...(bar === undefined ? {} : { onProgress: bar.update }) })
      bar?.finish()
      if (options.vacuum === true) {
        const inUse = (db.pragma("page_count", { simple: true }) as number) - (db.pragma("freelist_count", { simple: true }) as number)
        const expectedBytes = inUse * (db.pragma("page_size", { simple: true }) as number)
        if (options.progress === true) withGrowthProgress({ label: "vacuuming", files: [db.name, `${db.name}-wal`], expectedBytes }, () => db.exec("VACUUM"))
        else db.exec("VACUUM")
      }
      return report
    },
    catch: (error) => storageError("pack the log", error)
  })

const describeCompaction = (report: CompactReport): string =>
  report.events === 0
    ? "Nothing to pack: every settled event already is."
    : `Packed ${report.events} events of ${report.streams} streams into ${report.blocks} blocks: ` +
      `${(report.payloadBytes / 1024).toFixed(0)} KiB of payloads now take ${(report.blockBytes / 1024).toFixed(0)} KiB.`

export const compact = Command.make(
  "compact",
  {
    idle: Flag.String("idle").pipe(
      Flag.withDescription("Leave streams that had an append in this time (0, 30m, 12h, 7d); default 0: pack every stream"),
      Flag.withDefault("0")
    ),
    vacuum: Flag.Boolean("vacuum").pipe(
      Flag.withDescription("Then rewrite the file so it shrinks (holds the write lock while it runs; without it the space is reused)"),
      Flag.withDefault(false)
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, ({ db }) =>
      Effect.gen(function*() {
        const idleMs = yield* flags.parseDuration("idle", input.idle)
        const report = yield* pack(db, { idleMs, vacuum: input.vacuum, progress: true })
        if (input.json) return yield* printJson({ ...report, vacuumed: input.vacuum })
        yield* Console.log(describeCompaction(report))
      })
    )
).pipe(Command.withDescription("Pack the payloads of settled streams into compressed blocks (what runs after each session)"))

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
    withStore(input.db, ({ db, path }) =>
      Effect.gen(function*() {
        const { settings } = loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env })
        const compaction = yield* pack(db, { idleMs: MAINTAIN_IDLE_MS })
        const backup = yield* Effect.try({
          try: () => (backupDue(path, settings.backup.intervalMs) ? takeBackup(db, path, settings.backup.keep) : null),
          catch: (error) => storageError("back up the database", error)
        })
        if (input.json) return yield* printJson({ compaction, backup })
        yield* Console.log(`${describeCompaction(compaction)}\n${backup === null ? "A recent backup exists." : `Backed up to ${backup}.`}`)
      })
    ).pipe(
      Effect.tapError((error) =>
        Effect.sync(() =>
          logFailure(failureLogPath(databasePath(input.db)), { time: new Date().toISOString(), hook: "maintain", reason: error.userMessage ?? error.message })
        )
      )
    )
).pipe(Command.withDescription("Pack streams idle for 10 minutes, then back up if due (runs after each session)"))

interface Check {
  readonly check: string
  readonly ok: boolean
  readonly detail: string
  readonly repaired?: string
}

const mode = (path: string) => statSync(path).mode & 0o777

export const doctor = Command.make(
  "doctor",
  {
    repair: Flag.Boolean("repair").pipe(Flag.withDescription("Fix what can be fixed: restore a damaged database, rebuild read models, tighten permissions"), Flag.withDefault(false)),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const path = databasePath(input.db)
      const checks: Array<Check> = []
      const add = (check: Check) => checks.push(check)
      if (!existsSync(path)) {
        add({ check: "database", ok: true, detail: `${path} does not exist yet (it is created on first use)` })
      } else {
        // Permissions: only the owner may read memory.
        for (const [what, target, wanted] of [["database file", path, 0o600], ["database folder", dirname(path), 0o700]] as const) {
          const actual = mode(target)
          const tooOpen = what === "database file" ? (actual & 0o077) !== 0 : (actual & 0o077) !== 0 && dirname(path).endsWith(".ralph-mem")
          if (tooOpen && input.repair) chmodSync(target, wanted)
          add({ check: what, ok: !tooOpen, detail: `mode ${actual.toString(8)}`, ...(tooOpen && input.repair ? { repaired: `set to ${wanted.toString(8)}` } : {}) })
        }
        // Can it be opened at all, and is it sound?
        const opened = yield* Effect.result(openDatabase(path))
        const damaged = opened._tag === "Failure" ? (isCorruption(opened.failure) ? opened.failure.message : undefined) : undefined
        if (opened._tag === "Success") opened.success.close()
        const sound = damaged === undefined && (opened._tag === "Failure" || passesIntegrityCheck(path))
        if (opened._tag === "Failure" && damaged === undefined) {
          add({ check: "database", ok: false, detail: opened.failure.message })
        } else if (!sound) {
          const reason = damaged ?? "integrity_check found damage"
          if (input.repair) {
            const recovery = yield* recoverDatabase(path, reason)
            const restored = recovery.backup === undefined
              ? `set aside at ${recovery.damagedCopy}; no backup, a new database was created`
              : `restored ${recovery.backup}; the damaged file is at ${recovery.damagedCopy}`
            const lost = recovery.unreadable ? `, ${recovery.unreadable} unreadable (lost)` : ""
            const repaired = `${restored}; ${recovery.salvaged ?? 0} later event(s) read back${lost}`
            add({ check: "database", ok: false, detail: reason, repaired })
          } else add({ check: "database", ok: false, detail: `${reason} (run ralph-mem doctor --repair)` })
        } else {
          add({ check: "database", ok: true, detail: "integrity check passed" })
        }
        // The read models against the log, whenever the database (as found, or as repaired) opens.
        const memory = yield* Effect.result(openMemory({ path }))
        if (memory._tag === "Success") {
          try {
            yield* detectLostEvents(memory.success)
            yield* foldSpill(memory.success)
            finishPendingErasure(memory.success.db, path)
            const losses = unacknowledgedLosses(memory.success.db)
            if (losses.length > 0) {
              const detail = losses.map(describeLoss).join("; ")
              if (input.repair) {
                yield* acknowledgeLosses(memory.success, losses)
                const repaired =
                  "acknowledged (lost events cannot be brought back; damaged copies stay in damaged/ until a forget)"
                add({ check: "lost events", ok: false, detail, repaired })
              } else {
                const hint = "(run ralph-mem doctor --repair to acknowledge)"
                add({ check: "lost events", ok: false, detail: `${detail} ${hint}` })
              }
            }
            const verified = yield* verify(memory.success)
            // Losses are reported above, once.
            const findings = verified.findings.filter((f) => f.check !== "no events known to be missing")
            const report = { ...verified, findings, ok: findings.length === 0 }
            if (!report.ok && input.repair) {
              yield* replay(memory.success)
              const again = yield* verify(memory.success)
              add({ check: "read models and log", ok: again.ok, detail: report.findings.map((f) => f.detail).join("; "), repaired: again.ok ? "rebuilt from the log" : "a replay did not fix it" })
            } else {
              add({ check: "read models and log", ok: report.ok, detail: report.ok ? `${report.events} events verified` : report.findings.map((f) => f.detail).join("; ") })
            }
          } finally {
            memory.success.db.close()
          }
        }
      }
      const spilled = yield* Effect.try({
        try: () => spillState(path),
        catch: (error) => storageError("read the spill file", error)
      })
      const waiting = spilled.kept + spilled.counted + spilled.unreadable
      if (waiting > 0) {
        add({
          check: "hooks that could not record",
          ok: false,
          detail: `${waiting} hook call(s) could not write to the database (busy, or the disk full) ` +
            `and wait in ${spillPath(path)}: ${spilled.kept} with their events, ${spilled.counted} counted only` +
            `${spilled.unreadable > 0 ? `, ${spilled.unreadable} unreadable` : ""}; ` +
            "the next process that can write records them"
        })
      }
      const erasure = pendingErasure(path)
      if (erasure !== undefined) {
        add({
          check: "forget",
          ok: false,
          detail: `the text forgotten at ${erasure.since} is still in the file: ` +
            "another process is reading the database; " +
            "the next hook or command erases it once it lets go"
        })
      }
      // A backups folder that cannot be read (not a folder, no permission) is a finding, not a crash.
      const backups = yield* Effect.result(
        Effect.try({ try: () => listBackups(path), catch: (error) => (error instanceof Error ? error.message : String(error)) })
      )
      if (Result.isFailure(backups)) {
        add({ check: "backups", ok: false, detail: `cannot read the backups: ${backups.failure}` })
      } else {
        const newest = backups.success[0]
        add({
          check: "backups",
          ok: newest === undefined || passesIntegrityCheck(newest.path),
          detail: newest === undefined ? "none yet (one is taken after each session, at most once per backup.interval)" : `${backups.success.length}, newest ${new Date(newest.takenAt).toISOString()}`
        })
      }
      const log = join(dirname(path), "hooks.log")
      const since = Date.now() - 86_400_000
      const recent = existsSync(log)
        ? readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l) as { time: string; reason: string } } catch { return undefined } }).filter((e) => e !== undefined && Date.parse(e.time) >= since)
        : []
      // History, not a current problem: every one of these was handled (failed open, or recovered).
      add({ check: "hook failures (24 h)", ok: true, detail: recent.length === 0 ? "none" : `${recent.length} (see ${log}), last: ${recent.at(-1)!.reason}` })
      const problems = checks.filter((c) => !c.ok && c.repaired === undefined)
      if (input.json) yield* printJson({ database: path, ok: problems.length === 0, checks })
      else {
        for (const c of checks) yield* Console.log(`${c.ok ? "ok  " : c.repaired ? "FIXED" : "FAIL"}  ${c.check}: ${c.detail}${c.repaired ? ` -> ${c.repaired}` : ""}`)
      }
      if (problems.length > 0) return yield* flags.failWith(`doctor found ${problems.length} problem(s)${input.repair ? " it could not repair" : "; run ralph-mem doctor --repair"}`)
    }).pipe(
      // Whatever stops the doctor (an event the log cannot decode, a disk error) is a message, not a crash.
      Effect.mapError((error) => (error instanceof CliError.UserError ? error : new CliError.UserError({ cause: error, userMessage: `doctor could not finish: ${error.message}` })))
    )
).pipe(Command.withDescription("Check the database, its permissions, backups and hooks; --repair restores or rebuilds what is damaged"))
