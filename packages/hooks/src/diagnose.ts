/**
 * The health of a memory database, as the findings `ralph-mem doctor` prints: file permissions, whether it
 * opens and passes SQLite's integrity check, lost events, read models against the log, hook calls waiting
 * in the spill file, a pending erasure, backups, ignored settings and recent hook failures. It lives here,
 * above projections, because hooks own the spill file and hooks.log. With `repair`, what can be fixed is
 * (modes tightened, a damaged file restored from a backup, losses acknowledged, read models rebuilt).
 */
import {
  canWriteDatabase,
  ensureFolder,
  headMarkPath,
  inspectMemoryFolder,
  isProjectDatabase,
  MEMORY_FOLDER,
  memoryIdOf,
  openDatabase,
  readOwnHeadMark,
  type SqliteDatabase,
  storageError,
  tightenFile
} from "@ralph-mem/events"
import {
  acknowledgeLosses,
  describeLoss,
  detectLostEvents,
  finishPendingErasure,
  isCorruption,
  listBackups,
  mayBeMemory,
  NotAMemory,
  openMemory,
  passesIntegrityCheck,
  pendingErasure,
  recoverDatabase,
  replay,
  sessionsRecordedElsewhere,
  unacknowledgedLosses,
  verify,
  type VerifyOptions
} from "@ralph-mem/projections"
import { loadSettings } from "@ralph-mem/settings"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { existsSync, statSync } from "node:fs"
import { basename, dirname } from "node:path"
import { recentHookFailures } from "./failure-log.ts"
import { checkTrackedMemory, trackedRefusal } from "./git-tracked.ts"
import { foldSpill, spillPath, spillState } from "./spill.ts"

/** One check: a failed one carries what was repaired, when something was. */
export interface HealthCheck {
  readonly check: string
  readonly ok: boolean
  readonly detail: string
  readonly repaired?: string
  /** Worth knowing, not a fault: a setting ignored until the user accepts the project's config file. */
  readonly note?: boolean
}

export interface Diagnosis {
  readonly checks: ReadonlyArray<HealthCheck>
  /** The memory folder is refused (a planted link, another user's file): nothing else was looked at. */
  readonly folderRefused: boolean
}

const mode = (path: string) => statSync(path).mode & 0o777

export interface DiagnoseOptions {
  readonly repair: boolean
  /** Whose settings to check (ignored ones are noted). */
  readonly projectRoot: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Told as the read models are verified against the log (`verify`'s checks): seconds on a large memory. */
  readonly onVerifyProgress?: VerifyOptions["onProgress"]
}

/** How many of the other roots a note names. */
const ROOTS_NAMED = 3

/**
 * A project's own memory whose sessions were recorded at another root: the project (and its memory folder) was moved
 * or renamed. Everything reads this project's memory by the root as it is now, so what was recorded at the old place
 * is out of reach of searches, the injected context and recall: a note, since nothing is damaged and no repair applies.
 * A database shared by several projects (RALPH_MEM_DB, --db elsewhere) is expected to hold other roots.
 */
const movedFrom = (db: SqliteDatabase, path: string, projectRoot: string): HealthCheck | undefined => {
  if (!isProjectDatabase(path, projectRoot)) return undefined
  let elsewhere: ReturnType<typeof sessionsRecordedElsewhere>
  try {
    elsewhere = sessionsRecordedElsewhere(db, projectRoot)
  } catch (error) {
    // Worth knowing, never what stops the doctor: the checks above say what is wrong with the database.
    const detail = `could not read where this memory's sessions were recorded: ${String(error)}`
    return { check: "project location", ok: true, note: true, detail }
  }
  if (elsewhere.length === 0) return undefined
  const sessions = elsewhere.reduce((sum, root) => sum + root.sessions, 0)
  const roots = elsewhere.slice(0, ROOTS_NAMED).map((root) =>
    `${root.projectPath} (${root.sessions}, the newest started ${new Date(root.lastStartedAt).toISOString()})`
  )
  const more = elsewhere.length > ROOTS_NAMED ? ` and ${elsewhere.length - ROOTS_NAMED} more root(s)` : ""
  return {
    check: "project location",
    ok: true,
    note: true,
    detail: `${sessions} session(s) of this memory were recorded with the project at another place: ` +
      `${roots.join(", ")}${more}. It is now at ${projectRoot}, and searches, the context injected into sessions ` +
      "and recall see only what was recorded here; `ralph-mem search --all-projects <words>` finds the rest"
  }
}

export const diagnose = (path: string, options: DiagnoseOptions) =>
  Effect.gen(function*() {
    const checks: Array<HealthCheck> = []
    const add = (check: HealthCheck) => checks.push(check)
    // Git is asked again whether it tracks files in the memory folder: a fix shows here without a new session.
    const tracked = checkTrackedMemory(options.projectRoot, path)
    if (tracked._tag === "Unknown") {
      const detail = `could not check whether git tracks files in the memory folder: ${tracked.reason}`
      add({ check: "git", ok: true, note: true, detail })
    }
    // A refused folder (a planted link, another user's file, files git tracks) is reported and left exactly as it is.
    const refused = trackedRefusal(tracked, path) ?? inspectMemoryFolder(path).problem
    if (refused !== undefined) {
      const detail = `${refused.path}: ${refused.reason}; nothing is recorded there. ${refused.fix}`
      return { checks: [{ check: "memory folder", ok: false, detail }], folderRefused: true } as Diagnosis
    }
    if (!existsSync(path)) {
      add({ check: "database", ok: true, detail: `${path} does not exist yet (it is created on first use)` })
    } else {
      // Permissions: only the owner may read memory.
      for (
        const [what, target, wanted] of [
          ["database file", path, 0o600],
          ["database folder", dirname(path), 0o700]
        ] as const
      ) {
        const actual = mode(target)
        // A file named by --db that is no memory (the user's notes) keeps its mode.
        const ours = (what === "database file" && mayBeMemory(path)) || basename(dirname(path)) === MEMORY_FOLDER
        const tooOpen = ours && (actual & 0o077) !== 0
        // Through descriptors opened without following links (safe-fs.ts), never chmod by path.
        if (tooOpen && options.repair) what === "database file" ? tightenFile(target) : ensureFolder(target)
        add({
          check: what,
          ok: !tooOpen,
          detail: `mode ${actual.toString(8)}`,
          ...(tooOpen && options.repair ? { repaired: `set to ${wanted.toString(8)}` } : {})
        })
      }
      // Can it be opened at all, and is it sound?
      const opened = yield* Effect.result(openDatabase(path))
      const damaged = opened._tag === "Failure"
        ? (isCorruption(opened.failure) ? opened.failure.message : undefined)
        : undefined
      if (opened._tag === "Success") opened.success.close()
      // A memory this machine has no record of making (memory-origin.ts) is refused like a planted folder.
      if (opened._tag === "Failure" && opened.failure.problem === "unsafe") {
        return { checks: [{ check: "memory folder", ok: false, detail: opened.failure.reason }], folderRefused: true }
      }
      const sound = damaged === undefined && (opened._tag === "Failure" || passesIntegrityCheck(path))
      if (opened._tag === "Failure" && damaged === undefined) {
        add({ check: "database", ok: false, detail: opened.failure.message })
      } else if (!sound) {
        const reason = damaged ?? "integrity_check found damage"
        if (!mayBeMemory(path)) {
          add({ check: "database", ok: false, detail: `${reason}; ${new NotAMemory({ path }).message}` })
        } else if (options.repair) {
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
      // A read-only folder or file: reads work, the hooks cannot record (and verify needs to write).
      const writable = canWriteDatabase(path)
      if (!writable) {
        add({
          check: "write access",
          ok: false,
          detail: `${dirname(path)} or the database is read-only: status, search and the other read commands work, ` +
            "but nothing is recorded until both are writable"
        })
      }
      // The read models against the log, whenever the database (as found, or as repaired) opens.
      const memory = writable ? yield* Effect.result(openMemory({ path })) : undefined
      if (memory?._tag === "Success") {
        try {
          // A mark not written for this memory is ignored (head-mark.ts); worth knowing where it came from.
          const head = readOwnHeadMark(path, memoryIdOf(memory.success.db))
          if (head.foreign !== undefined) {
            add({
              check: "head mark",
              ok: true,
              note: true,
              detail: `${headMarkPath(path)} ${head.foreign}: ignored, no event is taken for lost by it ` +
                "(it may have come with the project's files); the next write replaces it"
            })
          }
          yield* detectLostEvents(memory.success)
          yield* foldSpill(memory.success)
          finishPendingErasure(memory.success.db, path)
          const losses = unacknowledgedLosses(memory.success.db)
          if (losses.length > 0) {
            const detail = losses.map(describeLoss).join("; ")
            if (options.repair) {
              yield* acknowledgeLosses(memory.success, losses)
              const repaired =
                "acknowledged (lost events cannot be brought back; damaged copies stay in damaged/ until a forget)"
              add({ check: "lost events", ok: false, detail, repaired })
            } else {
              const hint = "(run ralph-mem doctor --repair to acknowledge)"
              add({ check: "lost events", ok: false, detail: `${detail} ${hint}` })
            }
          }
          const verifying = options.onVerifyProgress === undefined ? {} : { onProgress: options.onVerifyProgress }
          const verified = yield* verify(memory.success, verifying)
          // Losses are reported above, once.
          const findings = verified.findings.filter((f) => f.check !== "no events known to be missing")
          const report = { ...verified, findings, ok: findings.length === 0 }
          const details = report.findings.map((f) => f.detail).join("; ")
          if (!report.ok && options.repair) {
            yield* replay(memory.success)
            const again = yield* verify(memory.success, verifying)
            add({
              check: "read models and log",
              ok: again.ok,
              detail: details,
              repaired: again.ok ? "rebuilt from the log" : "a replay did not fix it"
            })
          } else {
            add({
              check: "read models and log",
              ok: report.ok,
              detail: report.ok ? `${report.events} events verified` : details
            })
          }
          const moved = movedFrom(memory.success.db, path, options.projectRoot)
          if (moved !== undefined) add(moved)
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
      Effect.try({
        try: () => listBackups(path),
        catch: (error) => (error instanceof Error ? error.message : String(error))
      })
    )
    if (Result.isFailure(backups)) {
      add({ check: "backups", ok: false, detail: `cannot read the backups: ${backups.failure}` })
    } else {
      const newest = backups.success[0]
      add({
        check: "backups",
        ok: newest === undefined || passesIntegrityCheck(newest.path),
        detail: newest === undefined
          ? "none yet (one is taken after each session, at most once per backup.interval)"
          : `${backups.success.length}, newest ${new Date(newest.takenAt).toISOString()}`
      })
    }
    // Settings ignored: invalid ones, and commands in a project's file the user has not accepted yet.
    const loaded = loadSettings({ projectRoot: options.projectRoot, env: options.env })
    for (const detail of [...loaded.untrusted, ...loaded.problems]) {
      add({ check: "config", ok: true, note: true, detail })
    }
    add(recentHookFailures(path))
    return { checks, folderRefused: false } as Diagnosis
  })
