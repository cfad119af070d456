/**
 * Runs one hook invocation end to end, failing open:
 *   stdin -> JSON -> decode (Schema) -> open memory -> decide -> append (one transaction) -> output.
 * Any failure is logged beside the database, recorded as a HookFailed event when the database is
 * usable, and the hook prints nothing and exits 0: Claude Code is never blocked by ralph-mem.
 */
import {
  boundForScan,
  checkpointLargeWal,
  DatabaseUnusable,
  failureLogPath,
  findProjectRoot,
  homeFolder,
  maskPrintedSecrets,
  monotonicUlid,
  projectDatabasePath,
  QUEUE_WAIT_MS,
  type RalphMemEvent,
  redactValue,
  refusedFolder,
  resolveDatabasePath,
  type StopOutput,
  streams
} from "@ralph-mem/events"
import {
  detectLostEvents,
  finishPendingErasure,
  isCorruption,
  type MemoryStore,
  openMemory,
  recoverDatabase
} from "@ralph-mem/projections"
import { loadSettings } from "@ralph-mem/settings"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { existsSync, statSync } from "node:fs"
import { isAbsolute } from "node:path"
import { logFailure } from "./failure-log.ts"
import { checkTrackedMemory, trackedRefusal } from "./git-tracked.ts"
import {
  type Handler,
  handlers,
  type HookContext,
  type HookDecision,
  type HookHandlers,
  type HookOutput
} from "./handlers.ts"
import { holdsMoreContainers, MAX_JSON_CONTAINERS } from "./json-containers.ts"
import { type HookInput, type HookName, inputs } from "./payload.ts"
import { foldSpill, spill, type SpillRecord } from "./spill.ts"

/**
 * The project of the session's folder: the first of the payload's `cwd`, CLAUDE_PROJECT_DIR and the process's folder
 * that is a folder (a made-up cwd must not grow a database). When none is, the folder the session stood in was
 * removed (`rm -rf build` from inside it): its project is found from the folders above it, as long as one of them is
 * a project root (holds `.git`); a removed project has nowhere to record.
 */
const sessionProject = (cwd: string | undefined, environment: HookEnvironment): string | SessionFolderGone => {
  const named = [cwd, environment.env["CLAUDE_PROJECT_DIR"], environment.cwd].filter(
    (dir): dir is string => dir !== undefined && isAbsolute(dir)
  )
  const folder = named.find((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true)
  if (folder !== undefined) return findProjectRoot(folder)
  const above = named.map(findProjectRoot).find((root) => existsSync(root))
  return above ?? new SessionFolderGone({ folder: named[0] ?? "(none named: no cwd, nor CLAUDE_PROJECT_DIR)" })
}

/** The session's folder and every folder above it that could be its project are gone. */
export class SessionFolderGone extends Schema.TaggedError<SessionFolderGone>()("SessionFolderGone", {
  folder: Schema.String
}) {
  override get message() {
    return `the session's folder ${this.folder} was removed, and no project folder above it holds .git: nothing ` +
      "recorded"
  }
}

export class MalformedInput extends Schema.TaggedError<MalformedInput>()("MalformedInput", { reason: Schema.String }) {
  override get message() {
    return `malformed hook input: ${this.reason}`
  }
}

export interface HookEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /**
   * The process exits as soon as the hook returns (dist/hook.mjs): the database is then left to the exit rather
   * than closed. Closing the last connection checkpoints the WAL into the database and deletes it, and the next
   * process's first commit creates it again: three fsyncs and four file operations that every hook paid. Left to
   * the exit, the WAL stays for the next process, which reads it back when it opens the database (what SQLite
   * does after any connection that did not close). The commits were synced as they were made (synchronous=FULL,
   * `releasedAtExit`), so what the process committed is on disk, as after a close.
   */
  readonly exitsAfter?: boolean
}

/**
 * Where other packages continue a hook after its events are recorded. The Ralph loop continues at
 * Stop (packages/loop); the app wires it in, so hooks never depend on the loop.
 */
export interface HookExtensions {
  readonly stop?: (
    context: HookContext & { readonly input: HookInput<"Stop">; readonly env: HookEnvironment["env"] }
  ) => Effect.Effect<StopOutput | undefined>
  /** A turn ended on an API error: the loop records the interruption. */
  readonly stopFailure?: (
    context: HookContext & { readonly input: HookInput<"StopFailure"> }
  ) => Effect.Effect<StopOutput | undefined>
  /** After a hook's events are recorded (the app starts a backup after SessionEnd). */
  readonly afterRecorded?: (hook: HookName, context: HookContext & { readonly databasePath: string }) => void
}

/**
 * The longest a hook waits for locks other processes hold while nothing is committed (a long replay, a
 * `BEGIN IMMEDIATE` left open): Claude Code waits for the hook. Past it, the hook's events go to the spill
 * file. Behind other appends, which commit one after another, its waits end `QUEUE_WAIT_MS` after it began.
 */
export const HOOK_LOCK_WAIT_MS = 2000

/** A damaged database found while opening: recovered before the hook goes on. */
class DamagedDatabase extends Schema.TaggedError<DamagedDatabase>()("DamagedDatabase", { reason: Schema.String }) {
  // The reason is what the log, hooks.log and the restore notice say: without it they said nothing.
  override get message() {
    return this.reason
  }
}

/** `undefined` stdin: too large to read, or unreadable. */
const parse = (stdin: string | undefined): Effect.Effect<unknown, MalformedInput> =>
  stdin === undefined
    ? Effect.fail(new MalformedInput({ reason: "stdin is unreadable or larger than 64 MiB" }))
    : holdsMoreContainers(stdin)
    ? Effect.fail(
      new MalformedInput({
        reason: `stdin holds more than ${MAX_JSON_CONTAINERS} JSON lists and objects, more than a hook parses`
      })
    )
    : Effect.try({
      try: () => JSON.parse(stdin) as unknown,
      catch: () => new MalformedInput({ reason: "stdin is not JSON" })
    })

const decode = <H extends HookName>(hook: H, json: unknown) =>
  Schema.decodeUnknownEffect(inputs[hook]())(json).pipe(
    Effect.mapError((error) => new MalformedInput({ reason: error.message.slice(0, 500) }))
  ) as Effect.Effect<HookInput<H>, MalformedInput>

const describe = (error: unknown): string =>
  error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { message: unknown }).message)
    : String(error)

/**
 * Best effort: a HookFailed event, so `ralph-mem status` can count failures. When the failure came
 * before the database was opened (a malformed payload), it is opened just for this. True when recorded.
 */
const recordFailure = (
  opened: MemoryStore | undefined,
  open: () => ReturnType<typeof openMemory>,
  hook: HookName,
  reason: string,
  sessionId: string | undefined,
  waitMs: number
) =>
  (opened === undefined
    ? Effect.acquireRelease(open(), (m) => Effect.sync(() => m.db.close()))
    : Effect.succeed(opened)).pipe(
      Effect.flatMap((memory) => {
        memory.db.pragma(`busy_timeout = ${waitMs}`)
        return memory.log.append(
          streams.hookFailures,
          [{
            _tag: "HookFailed",
            hook,
            reason: reason.slice(0, 1000),
            ...(sessionId === undefined ? {} : { sessionId })
          }],
          { expectedVersion: "any", writer: `hook:${hook}` }
        )
      }),
      Effect.scoped,
      Effect.as(true),
      Effect.catchCause(() => Effect.succeed(false))
    )

/** Fails with the refusal when git tracks files in the memory folder; git that cannot say leaves a trace. */
const refuseTrackedMemory = (project: string, path: string, hook: HookName, sessionId: string) =>
  Effect.suspend(() => {
    const check = checkTrackedMemory(project, path)
    const refusal = trackedRefusal(check, path)
    if (refusal !== undefined) return Effect.fail(refusedFolder(path, refusal))
    if (check._tag === "Unknown") {
      const reason = `could not check whether git tracks files in the memory folder: ${check.reason}`
      logFailure(failureLogPath(path), { time: new Date().toISOString(), hook, reason, sessionId })
    }
    return Effect.void
  })

const isRefusedFolder = (error: unknown): error is DatabaseUnusable =>
  error instanceof DatabaseUnusable && error.problem === "unsafe"

/** What a SessionStart tells the user about a refused memory folder (not after a compaction: once a session). */
const refusalNotice = (hook: HookName, stdin: string | undefined, error: DatabaseUnusable): HookOutput | undefined => {
  if (hook !== "SessionStart") return undefined
  let source: unknown
  try {
    source = (JSON.parse(stdin ?? "{}") as { source?: unknown }).source
  } catch {
    return undefined
  }
  if (source === "compact") return undefined
  return { systemMessage: `ralph-mem is not recording this session. ${error.reason}` }
}

/** Runs a hook with every handler (tests, tools); a hook program passes its own handlers to runHookWith. */
export const runHook = (
  hook: HookName,
  stdin: string | undefined,
  environment: HookEnvironment,
  extensions: HookExtensions = {}
) => runHookWith(handlers, hook, stdin, environment, extensions)

/** Runs a hook with `table`'s handler for it; a hook it has no handler for fails, open and logged. */
export const runHookWith = (
  table: HookHandlers,
  hook: HookName,
  stdin: string | undefined,
  environment: HookEnvironment,
  extensions: HookExtensions = {}
): Effect.Effect<HookOutput | StopOutput | undefined> => {
  const invocation = monotonicUlid()()
  const began = Date.now()
  const waitsEndBy = began + QUEUE_WAIT_MS
  /** How long the hook's next wait for a lock may go on with nothing committed, within the hook's end of waits. */
  const waitLeft = () => Math.min(HOOK_LOCK_WAIT_MS, Math.max(0, waitsEndBy - Date.now()))
  /** A failure is recorded within the hook's first HOOK_LOCK_WAIT_MS, or kept in the spill file. */
  const failureWaitLeft = () => Math.max(0, began + HOOK_LOCK_WAIT_MS - Date.now())
  let sessionId: string | undefined
  /**
   * The hook's input and project, once known: what it records without memory, if it fails before its handler
   * decides (the memory could not be opened, or read).
   */
  let received: { readonly input: HookInput<HookName>; readonly project: string } | undefined
  /** The handler has decided: its events are `pendingAppend` until appended, or it had none. */
  let decided = false
  /** The append the hook is making, kept in the spill file if it cannot be made. */
  let pendingAppend: SpillRecord["append"]
  // Until the payload names the session's folder, failures are logged where the environment points.
  let knownPath: string | undefined
  const databasePath = () => (knownPath ??= resolveDatabasePath({
    cwd: environment.env["CLAUDE_PROJECT_DIR"] ?? environment.cwd,
    env: environment.env
  }))
  let memory: MemoryStore | undefined
  const open = (busyTimeoutMs = waitLeft()) =>
    openMemory({ path: databasePath(), releasedAtExit: environment.exitsAfter === true, busyTimeoutMs, waitsEndBy })

  const appendOf = (input: HookInput<HookName>, decision: HookDecision): NonNullable<SpillRecord["append"]> => ({
    stream: streams.session(input.session_id),
    events: decision.events as ReadonlyArray<RalphMemEvent>,
    writer: `hook:${hook}`,
    correlationId: invocation,
    ...(decision.idempotencyKey === undefined ? {} : { idempotencyKey: decision.idempotencyKey })
  })

  /**
   * What the hook records when it failed before its handler decided, for the spill file (its handler's
   * `withoutMemory`): the memory could not be opened, or reading it failed (a read model the handler reads is
   * broken, a check before it threw). Never throws: the failure is kept either way.
   */
  const recordedWithoutMemory = (): SpillRecord["append"] => {
    const withoutMemory = (table[hook] as Handler<HookName> | undefined)?.withoutMemory
    if (received === undefined || withoutMemory === undefined) return undefined
    try {
      const { settings } = loadSettings({ projectRoot: received.project, env: environment.env })
      const home = homeFolder(environment.env)
      const decision = withoutMemory(received.input as never, { project: received.project, settings, home })
      return decision.events.length === 0 ? undefined : appendOf(received.input, decision)
    } catch {
      return undefined
    }
  }

  /** Open, decide, append, continue: the part that runs again once on a recovered database. */
  const record = (input: HookInput<HookName>, project: string) =>
    Effect.gen(function*() {
      pendingAppend = undefined
      decided = false
      memory = yield* open()
      // Committed events the WAL lost are recorded before an append takes their positions; then what
      // earlier hooks could not record goes in (mostly: nothing to do, two small reads).
      yield* detectLostEvents(memory)
      yield* foldSpill(memory, waitLeft())
      // Once a session, a full check: damage in pages a hook never reads is found before it spreads.
      if (hook === "SessionStart" && memory.db.pragma("quick_check", { simple: true }) !== "ok") {
        return yield* new DamagedDatabase({ reason: "quick_check found damage" })
      }
      // A broken config never stops a hook: its problems are logged and the valid layers apply.
      const { settings, problems } = loadSettings({ projectRoot: project, env: environment.env })
      for (const problem of problems) {
        logFailure(failureLogPath(databasePath()), {
          time: new Date().toISOString(),
          hook,
          reason: `config: ${problem}`
        })
      }
      const context = { memory, project, settings, home: homeFolder(environment.env) }
      const handler = table[hook] as Handler<HookName> | undefined
      if (handler === undefined) return yield* Effect.die(new Error(`this hook program has no handler for ${hook}`))
      const decision = handler(input as never, context)
      decided = true
      if (decision.events.length > 0) {
        pendingAppend = appendOf(input, decision)
        memory.db.pragma(`busy_timeout = ${waitLeft()}`)
        yield* memory.log.append(pendingAppend.stream, pendingAppend.events, {
          expectedVersion: "any",
          writer: pendingAppend.writer,
          correlationId: invocation,
          ...(pendingAppend.idempotencyKey === undefined ? {} : { idempotencyKey: pendingAppend.idempotencyKey })
        })
        pendingAppend = undefined
      }
      extensions.afterRecorded?.(hook, { ...context, databasePath: databasePath() })
      if (hook === "Stop" && extensions.stop !== undefined) {
        return yield* extensions.stop({ ...context, input: input as HookInput<"Stop">, env: environment.env })
      }
      if (hook === "StopFailure" && extensions.stopFailure !== undefined) {
        return yield* extensions.stopFailure({ ...context, input: input as HookInput<"StopFailure"> })
      }
      return decision.output
    })

  const program = Effect.gen(function*() {
    // Secrets in structured input (a tool's `{"password": ...}`) and the output of a command that prints one are
    // masked before anything is decided, in the bounded part of the payload a hook can store: a huge tool output
    // costs no more to scan.
    const input = yield* decode(hook, redactValue(maskPrintedSecrets(boundForScan(yield* parse(stdin)))).value)
    sessionId = input.session_id
    const project = sessionProject(input.cwd, environment)
    if (project instanceof SessionFolderGone) return yield* project
    knownPath = projectDatabasePath(project, environment.env)
    received = { input, project }
    // Once a session, git is asked whether the memory folder came with the repository (git-tracked.ts);
    // the other hooks find the answer when they open the folder.
    if (hook === "SessionStart") yield* refuseTrackedMemory(project, databasePath(), hook, input.session_id)
    return yield* record(input, project).pipe(
      Effect.catchCause((cause) => {
        const error = Cause.squash(cause)
        if (!(error instanceof DamagedDatabase) && !isCorruption(error)) return Effect.failCause(cause)
        // The database is damaged: set it aside, restore the newest good backup, and record the hook there.
        memory?.db.close()
        memory = undefined
        const reason = describe(error)
        logFailure(failureLogPath(databasePath()), {
          time: new Date().toISOString(),
          hook,
          reason: `damaged database, restoring: ${reason}`,
          sessionId: input.session_id
        })
        return Effect.andThen(recoverDatabase(databasePath(), reason), record(input, project))
      })
    )
  })

  return program.pipe(
    Effect.catchCause((cause) =>
      Effect.gen(function*() {
        const error = Cause.squash(cause)
        // A refused memory folder (a planted link, another user's files) is never written to, not even
        // to log the refusal: the user is told once a session, and status and doctor say why.
        if (isRefusedFolder(error)) return refusalNotice(hook, stdin, error)
        // Nowhere to record, nor to log: the user is told when they act (a session's start, a prompt).
        if (error instanceof SessionFolderGone) {
          return hook === "SessionStart" || hook === "UserPromptSubmit"
            ? { systemMessage: `ralph-mem is not recording: ${error.message}` }
            : undefined
        }
        const reason = describe(error)
        logFailure(failureLogPath(databasePath()), {
          time: new Date().toISOString(),
          hook,
          reason,
          ...(sessionId === undefined ? {} : { sessionId })
        })
        const failure = {
          id: invocation,
          time: new Date().toISOString(),
          hook,
          reason: reason.slice(0, 1000),
          ...(sessionId === undefined ? {} : { sessionId })
        }
        // Events the hook could not append are kept, with the failure, for the next process to record (when it
        // failed before its handler decided, what happened, decided without the memory); a failure with nothing
        // to append is recorded now if the database takes it in the time left.
        if (pendingAppend === undefined && !decided) pendingAppend = recordedWithoutMemory()
        if (pendingAppend !== undefined) spill(databasePath(), { ...failure, append: pendingAppend })
        else if (
          !(yield* recordFailure(memory, () => open(failureWaitLeft()), hook, reason, sessionId, failureWaitLeft()))
        ) {
          spill(databasePath(), failure)
        }
        return undefined as HookOutput | StopOutput | undefined
      })
    ),
    Effect.ensuring(Effect.sync(() => {
      if (memory?.db.open !== true) return
      // A forget that a reader kept from erasing its text: finished by the first process after the reader.
      try {
        finishPendingErasure(memory.db, memory.path)
      } catch {
        // Not now: a later process finishes it.
      }
      checkpointLargeWal(memory.db, memory.path)
      if (environment.exitsAfter !== true) memory.db.close()
    }))
  )
}
