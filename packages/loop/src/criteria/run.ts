/**
 * Checks one success criterion. The harness runs the check itself: the agent's word that tests pass counts for
 * nothing, except through an explicit `marker` criterion.
 */
import type { Criterion, CriterionResult } from "@ralph-mem/events"
import { fingerprintFailure, stripAnsi } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { existsSync, realpathSync } from "node:fs"
import { detectCommand, isDetectableKind } from "./detect.ts"
import { checkMinIterations, checkPlanSections } from "./plan.ts"
import { type CommandOutcome, runCommand } from "./process.ts"

const DEFAULT_TIMEOUT_MS = 300_000
const DEFAULT_MARKER = "[RALPH_SUCCESS]"
const OUTPUT_TAIL_CHARS = 2_000

export interface RunCriterionOptions {
  readonly projectRoot: string
  /** The agent's last message, searched by `marker` criteria and read by `plan_sections`. */
  readonly lastAssistantMessage?: string | undefined
  /** The iteration being closed, for `min_iterations`. */
  readonly iteration?: number | undefined
  /** Applies to criteria without their own `timeoutMs`. */
  readonly timeoutMs?: number | undefined
  /** Variables layered over this process's environment for the command. */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/** Never fails: anything that keeps a criterion from passing is a failed result saying why. */
export const runCriterion = (criterion: Criterion, options: RunCriterionOptions): Effect.Effect<CriterionResult> => {
  switch (criterion.kind) {
    case "marker":
      return Effect.sync(() => checkMarker(criterion, options))
    case "plan_sections":
      return Effect.sync(() => checkPlanSections(criterion, options.lastAssistantMessage))
    case "min_iterations":
      return Effect.sync(() => checkMinIterations(criterion, options.iteration))
    default:
      return runCommandCriterion(criterion, options)
  }
}

// --- marker ---------------------------------------------------------------------------------------------------

const checkMarker = (criterion: Criterion, options: RunCriterionOptions): CriterionResult => {
  const marker = criterion.marker ?? DEFAULT_MARKER
  const passed = options.lastAssistantMessage?.includes(marker) ?? false
  const outputTail = passed
    ? `marker ${marker} found in the last assistant message`
    : `marker ${marker} not found in the last assistant message`
  return passed
    ? { kind: "marker", passed, durationMs: 0, outputTail }
    : {
      kind: "marker",
      passed,
      durationMs: 0,
      outputTail,
      fingerprint: fingerprintFailure("", { fallback: outputTail })
    }
}

// --- commands -------------------------------------------------------------------------------------------------

const howToSetCommand = (kind: Criterion["kind"]) =>
  `set one with {"kind":"${kind}","command":["<program>","<arg>",...]} in the loop's success criteria`

const missingCommand = (criterion: Criterion, options: RunCriterionOptions): CriterionResult => {
  const where = isDetectableKind(criterion.kind)
    ? `no command found for ${criterion.kind} in ${options.projectRoot} ` +
      "(no matching package.json script, Makefile target, tsconfig.json, Cargo.toml, go.mod or pyproject.toml)"
    : `no command found for ${criterion.kind}: a ${criterion.kind} criterion needs an explicit command`
  return failedWithoutRunning(criterion.kind, `${where}; ${howToSetCommand(criterion.kind)}`)
}

const failedWithoutRunning = (
  kind: Criterion["kind"],
  reason: string,
  command?: ReadonlyArray<string>
): CriterionResult => ({
  kind,
  passed: false,
  ...(command === undefined ? {} : { command }),
  durationMs: 0,
  outputTail: reason,
  fingerprint: fingerprintFailure("", { fallback: reason.split(";")[0] ?? reason })
})

const commandFor = (criterion: Criterion, projectRoot: string): ReadonlyArray<string> | undefined => {
  if (criterion.command !== undefined && criterion.command.length > 0) return criterion.command
  return criterion.kind === "custom" ? undefined : detectCommand(criterion.kind, projectRoot)
}

/**
 * CI=true keeps test runners out of watch mode and tools out of interactive prompts (create-react-app's jest
 * watches otherwise); NO_COLOR / FORCE_COLOR=0 keep escape codes out of the tail. The caller's env wins.
 */
const commandEnvironment = (extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv => ({
  ...process.env,
  CI: "true",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  ...extra
})

const runCommandCriterion = (criterion: Criterion, options: RunCriterionOptions): Effect.Effect<CriterionResult> =>
  Effect.suspend(() => {
    if (!existsSync(options.projectRoot)) {
      return Effect.succeed(failedWithoutRunning(criterion.kind, `project root ${options.projectRoot} does not exist`))
    }
    const command = commandFor(criterion, options.projectRoot)
    if (command === undefined) return Effect.succeed(missingCommand(criterion, options))
    const timeoutMs = criterion.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    return runCommand(command, { cwd: options.projectRoot, env: commandEnvironment(options.env), timeoutMs }).pipe(
      Effect.map((outcome) => toResult(criterion, command, timeoutMs, outcome, options.projectRoot))
    )
  })

const toResult = (
  criterion: Criterion,
  command: ReadonlyArray<string>,
  timeoutMs: number,
  outcome: CommandOutcome,
  projectRoot: string
): CriterionResult => {
  const expectedExitCode = criterion.expectedExitCode ?? 0
  const passed = outcome.startError === undefined && !outcome.timedOut && outcome.exitCode === expectedExitCode
  const output = stripAnsi(outcome.output)
  const outputTail = tailOf(`${output}${outcomeNote(outcome, expectedExitCode, timeoutMs, command)}`)
  const base: CriterionResult = {
    kind: criterion.kind,
    passed,
    command,
    ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
    ...(outcome.timedOut ? { timedOut: true } : {}),
    durationMs: outcome.durationMs,
    outputTail
  }
  if (passed) return base
  const fingerprint = fingerprintFailure(output, {
    projectRoots: rootsOf(projectRoot),
    fallback: failureSummary(outcome),
    // A hang or a crash is a different failure from the same tests failing normally.
    alwaysInclude: outcome.timedOut || outcome.exitCode === undefined ? [failureSummary(outcome)] : []
  })
  return { ...base, fingerprint }
}

/** Why a run failed, in one line, appended to the tail so the reason survives even when the output is silent. */
const outcomeNote = (
  outcome: CommandOutcome,
  expected: number,
  timeoutMs: number,
  command: ReadonlyArray<string>
): string => {
  if (outcome.startError !== undefined) {
    return `\n[ralph-mem] could not start ${JSON.stringify(command)}: ${outcome.startError}`
  }
  if (outcome.timedOut) return `\n[ralph-mem] timed out after ${timeoutMs} ms; the process group was killed`
  if (outcome.exitCode === undefined) return `\n[ralph-mem] killed by ${outcome.signal ?? "a signal"}`
  if (outcome.exitCode !== expected) return `\n[ralph-mem] exit code ${outcome.exitCode}, expected ${expected}`
  return ""
}

/** Stable across runs of the same failure: no durations, no numbers that vary. */
const failureSummary = (outcome: CommandOutcome): string => {
  if (outcome.startError !== undefined) return `could not start: ${outcome.startError}`
  if (outcome.timedOut) return "timed out"
  if (outcome.exitCode === undefined) return `killed by ${outcome.signal ?? "a signal"}`
  return `exit code ${outcome.exitCode}`
}

const tailOf = (text: string): string => text.trimEnd().slice(-OUTPUT_TAIL_CHARS).trim()

/** Tools may print the project path as given or resolved through symlinks (macOS /var -> /private/var). */
const rootsOf = (projectRoot: string): ReadonlyArray<string> => {
  try {
    return [projectRoot, realpathSync(projectRoot)]
  } catch {
    return [projectRoot]
  }
}
