/**
 * What a loop looks like to its user: the report `ralph status --json` prints (and `start`, `run`,
 * `stop` print after acting), its text form, and the end and rollback messages of a driven loop.
 */
import type { Criterion } from "@ralph-mem/events"
import { formatTime } from "@ralph-mem/projections"
import { DEFAULT_MIN_PLAN_ITERATIONS, DEFAULT_PLAN_SECTIONS } from "./criteria/plan.ts"
import { storyProgress } from "./prd.ts"
import { type Loop, loopSpend, totalTokens } from "./state.ts"

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

export const describeCriteria = (criteria: ReadonlyArray<Criterion>) => criteria.map(describeCriterion).join(", ")

/** One iteration's token use (and cost, when the agent reported it). */
export const formatUsage = (usage: NonNullable<Loop["iterations"][number]["usage"]> | undefined) =>
  usage === undefined
    ? "tokens not reported"
    : `${totalTokens(usage)} tokens (in ${usage.inputTokens}, out ${usage.outputTokens}, ` +
      `cache read ${usage.cacheReadTokens}, cache write ${usage.cacheCreationTokens})` +
      (usage.costUsd === undefined ? "" : `, $${usage.costUsd.toFixed(4)}`)

/** The command that rolls a loop back, for end messages; or that none can, when no snapshot was taken. */
export const rollbackHint = (loop: Loop) => {
  const saved = loop.iterations.filter((it) => it.snapshotRef !== undefined).map((it) => it.iteration)
  if (loop.startSnapshotRef !== undefined) saved.unshift(0)
  if (saved.length === 0) return "none: no snapshot of it could be taken"
  const contiguous = saved.every((iteration, i) => iteration === saved[0]! + i)
  const to = saved.length === 1
    ? `${saved[0]}`
    : contiguous
    ? `N (${saved[0]}-${saved.at(-1)})`
    : `N (one of ${saved.join(", ")})`
  return `ralph-mem ralph stop --loop ${loop.loopId} --rollback --to ${to}`
}

/** How a driven loop ended, with the rollback command when it did not succeed. */
export const endMessage = (loop: Loop) =>
  `The loop ended: ${loop.status}${loop.endReason ? ` (${loop.endReason})` : ""} ` +
  `after ${loop.iterations.length} iteration(s).` +
  (loop.status === "success" ? "" : ` To undo its changes: ${rollbackHint(loop)}.`)

/** A loop as plain data (`--json`); `now` gives the elapsed time of a running loop. */
export const statusReport = (loop: Loop, now = Date.now()) => {
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
    elapsedMs: (loop.endedAt ?? now) - loop.startedAt,
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
      : loop.prd.stories.map((story) => ({
        id: story.id,
        title: story.title,
        priority: story.priority,
        passes: story.passes
      })),
    prdPath: loop.prd?.path ?? null,
    planPath: loop.plan?.path ?? null,
    snapshots: [
      ...(loop.startSnapshotRef === undefined ? [] : [{ iteration: 0, ref: loop.startSnapshotRef }]),
      ...loop.iterations.flatMap((it) =>
        it.snapshotRef === undefined ? [] : [{ iteration: it.iteration, ref: it.snapshotRef }]
      )
    ],
    /** The points no rollback can return to: no snapshot of them could be taken, and why. */
    snapshotProblems: [
      ...(loop.startSnapshotProblem === undefined ? [] : [{ iteration: 0, problem: loop.startSnapshotProblem }]),
      ...loop.iterations.flatMap((it) =>
        it.snapshotProblem === undefined ? [] : [{ iteration: it.iteration, problem: it.snapshotProblem }]
      )
    ],
    rollbacks: loop.rollbacks
  }
}

export type StatusReport = ReturnType<typeof statusReport>

const checkLine = (c: StatusReport["lastResults"][number]) =>
  `${c.kind} ${c.passed ? "passed" : `failed${c.fingerprint ? ` (${c.fingerprint})` : ""}`}`

const stopsAt = (s: StatusReport["stopConditions"]) =>
  [
    `${s.maxIterations} iterations`,
    ...(s.maxDurationMs ? [`${Math.round(s.maxDurationMs / 1000)} s`] : []),
    ...(s.maxTokens ? [`${s.maxTokens} tokens`] : []),
    ...(s.maxCostUsd ? [`$${s.maxCostUsd}`] : [])
  ].join(", ") + `, or ${s.noProgressThreshold} iterations without progress`

/** An age or a run time at the precision a person reads it: "45 s", "3 min", "5 h", "2 d". */
const roughly = (ms: number): string => {
  const seconds = Math.round(ms / 1000)
  if (seconds < 90) return `${seconds} s`
  const minutes = Math.round(seconds / 60)
  if (minutes < 90) return `${minutes} min`
  const hours = Math.round(minutes / 60)
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} d`
}

/** The text form of `ralph status`: labelled fields, one per line. */
export const statusFields = (loop: Loop, now = Date.now()): ReadonlyArray<readonly [string, string]> => {
  const r = statusReport(loop, now)
  const stories = loop.prd === undefined ? [] : [
    [
      "stories",
      `${storyProgress(loop)}: ${loop.prd.stories.map((s) => `${s.id}${s.passes ? " ✓" : ""}`).join(", ")} ` +
      `(${loop.prd.path})`
    ] as const
  ]
  return [
    ["loop", r.loopId],
    ["goal", r.goal],
    ["status", `${r.status}${r.endReason ? ` (${r.endReason})` : ""}`],
    ["driver", `${r.driver}${r.sessionId ? `, session ${r.sessionId}` : ""}`],
    ["iteration", `${r.iteration} of ${r.maxIterations}`],
    [
      "started",
      `${formatTime(loop.startedAt)} (${roughly(now - loop.startedAt)} ago), ` +
      (loop.endedAt ? `ran ${roughly(r.elapsedMs)}, ended` : `running for ${roughly(r.elapsedMs)}`)
    ],
    ["criteria", describeCriteria(loop.config.successCriteria)],
    ...stories,
    ...(loop.plan === undefined ? [] : [["plan", loop.plan.path] as const]),
    ["last checks", r.lastResults.map(checkLine).join(", ") || "not run yet"],
    ["stops at", stopsAt(r.stopConditions)],
    [
      "spent",
      r.spend.tokens === null
        ? "not reported"
        : `${r.spend.tokens} tokens${
          r.spend.costUsd === null ? " (cost not reported)" : `, $${r.spend.costUsd.toFixed(4)}`
        }`
    ],
    ...loop.iterations.map((it) =>
      [
        `  iteration ${it.iteration}`,
        `${it.passed === undefined ? "running" : it.passed ? "passed" : "failed"}${
          it.completedAt === undefined ? "" : `, ${Math.round((it.completedAt - it.startedAt) / 1000)} s`
        }, ${formatUsage(it.usage)}`
      ] as const
    ),
    ...loop.waits.map((w) =>
      [
        "  waited",
        `iteration ${w.iteration}: ${w.limit.replace("_", " ")} until ${formatTime(w.until)} ` +
        `(${w.resetReported ? "the reset the agent reported" : "backoff"}): ${w.message}`
      ] as const
    ),
    ...(loop.interruption === undefined ? [] : [
      [
        "interrupted",
        `iteration ${loop.interruption.iteration}: ${loop.interruption.error} (${loop.interruption.message}); ` +
        "it goes on with the next prompt"
      ] as const
    ]),
    ["snapshots", r.snapshots.map((s) => `${s.iteration}`).join(", ") || "none"],
    ...r.snapshotProblems.map((p) =>
      ["  no snapshot", `of ${p.iteration === 0 ? "the start" : `iteration ${p.iteration}`}: ${p.problem}`] as const
    ),
    ...(loop.status === "failed" || loop.status === "stopped" ? [["roll back", rollbackHint(loop)] as const] : [])
  ]
}
