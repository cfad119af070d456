/** What the `ralph` subcommands share: the limit and agent flags, finding the loop, binding a session. */
import { findProjectRoot, type LoopConfig } from "@ralph-mem/events"
import {
  execute,
  type LimitWaitProgress,
  loadLoop,
  loopConfig,
  LoopConfigInvalid,
  parseLoopLimits,
  splitCommand,
  statusReport,
  trySnapshot
} from "@ralph-mem/loop"
import { activeLoopForSession, formatTime, latestLoop, type MemoryStore, openLoops } from "@ralph-mem/projections"
import { loadSettings } from "@ralph-mem/settings"
import { Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withStore } from "../../command-memory.ts"
import * as flags from "../../flags.ts"
import { inert, printJson } from "../../output.ts"

export const loopFlag = Flag.String("loop").pipe(
  Flag.withDescription("The loop (default: the latest of this project)"),
  Flag.optional
)

export const criteriaFlag = flags.freeText("criteria").pipe(
  Flag.withDescription(
    "A success check the harness runs: test_pass, build_success, lint_clean, type_check, custom=<cmd>, " +
      "marker=<text>, or kind=<cmd> to override a detected command (repeatable)"
  ),
  Flag.atLeast(0)
)

export const project = () => findProjectRoot(process.cwd())

/** The stop conditions `start`, `plan` and `run` take, over the config's `loop.*` settings. */
export const loopLimitFlags = {
  maxIterations: Flag.Int("max-iterations").pipe(
    Flag.withDescription("Stop after N iterations"),
    Flag.optional
  ),
  maxDuration: Flag.String("max-duration").pipe(
    Flag.withDescription("Stop after this long (30m, 2h)"),
    Flag.optional
  ),
  maxTokens: Flag.Int("max-tokens").pipe(
    Flag.withDescription(
      "Stop once the iterations used this many tokens (input, output and cache, as the agent reports them)"
    ),
    Flag.optional
  ),
  maxCost: Flag.String("max-cost").pipe(
    Flag.withDescription(
      "Stop once the iterations cost this many US dollars (as the agent reports it; Claude Code's `-p` runs do)"
    ),
    Flag.optional
  )
}

export const agentFlag = flags.freeText("agent").pipe(
  Flag.withDescription("The agent command, given the prompt as its last argument (run without a shell)"),
  Flag.withDefault("claude -p")
)
export const agentTimeoutFlag = Flag.String("agent-timeout").pipe(
  Flag.withDescription("How long one agent run may take"),
  Flag.withDefault("30m")
)

/** The agent's argv and timeout from the flags; a malformed command or duration is a clear error. */
export const parseAgent = (input: { readonly agent: string; readonly agentTimeout: string }) =>
  Effect.gen(function*() {
    const agentTimeoutMs = yield* flags.parseDuration("agent-timeout", input.agentTimeout)
    const agent = yield* Effect.try({ try: () => splitCommand(input.agent), catch: (e) => e as Error }).pipe(
      Effect.catch((e) => flags.failWith(`--agent: ${e.message}`))
    )
    if (agent.length === 0) return yield* flags.failWith("--agent is empty")
    return { agent, agentTimeoutMs }
  })

/** The loop settings of `start`, `plan` and `run`: settings from config, overridden by validated flags. */
export const configFromFlags = (input: {
  readonly maxIterations: Option.Option<number>
  readonly maxDuration: Option.Option<string>
  readonly maxTokens: Option.Option<number>
  readonly maxCost: Option.Option<string>
  readonly criteria: ReadonlyArray<string>
}) =>
  Effect.gen(function*() {
    const overrides = parseLoopLimits({
      maxIterations: Option.getOrUndefined(input.maxIterations),
      maxDuration: Option.getOrUndefined(input.maxDuration),
      maxTokens: Option.getOrUndefined(input.maxTokens),
      maxCost: Option.getOrUndefined(input.maxCost),
      criteria: input.criteria
    })
    if (overrides instanceof LoopConfigInvalid) return yield* flags.failWith(overrides.message)
    const root = project()
    const { settings, problems, untrusted, files } = loadSettings({ projectRoot: root, env: process.env })
    // What the loop will not do as the files say (a command or a raised limit not accepted yet, a bad value) is said
    // before it starts, not found later in `status`.
    for (const problem of [...untrusted, ...problems]) yield* Console.error(inert(`warning: ${problem}`))
    return { root, settings, files, config: loopConfig(settings, overrides) }
  })

/**
 * Resolves the loop a command is about: --loop, else the loop running in this Claude Code session (a slash
 * command), else the latest of this project. With `onlyOne`, a command that changes a loop (stop, rollback)
 * refuses to guess between several loops running in the project: the newest may be another session's.
 */
export const resolveLoop = (memory: MemoryStore, loop: Option.Option<string>, options: { onlyOne?: boolean } = {}) => {
  const root = project()
  const sessionId = process.env["CLAUDE_CODE_SESSION_ID"] ?? ""
  const own = sessionId === "" ? undefined : activeLoopForSession(memory.db, sessionId)
  const running = openLoops(memory.db, root)
  const ownHere = running.some((open) => open.loopId === own) ? own : undefined
  if (Option.isNone(loop) && ownHere === undefined && options.onlyOne === true && running.length > 1) {
    return flags.failWith(
      `${running.length} loops are running in this project; name one with --loop: ` +
        running.map((open) => `${open.loopId} (${oneLineGoal(open.goal)})`).join(", ")
    )
  }
  const loopId = Option.getOrUndefined(loop) ?? ownHere ?? latestLoop(memory.db, root)
  if (loopId === undefined) {
    return flags.failWith("there is no loop in this project; start one with ralph-mem ralph start <goal>")
  }
  const { state } = loadLoop(memory, loopId)
  return state === undefined ? flags.failWith(`no loop ${loopId}`) : Effect.succeed(state)
}

/**
 * Loops already running in the project, said before another starts: every loop works on the one working tree, so
 * each sees the other's changes as its own, and rolling one back restores files the other changed.
 */
export const warnOfRunningLoops = (memory: MemoryStore, root: string) =>
  Effect.gen(function*() {
    const running = openLoops(memory.db, root)
    if (running.length === 0) return
    const named = running.map((open) => `${open.loopId} (${oneLineGoal(open.goal)})`).join(", ")
    yield* Console.error(inert(
      `warning: ${running.length === 1 ? `loop ${named} is` : `loops ${named} are`} also running in this project: ` +
        "the loops change the same working tree, and rolling one back restores files the other changed (its " +
        "rescue snapshot keeps them)"
    ))
  })

const oneLineGoal = (goal: string) => {
  const line = goal.replace(/\s+/g, " ").trim()
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}

const clock = (ms: number) => {
  const seconds = Math.ceil(ms / 1000)
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const sec = seconds % 60
  return h > 0 ? `${h}h ${String(m).padStart(2, "0")}m` : m > 0 ? `${m}m ${String(sec).padStart(2, "0")}s` : `${sec}s`
}

/**
 * A countdown while a loop waits for a limit to reset, on stderr (stdout stays for --json): one line
 * rewritten each second on a terminal, a plain line a minute otherwise.
 */
export const waitCountdown = () => {
  let lastLine = 0
  let current: string | undefined
  return (wait: LimitWaitProgress) => {
    const key = `${wait.iteration}:${wait.until}`
    const text = `ralph-mem: iteration ${wait.iteration} hit a ${wait.limit.replace("_", " ")} (${wait.message}); ` +
      `waiting until ${formatTime(wait.until)}${wait.resetReported ? "" : " (backoff)"}, ` +
      `${clock(wait.remainingMs)} left; ralph-mem ralph stop ends it`
    if (process.stderr.isTTY) {
      process.stderr.write(`\r\u001b[2K${text}${wait.remainingMs <= 1_000 ? "\n" : ""}`)
    } else if (key !== current || Date.now() - lastLine >= 60_000) {
      process.stderr.write(`${text}\n`)
      lastLine = Date.now()
    }
    current = key
  }
}

export const sessionFlag = Flag.String("session").pipe(
  Flag.withDescription("The Claude Code session to bind to (default: $CLAUDE_CODE_SESSION_ID)"),
  Flag.optional
)

/** The session a loop is bound to: --session, else the Claude Code session this command runs in. */
export const sessionToBind = (session: Option.Option<string>) => {
  const sessionId = Option.getOrUndefined(session) ?? process.env["CLAUDE_CODE_SESSION_ID"]
  return sessionId === undefined || sessionId === ""
    ? flags.failWith(
      "no Claude Code session to bind the loop to: run the slash command inside Claude Code, pass --session, " +
        "or use ralph-mem ralph run for a loop outside a session"
    )
    : Effect.succeed(sessionId)
}

/**
 * The snapshot of the tree before a loop changes anything. When none can be taken (a file too large to copy, a broken
 * repository) the loop still starts, and the user is told first: no rollback can return to this point.
 */
export const startSnapshot = (root: string, loopId: string) =>
  Effect.gen(function*() {
    const snapshot = trySnapshot(root, loopId, "start")
    if ("snapshotProblem" in snapshot) {
      // The problem can name a project file, whose name can hold a terminal sequence.
      yield* Console.error(inert(
        `warning: no snapshot of the starting point could be taken (${snapshot.snapshotProblem}): ` +
          "a rollback cannot return to it"
      ))
    }
    return snapshot
  })

/** Starts a loop bound to a Claude Code session (its Stop hook drives it) and opens the first iteration. */
export const startInSession = (
  input: { readonly sessionId: string; readonly db: Option.Option<string>; readonly json: boolean },
  loop: {
    readonly loopId: string
    readonly root: string
    readonly goal: string
    readonly config: LoopConfig
    readonly plan?: { readonly path: string }
  },
  announcement: string
) =>
  Effect.gen(function*() {
    const { sessionId } = input
    const { loopId } = loop
    yield* withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const running = activeLoopForSession(memory.db, sessionId)
        if (running !== undefined) {
          return yield* flags.failWith(
            `loop ${running} is already running in this session; stop it first (ralph-mem ralph stop)`
          )
        }
        yield* warnOfRunningLoops(memory, loop.root)
        const snapshot = yield* startSnapshot(loop.root, loopId)
        yield* execute(memory, loopId, {
          _tag: "Start",
          loopId,
          goal: loop.goal,
          projectPath: loop.root,
          driver: "session",
          sessionId,
          config: loop.config,
          ...snapshot,
          ...(loop.plan === undefined ? {} : { plan: loop.plan })
        }, "cli:ralph-start")
        const started = yield* execute(memory, loopId, { _tag: "BeginIteration" }, "cli:ralph-start")
        if (input.json) return yield* printJson(statusReport(started))
        yield* Console.log(inert(announcement))
      }))
  })
