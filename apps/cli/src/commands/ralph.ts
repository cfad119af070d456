/**
 * `ralph-mem ralph ...`: the Ralph loop. `start` binds a loop to this Claude Code session (its Stop
 * hook then drives it); `run` drives one with a fresh agent process per iteration; `stop` ends one
 * (and can roll back), never depending on the model obeying; `status` and `config` read and tune it.
 */
import { type Criterion, findProjectRoot, type LoopConfig, monotonicUlid } from "@ralph-mem/events"
import {
  DEFAULT_MIN_PLAN_ITERATIONS,
  DEFAULT_PLAN_MARKER,
  DEFAULT_PLAN_SECTIONS,
  driveExternally,
  execute,
  type LimitWaitProgress,
  loadLoop,
  type Loop,
  loopConfig,
  loopSpend,
  parseCriterion,
  PrdInvalid,
  readPrd,
  restoreSnapshot,
  splitCommand,
  storyProgress,
  takeSnapshot,
  totalTokens,
  workingTreeMatches
} from "@ralph-mem/loop"
import {
  activeLoopForSession,
  DURATION_EXAMPLES,
  injectionBudgetTokens,
  latestLoop,
  loadSettings,
  type Memory,
  parseDuration
} from "@ralph-mem/projections"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import { join, resolve } from "node:path"
import * as flags from "../flags.ts"
import { formatTime, printFields, printJson } from "../output.ts"
import { withExistingStore, withStore } from "../store.ts"

const loopFlag = Flag.String("loop").pipe(Flag.withDescription("The loop (default: the latest of this project)"), Flag.optional)

const criteriaFlag = Flag.String("criteria").pipe(
  Flag.withDescription("A success check the harness runs: test_pass, build_success, lint_clean, type_check, custom=<cmd>, marker=<text>, or kind=<cmd> to override a detected command (repeatable)"),
  Flag.atLeast(0)
)

const parseCriteria = (values: ReadonlyArray<string>) =>
  Effect.forEach(values, (value) => {
    const parsed = parseCriterion(value)
    return typeof parsed === "string" ? flags.failWith(`--criteria ${value}: ${parsed}`) : Effect.succeed(parsed)
  })

const parseMaxDuration = (value: Option.Option<string>) =>
  Option.isNone(value) ? Effect.succeed(undefined) : flags.parseDuration("max-duration", value.value)

const project = () => findProjectRoot(process.cwd())

const maxIterationsFlag = Flag.Int("max-iterations").pipe(Flag.withDescription("Stop after N iterations"), Flag.optional)
const maxDurationFlag = Flag.String("max-duration").pipe(Flag.withDescription("Stop after this long (30m, 2h)"), Flag.optional)
const maxTokensFlag = Flag.Int("max-tokens").pipe(
  Flag.withDescription("Stop once the iterations used this many tokens (input, output and cache, as the agent reports them)"),
  Flag.optional
)
const maxCostFlag = Flag.String("max-cost").pipe(
  Flag.withDescription("Stop once the iterations cost this many US dollars (as the agent reports it; Claude Code's `-p` runs do)"),
  Flag.optional
)

/** `--max-cost 2.50` or `$2.50`: a positive amount of US dollars. */
const parseMaxCost = (value: Option.Option<string>) => {
  if (Option.isNone(value)) return Effect.succeed(undefined)
  const amount = Number(value.value.trim().replace(/^\$/, ""))
  return Number.isFinite(amount) && amount > 0 ? Effect.succeed(amount) : flags.failWith(`--max-cost ${value.value}: use an amount of US dollars like 5 or 2.50`)
}

const agentFlag = Flag.String("agent").pipe(
  Flag.withDescription("The agent command, given the prompt as its last argument (run without a shell)"),
  Flag.withDefault("claude -p")
)
const agentTimeoutFlag = Flag.String("agent-timeout").pipe(Flag.withDescription("How long one agent run may take"), Flag.withDefault("30m"))

/** The agent's argv and timeout from the flags; a malformed command or duration is a clear error. */
const parseAgent = (input: { readonly agent: string; readonly agentTimeout: string }) =>
  Effect.gen(function*() {
    const agentTimeoutMs = yield* flags.parseDuration("agent-timeout", input.agentTimeout)
    const agent = yield* Effect.try({ try: () => splitCommand(input.agent), catch: (e) => e as Error }).pipe(
      Effect.catch((e) => flags.failWith(`--agent: ${e.message}`))
    )
    if (agent.length === 0) return yield* flags.failWith("--agent is empty")
    return { agent, agentTimeoutMs }
  })

/** The loop settings of `start` and `run`: settings from config, overridden by validated flags. */
const configFromFlags = (input: {
  readonly maxIterations: Option.Option<number>
  readonly maxDuration: Option.Option<string>
  readonly maxTokens: Option.Option<number>
  readonly maxCost: Option.Option<string>
  readonly criteria: ReadonlyArray<string>
}) =>
  Effect.gen(function*() {
    if (Option.isSome(input.maxIterations) && input.maxIterations.value < 1) return yield* flags.failWith("--max-iterations must be at least 1")
    if (Option.isSome(input.maxTokens) && input.maxTokens.value < 1) return yield* flags.failWith("--max-tokens must be at least 1")
    const criteria = yield* parseCriteria(input.criteria)
    const maxDurationMs = yield* parseMaxDuration(input.maxDuration)
    const maxCostUsd = yield* parseMaxCost(input.maxCost)
    const root = project()
    const { settings } = loadSettings({ projectRoot: root, env: process.env })
    const config = loopConfig(settings, {
      ...(Option.isSome(input.maxIterations) ? { maxIterations: input.maxIterations.value } : {}),
      ...(maxDurationMs === undefined ? {} : { maxDurationMs }),
      ...(Option.isSome(input.maxTokens) ? { maxTokens: input.maxTokens.value } : {}),
      ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
      criteria
    })
    return { root, settings, config }
  })

/** Resolves the loop a command is about: --loop, else the latest of this project. */
const resolveLoop = (memory: Memory, loop: Option.Option<string>) => {
  const loopId = Option.getOrUndefined(loop) ?? latestLoop(memory.db, project())
  if (loopId === undefined) return flags.failWith("there is no loop in this project; start one with ralph-mem ralph start <goal>")
  const { state } = loadLoop(memory, loopId)
  return state === undefined ? flags.failWith(`no loop ${loopId}`) : Effect.succeed(state)
}

const describeCriterion = (c: Criterion) => {
  switch (c.kind) {
    case "marker":
      return `marker ${c.marker ?? "[RALPH_SUCCESS]"}`
    case "plan_sections":
      return `sections ${(c.sections ?? DEFAULT_PLAN_SECTIONS).join(", ")}`
    case "min_iterations":
      return `at least ${c.minIterations ?? DEFAULT_MIN_PLAN_ITERATIONS} iterations`
    default:
      return c.command ? `${c.kind} (${c.command.join(" ")})` : c.kind
  }
}

const describeCriteria = (criteria: ReadonlyArray<Criterion>) => criteria.map(describeCriterion).join(", ")

const formatUsage = (usage: NonNullable<Loop["iterations"][number]["usage"]> | undefined) =>
  usage === undefined
    ? "tokens not reported"
    : `${totalTokens(usage)} tokens (in ${usage.inputTokens}, out ${usage.outputTokens}, cache read ${usage.cacheReadTokens}, cache write ${usage.cacheCreationTokens})${
      usage.costUsd === undefined ? "" : `, $${usage.costUsd.toFixed(4)}`
    }`

/** The command that rolls a loop back, for end messages. */
const rollbackHint = (loop: Loop) => {
  const last = loop.iterations.filter((it) => it.snapshotRef !== undefined).at(-1)?.iteration
  return `ralph-mem ralph stop --loop ${loop.loopId} --rollback --to ${last === undefined ? 0 : `N (0-${last})`}`
}

const statusReport = (loop: Loop) => {
  const last = loop.iterations.filter((it) => it.results !== undefined).at(-1)
  const spend = loopSpend(loop)
  return {
    loopId: loop.loopId,
    goal: loop.goal,
    status: loop.status,
    driver: loop.driver,
    sessionId: loop.sessionId ?? null,
    iteration: loop.iterations.at(-1)?.iteration ?? 0,
    maxIterations: loop.config.maxIterations,
    startedAt: new Date(loop.startedAt).toISOString(),
    elapsedMs: (loop.endedAt ?? Date.now()) - loop.startedAt,
    endReason: loop.endReason ?? null,
    lastResults: last?.results ?? [],
    stopConditions: {
      maxIterations: loop.config.maxIterations,
      maxDurationMs: loop.config.maxDurationMs ?? null,
      maxTokens: loop.config.maxTokens ?? null,
      maxCostUsd: loop.config.maxCostUsd ?? null,
      noProgressThreshold: loop.config.noProgressThreshold
    },
    /** Totals over the runs that reported them; null: no run reported any. */
    spend: { tokens: spend.tokens ?? null, costUsd: spend.costUsd ?? null },
    iterations: loop.iterations.map((it) => ({
      iteration: it.iteration,
      passed: it.passed ?? null,
      durationMs: it.completedAt === undefined ? null : it.completedAt - it.startedAt,
      usage: it.usage ?? null
    })),
    waits: loop.waits.map((w) => ({
      iteration: w.iteration,
      limit: w.limit,
      at: new Date(w.at).toISOString(),
      until: new Date(w.until).toISOString(),
      resetReported: w.resetReported,
      message: w.message
    })),
    interruption: loop.interruption ?? null,
    criteria: loop.config.successCriteria,
    mode: loop.prd !== undefined ? "prd" : loop.plan !== undefined ? "plan" : "build",
    stories: loop.prd === undefined
      ? null
      : loop.prd.stories.map((story) => ({ id: story.id, title: story.title, priority: story.priority, passes: story.passes })),
    prdPath: loop.prd?.path ?? null,
    planPath: loop.plan?.path ?? null,
    snapshots: [
      ...(loop.startSnapshotRef === undefined ? [] : [{ iteration: 0, ref: loop.startSnapshotRef }]),
      ...loop.iterations.flatMap((it) => (it.snapshotRef === undefined ? [] : [{ iteration: it.iteration, ref: it.snapshotRef }]))
    ],
    rollbacks: loop.rollbacks
  }
}

/** An age or a run time at the precision a person reads it: "45 s", "3 min", "5 h", "2 d". */
const roughly = (ms: number): string => {
  const seconds = Math.round(ms / 1000)
  if (seconds < 90) return `${seconds} s`
  const minutes = Math.round(seconds / 60)
  if (minutes < 90) return `${minutes} min`
  const hours = Math.round(minutes / 60)
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} d`
}

const printStatus = (loop: Loop) => {
  const r = statusReport(loop)
  return printFields([
    ["loop", r.loopId],
    ["goal", r.goal],
    ["status", `${r.status}${r.endReason ? ` (${r.endReason})` : ""}`],
    ["driver", `${r.driver}${r.sessionId ? `, session ${r.sessionId}` : ""}`],
    ["iteration", `${r.iteration} of ${r.maxIterations}`],
    [
      "started",
      `${formatTime(loop.startedAt)} (${roughly(Date.now() - loop.startedAt)} ago), ` +
      (loop.endedAt ? `ran ${roughly(r.elapsedMs)}, ended` : `running for ${roughly(r.elapsedMs)}`)
    ],
    ["criteria", describeCriteria(loop.config.successCriteria)],
    ...(loop.prd === undefined
      ? []
      : [["stories", `${storyProgress(loop)}: ${loop.prd.stories.map((s) => `${s.id}${s.passes ? " ✓" : ""}`).join(", ")} (${loop.prd.path})`] as const]),
    ...(loop.plan === undefined ? [] : [["plan", loop.plan.path] as const]),
    ["last checks", r.lastResults.map((c) => `${c.kind} ${c.passed ? "passed" : `failed${c.fingerprint ? ` (${c.fingerprint})` : ""}`}`).join(", ") || "not run yet"],
    [
      "stops at",
      [
        `${r.stopConditions.maxIterations} iterations`,
        ...(r.stopConditions.maxDurationMs ? [`${Math.round(r.stopConditions.maxDurationMs / 1000)} s`] : []),
        ...(r.stopConditions.maxTokens ? [`${r.stopConditions.maxTokens} tokens`] : []),
        ...(r.stopConditions.maxCostUsd ? [`$${r.stopConditions.maxCostUsd}`] : [])
      ].join(", ") + `, or ${r.stopConditions.noProgressThreshold} iterations without progress`
    ],
    [
      "spent",
      r.spend.tokens === null
        ? "not reported"
        : `${r.spend.tokens} tokens${r.spend.costUsd === null ? " (cost not reported)" : `, $${r.spend.costUsd.toFixed(4)}`}`
    ],
    ...loop.iterations.map((it) => [
      `  iteration ${it.iteration}`,
      `${it.passed === undefined ? "running" : it.passed ? "passed" : "failed"}${
        it.completedAt === undefined ? "" : `, ${Math.round((it.completedAt - it.startedAt) / 1000)} s`
      }, ${formatUsage(it.usage)}`
    ] as const),
    ...loop.waits.map((w) => [
      "  waited",
      `iteration ${w.iteration}: ${w.limit.replace("_", " ")} until ${formatTime(w.until)} (${w.resetReported ? "the reset the agent reported" : "backoff"}): ${w.message}`
    ] as const),
    ...(loop.interruption === undefined
      ? []
      : [["interrupted", `iteration ${loop.interruption.iteration}: ${loop.interruption.error} (${loop.interruption.message}); it goes on with the next prompt`] as const]),
    ["snapshots", r.snapshots.map((s) => `${s.iteration}`).join(", ") || "none"],
    ...(loop.status === "failed" || loop.status === "stopped" ? [["roll back", rollbackHint(loop)] as const] : [])
  ])
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
const waitCountdown = () => {
  let lastLine = 0
  let current: string | undefined
  return (wait: LimitWaitProgress) => {
    const key = `${wait.iteration}:${wait.until}`
    const text = `ralph-mem: iteration ${wait.iteration} hit a ${wait.limit.replace("_", " ")} (${wait.message}); ` +
      `waiting until ${formatTime(wait.until)}${wait.resetReported ? "" : " (backoff)"}, ${clock(wait.remainingMs)} left; ralph-mem ralph stop ends it`
    if (process.stderr.isTTY) {
      process.stderr.write(`\r\u001b[2K${text}${wait.remainingMs <= 1_000 ? "\n" : ""}`)
    } else if (key !== current || Date.now() - lastLine >= 60_000) {
      process.stderr.write(`${text}\n`)
      lastLine = Date.now()
    }
    current = key
  }
}

/** How a driven loop ended, with the rollback command when it did not succeed. */
const endMessage = (loop: Loop) =>
  `The loop ended: ${loop.status}${loop.endReason ? ` (${loop.endReason})` : ""} after ${loop.iterations.length} iteration(s).` +
  (loop.status === "success" ? "" : ` To undo its changes: ${rollbackHint(loop)}`)

const sessionFlag = Flag.String("session").pipe(
  Flag.withDescription("The Claude Code session to bind to (default: $CLAUDE_CODE_SESSION_ID)"),
  Flag.optional
)

/** The session a loop is bound to: --session, else the Claude Code session this command runs in. */
const sessionToBind = (session: Option.Option<string>) => {
  const sessionId = Option.getOrUndefined(session) ?? process.env["CLAUDE_CODE_SESSION_ID"]
  return sessionId === undefined || sessionId === ""
    ? flags.failWith("no Claude Code session to bind the loop to: run the slash command inside Claude Code, pass --session, or use ralph-mem ralph run for a loop outside a session")
    : Effect.succeed(sessionId)
}

/** Starts a loop bound to a Claude Code session (its Stop hook drives it) and opens the first iteration. */
const startInSession = (
  input: { readonly sessionId: string; readonly db: Option.Option<string>; readonly json: boolean },
  loop: { readonly loopId: string; readonly root: string; readonly goal: string; readonly config: LoopConfig; readonly plan?: { readonly path: string } },
  announcement: string
) =>
  Effect.gen(function*() {
    const { sessionId } = input
    const { loopId } = loop
    yield* withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const running = activeLoopForSession(memory.db, sessionId)
        if (running !== undefined) return yield* flags.failWith(`loop ${running} is already running in this session; stop it first (ralph-mem ralph stop)`)
        const snapshotRef = yield* Effect.sync(() => takeSnapshot(loop.root, loopId, "start")).pipe(Effect.catchDefect(() => Effect.succeed(undefined)))
        yield* execute(memory, loopId, {
          _tag: "Start", loopId, goal: loop.goal, projectPath: loop.root, driver: "session", sessionId, config: loop.config,
          ...(snapshotRef === undefined ? {} : { snapshotRef }),
          ...(loop.plan === undefined ? {} : { plan: loop.plan })
        }, "cli:ralph-start")
        const started = yield* execute(memory, loopId, { _tag: "BeginIteration" }, "cli:ralph-start")
        if (input.json) return yield* printJson(statusReport(started))
        yield* Console.log(announcement)
      })
    )
  })

const start = Command.make(
  "start",
  {
    goal: Argument.String("goal").pipe(Argument.withDescription("What the loop works toward"), Argument.variadic({ min: 1 })),
    maxIterations: maxIterationsFlag,
    maxDuration: maxDurationFlag,
    maxTokens: maxTokensFlag,
    maxCost: maxCostFlag,
    criteria: criteriaFlag,
    session: sessionFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const sessionId = yield* sessionToBind(input.session)
      const { root, config } = yield* configFromFlags(input)
      const goal = input.goal.join(" ")
      const loopId = monotonicUlid()()
      yield* startInSession(
        { ...input, sessionId },
        { loopId, root, goal, config },
        `Ralph loop ${loopId} started: ${goal}\nThe harness checks ${describeCriteria(config.successCriteria)} every time you stop, for up to ${config.maxIterations} iterations.`
      )
    })
).pipe(Command.withDescription("Start a loop bound to this Claude Code session: its Stop hook runs the checks and continues until they pass"))

/** `--required-sections "Goal, Steps"` (repeatable): each value may list several, comma-separated. */
const sectionList = (values: ReadonlyArray<string>) => values.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")

const plan = Command.make(
  "plan",
  {
    goal: Argument.String("goal").pipe(Argument.withDescription("What the plan is for"), Argument.variadic({ min: 1 })),
    requiredSections: Flag.String("required-sections").pipe(
      Flag.withDescription(`Headings the plan must have, comma-separated or repeated (default: ${DEFAULT_PLAN_SECTIONS.join(", ")}); Korean headings count for English names`),
      Flag.atLeast(0)
    ),
    minIterations: Flag.Int("min-iterations").pipe(
      Flag.withDescription(`The plan cannot be accepted before this iteration (default: ${DEFAULT_MIN_PLAN_ITERATIONS}; the first is a draft to critique)`),
      Flag.optional
    ),
    marker: Flag.String("marker").pipe(Flag.withDescription(`What ends a complete plan (default: ${DEFAULT_PLAN_MARKER})`), Flag.optional),
    out: Flag.String("out").pipe(Flag.withDescription("Where the final plan is saved (default: .ralph-mem/plans/plan-<loop>.md)"), Flag.optional),
    maxIterations: maxIterationsFlag,
    maxDuration: maxDurationFlag,
    maxTokens: maxTokensFlag,
    maxCost: maxCostFlag,
    session: sessionFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const sessionId = yield* sessionToBind(input.session)
      const sections = sectionList(input.requiredSections)
      const required = sections.length > 0 ? sections : DEFAULT_PLAN_SECTIONS
      const minIterations = Option.getOrElse(input.minIterations, () => DEFAULT_MIN_PLAN_ITERATIONS)
      if (minIterations < 1) return yield* flags.failWith("--min-iterations must be at least 1")
      const marker = Option.getOrElse(input.marker, () => DEFAULT_PLAN_MARKER).trim()
      if (marker === "") return yield* flags.failWith("--marker is empty")
      const gate: ReadonlyArray<Criterion> = [
        { kind: "marker", marker },
        { kind: "plan_sections", sections: required },
        { kind: "min_iterations", minIterations }
      ]
      const { root, config: base } = yield* configFromFlags({ ...input, criteria: [] })
      if (base.maxIterations < minIterations) {
        return yield* flags.failWith(`--max-iterations (${base.maxIterations}) is below --min-iterations (${minIterations})`)
      }
      const config = { ...base, successCriteria: gate }
      const goal = input.goal.join(" ")
      const loopId = monotonicUlid()()
      const path = Option.match(input.out, { onNone: () => join(root, ".ralph-mem", "plans", `plan-${loopId}.md`), onSome: (out) => resolve(out) })
      yield* startInSession(
        { ...input, sessionId },
        { loopId, root, goal, config, plan: { path } },
        [
          `Ralph plan loop ${loopId} started: ${goal}`,
          "Write a plan, not code: while this loop runs, file edits and commands that change anything are blocked. Reading is fine.",
          `Put the complete plan in your reply, with a Markdown heading for each of: ${required.join(", ")} (Korean headings count too).`,
          `The first reply is a draft: ralph-mem will ask you to critique and improve it. From iteration ${minIterations} on, end a complete plan with ${marker}.`,
          `The accepted plan is saved to ${path}.`
        ].join("\n")
      )
    })
).pipe(Command.withDescription("Start a plan-only loop in this session: Claude iterates on a plan (edits blocked) until it has every required section"))

/** A PRD loop's stories, validated; every problem of the file is reported at once. */
const loadPrd = (path: string) => {
  const prd = readPrd(resolve(path))
  return prd instanceof PrdInvalid ? flags.failWith(prd.message) : Effect.succeed({ ...prd, path: resolve(path) })
}

const run = Command.make(
  "run",
  {
    goal: Argument.String("goal").pipe(
      Argument.withDescription("What the loop works toward (with --prd: defaults to the PRD's description)"),
      Argument.variadic({ min: 0 })
    ),
    prd: Flag.String("prd").pipe(
      Flag.withDescription("A prd.json of user stories: one story per iteration, highest priority first, until every story passes the checks"),
      Flag.optional
    ),
    agent: agentFlag,
    agentTimeout: agentTimeoutFlag,
    maxIterations: maxIterationsFlag,
    maxDuration: maxDurationFlag,
    maxTokens: maxTokensFlag,
    maxCost: maxCostFlag,
    criteria: criteriaFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const prd = Option.isSome(input.prd) ? yield* loadPrd(input.prd.value) : undefined
      const goal = input.goal.join(" ").trim() || prd?.description || (prd === undefined ? "" : `Make every story of ${prd.path} pass`)
      if (goal === "") return yield* flags.failWith("what should the loop work toward? Give a goal, or --prd prd.json")
      if (prd !== undefined && prd.stories.every((s) => s.passes)) return yield* flags.failWith(`every story of ${prd.path} already passes`)
      const { root, settings, config } = yield* configFromFlags(input)
      const { agent, agentTimeoutMs } = yield* parseAgent(input)
      yield* withStore(input.db, (memory) =>
        Effect.gen(function*() {
          const loopId = monotonicUlid()()
          const snapshotRef = yield* Effect.sync(() => takeSnapshot(root, loopId, "start")).pipe(Effect.catchDefect(() => Effect.succeed(undefined)))
          yield* execute(memory, loopId, {
            _tag: "Start", loopId, goal, projectPath: root, driver: "external", config,
            ...(snapshotRef === undefined ? {} : { snapshotRef }),
            ...(prd === undefined ? {} : { prd: { path: prd.path, stories: prd.stories } })
          }, "cli:ralph-run")
          if (!input.json) {
            yield* Console.log(`Ralph loop ${loopId}: ${goal} (agent: ${agent.join(" ")}${prd === undefined ? "" : `; ${prd.stories.length} stories from ${prd.path}`})`)
          }
          const loop = yield* driveExternally(memory, loopId, {
            agent,
            env: process.env,
            agentTimeoutMs,
            injectionBudgetTokens: injectionBudgetTokens(settings),
            onIteration: (l) => {
              if (input.json) return
              const it = l.iterations.at(-1)!
              const story = it.storyId === undefined ? "" : ` ${it.storyId}`
              const progress = storyProgress(l)
              process.stdout.write(
                `iteration ${it.iteration}${story}: ${it.passed ? "passed" : "failed"} (${(it.results ?? []).map((r) => `${r.kind} ${r.passed ? "ok" : "failed"}`).join(", ")})${progress === undefined ? "" : `; ${progress}`}; ${formatUsage(it.usage)}\n`
              )
            },
            onWait: waitCountdown()
          })
          if (input.json) return yield* printJson(statusReport(loop))
          yield* Console.log(endMessage(loop))
          if (loop.status !== "success") return yield* flags.failWith(`the loop did not succeed (${loop.status})`)
        })
      )
    })
).pipe(Command.withDescription("Run a loop with a fresh agent process per iteration (default: claude -p) until the checks pass"))

const resume = Command.make(
  "resume",
  {
    loop: loopFlag,
    agent: agentFlag,
    agentTimeout: agentTimeoutFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const { agent, agentTimeoutMs } = yield* parseAgent(input)
      yield* withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const loop = yield* resolveLoop(memory, input.loop)
        if (loop.status !== "running") return yield* flags.failWith(`loop ${loop.loopId} has ended (${loop.status}); start a new one`)
        if (loop.plan !== undefined) {
          return yield* flags.failWith(`loop ${loop.loopId} is a plan loop: it runs inside a Claude Code session, where edits can be blocked; stop it and start a new one with /ralph-mem:ralph plan`)
        }
        yield* execute(memory, loop.loopId, { _tag: "Resume", driver: "external" }, "cli:ralph-resume")
        const { settings } = loadSettings({ projectRoot: loop.projectPath, env: process.env })
        const ended = yield* driveExternally(memory, loop.loopId, {
          agent,
          env: process.env,
          agentTimeoutMs,
          injectionBudgetTokens: injectionBudgetTokens(settings),
          onWait: waitCountdown()
        })
        if (input.json) return yield* printJson(statusReport(ended))
        yield* Console.log(endMessage(ended))
      }))
    })
).pipe(Command.withDescription("Continue a loop whose driver died (a crashed run, a closed session) with a fresh agent per iteration"))

const status = Command.make("status", { loop: loopFlag, db: flags.db, json: flags.json }, (input) =>
  withExistingStore(input.db, (memory) =>
    Effect.gen(function*() {
      const loop = yield* resolveLoop(memory, input.loop)
      if (input.json) return yield* printJson(statusReport(loop))
      yield* printStatus(loop)
    })
  )
).pipe(Command.withDescription("Show a loop: goal, iteration, elapsed time, last checks, stop conditions, snapshots"))

const stop = Command.make(
  "stop",
  {
    loop: loopFlag,
    rollback: Flag.Boolean("rollback").pipe(
      Flag.withDescription("Also restore the working tree to a snapshot (after saving a rescue snapshot); works on an ended loop too"),
      Flag.withDefault(false)
    ),
    to: Flag.Int("to").pipe(Flag.withDescription("With --rollback: the iteration to go back to (0: before the loop)"), Flag.optional),
    force: Flag.Boolean("force").pipe(
      Flag.withDescription("With --rollback on an ended loop: roll back even though files changed since it ended (they are in the rescue snapshot)"),
      Flag.withDefault(false)
    ),
    reason: Flag.String("reason").pipe(Flag.withDescription("Why"), Flag.withDefault("stopped by the user")),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const loop = yield* resolveLoop(memory, input.loop)
        if (Option.isSome(input.to) && !input.rollback) return yield* flags.failWith("--to goes with --rollback")
        if (input.force && !input.rollback) return yield* flags.failWith("--force goes with --rollback")
        const running = loop.status === "running"
        if (!running && !input.rollback) {
          return yield* flags.failWith(`loop ${loop.loopId} has already ended (${loop.status}); to undo its changes: ${rollbackHint(loop)}`)
        }
        let rollback: { toIteration: number; snapshotRef: string; rescueSnapshotRef: string } | undefined
        if (input.rollback) {
          const toIteration = Option.getOrElse(input.to, () => 0)
          const snapshotRef = toIteration === 0 ? loop.startSnapshotRef : loop.iterations.find((it) => it.iteration === toIteration)?.snapshotRef
          if (snapshotRef === undefined) return yield* flags.failWith(`there is no snapshot of iteration ${toIteration} to roll back to`)
          // After the end, the tree should still be what the loop left: anything else is the user's work since.
          const leftBehind = loop.rollbacks.at(-1)?.snapshotRef ?? loop.iterations.findLast((it) => it.snapshotRef !== undefined)?.snapshotRef
          if (!running && !input.force && leftBehind !== undefined && !workingTreeMatches(loop.projectPath, leftBehind)) {
            return yield* flags.failWith(
              `files changed since loop ${loop.loopId} ended; roll back anyway with --force (what the tree holds now is saved in a rescue snapshot first)`
            )
          }
          const rescueSnapshotRef = takeSnapshot(loop.projectPath, loop.loopId, `rescue-${Date.now()}`)
          rollback = { toIteration, snapshotRef, rescueSnapshotRef }
        }
        const after = running
          ? yield* execute(memory, loop.loopId, { _tag: "Stop", reason: input.reason, requestedBy: "cli", ...(rollback === undefined ? {} : { rollback }) }, "cli:ralph-stop")
          : yield* execute(memory, loop.loopId, { _tag: "RollBack", ...rollback! }, "cli:ralph-stop")
        if (rollback !== undefined) restoreSnapshot(loop.projectPath, rollback.snapshotRef)
        if (input.json) return yield* printJson(statusReport(after))
        const rolledBack = rollback === undefined
          ? ""
          : ` The working tree is back at iteration ${rollback.toIteration}; what it held before is saved as ${rollback.rescueSnapshotRef}.`
        yield* Console.log(running ? `Loop ${loop.loopId} stopped.${rolledBack}` : `Loop ${loop.loopId} (${loop.status}) rolled back.${rolledBack}`)
      })
    )
).pipe(Command.withDescription("Stop a loop (the Stop hook sees it before anything else); --rollback restores a snapshot, also after the loop ended"))

const CONFIG_KEYS = ["max_iterations", "max_duration", "max_tokens", "max_cost_usd", "no_progress_threshold", "cooldown_ms", "context_budget"] as const

const config = Command.make(
  "config",
  {
    key: Argument.String("key").pipe(Argument.withDescription(`One of ${CONFIG_KEYS.join(", ")}`), Argument.optional),
    value: Argument.String("value").pipe(Argument.withDescription("The new value"), Argument.optional),
    loop: loopFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const loop = yield* resolveLoop(memory, input.loop)
        const c = loop.config
        const current: Record<(typeof CONFIG_KEYS)[number], string | number | null> = {
          max_iterations: c.maxIterations,
          max_duration: c.maxDurationMs === undefined ? null : `${Math.round(c.maxDurationMs / 1000)}s`,
          max_tokens: c.maxTokens ?? null,
          max_cost_usd: c.maxCostUsd ?? null,
          no_progress_threshold: c.noProgressThreshold,
          cooldown_ms: c.cooldownMs,
          context_budget: c.contextBudget
        }
        if (Option.isNone(input.key)) return yield* input.json ? printJson(current) : printFields(Object.entries(current).map(([k, v]) => [k, String(v)]))
        const key = input.key.value as (typeof CONFIG_KEYS)[number]
        if (!CONFIG_KEYS.includes(key)) return yield* flags.failWith(`unknown loop setting ${input.key.value}; use one of ${CONFIG_KEYS.join(", ")}`)
        if (Option.isNone(input.value)) return yield* input.json ? printJson({ [key]: current[key] }) : Console.log(String(current[key]))
        const raw = input.value.value
        const number = Number(raw)
        const next = { ...c } as { -readonly [K in keyof typeof c]: (typeof c)[K] }
        if (key === "max_duration") {
          const ms = parseDuration(raw)
          if (ms === undefined) {
            return yield* flags.failWith(`max_duration ${raw}: use a duration: ${DURATION_EXAMPLES}`)
          }
          next.maxDurationMs = ms
        } else if (key === "max_cost_usd") {
          if (!(Number.isFinite(number) && number > 0)) return yield* flags.failWith(`max_cost_usd must be an amount of US dollars > 0, got ${raw}`)
          next.maxCostUsd = number
        } else if (key === "context_budget") {
          if (!(number > 0 && number <= 1)) return yield* flags.failWith(`context_budget must be between 0 and 1, got ${raw}`)
          next.contextBudget = number
        } else {
          const min = key === "cooldown_ms" ? 0 : 1
          if (!Number.isInteger(number) || number < min) return yield* flags.failWith(`${key} must be a whole number >= ${min}, got ${raw}`)
          if (key === "max_iterations") next.maxIterations = number
          if (key === "max_tokens") next.maxTokens = number
          if (key === "no_progress_threshold") next.noProgressThreshold = number
          if (key === "cooldown_ms") next.cooldownMs = number
        }
        const changed = yield* execute(memory, loop.loopId, { _tag: "ChangeConfig", config: next }, "cli:ralph-config")
        if (input.json) return yield* printJson(statusReport(changed).stopConditions)
        yield* Console.log(`${key} = ${raw}`)
      })
    )
).pipe(Command.withDescription("Show or change a loop's settings"))

export const ralph = Command.make("ralph").pipe(
  Command.withDescription("The Ralph loop: keep working on one goal until checks the harness runs pass"),
  Command.withSubcommands([start, plan, status, stop, config, run, resume])
)
