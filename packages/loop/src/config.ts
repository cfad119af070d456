/**
 * A loop's configuration: defaults from settings (YAML and environment), overridden by the flags of
 * `ralph start` / `ralph run`. Flags are parsed strictly: an unknown criterion is an error, never text
 * folded into the goal.
 */
import { type Criterion, type CriterionKind, type LoopConfig, redactStrings } from "@ralph-mem/events"
import type { Settings, SuccessCriterion } from "@ralph-mem/projections"
import { splitCommand } from "./argv.ts"

const KINDS: ReadonlyArray<CriterionKind> = ["test_pass", "build_success", "lint_clean", "type_check", "custom", "marker"]

const fromSetting = (c: SuccessCriterion): Criterion => ({
  kind: c.type,
  ...(c.command === undefined ? {} : { command: typeof c.command === "string" ? splitCommand(c.command) : c.command }),
  ...(c.expectedExitCode === 0 ? {} : { expectedExitCode: c.expectedExitCode }),
  ...(c.marker === undefined ? {} : { marker: c.marker }),
  ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs })
})

/**
 * One `--criteria` value: a kind (`test_pass`), a kind with its command (`test_pass=npm run test:unit`,
 * `custom=make check`) or a marker (`marker=[DONE]`). Returns the criterion, or why it is not one.
 */
export const parseCriterion = (text: string): Criterion | string => {
  const eq = text.indexOf("=")
  const kind = (eq === -1 ? text : text.slice(0, eq)).trim()
  const value = eq === -1 ? undefined : text.slice(eq + 1).trim()
  if (!KINDS.includes(kind as CriterionKind)) return `unknown criterion ${JSON.stringify(kind)}; use one of ${KINDS.join(", ")}`
  if (kind === "marker") return { kind: "marker", ...(value ? { marker: value } : {}) }
  if (kind === "custom" && !value) return "custom needs a command: custom=<command>"
  if (value === undefined || value === "") return { kind: kind as CriterionKind }
  try {
    const command = splitCommand(value)
    if (command.length === 0) return `${kind}= needs a command`
    // Memory never stores a secret, so a command holding one would be recorded, and run, masked.
    if (JSON.stringify(redactStrings(command)) !== JSON.stringify(command)) {
      return `the ${kind} command holds a password or token, which memory never stores ` +
        "(the loop would run it masked); let the command read it from an environment variable or a file instead"
    }
    return { kind: kind as CriterionKind, command }
  } catch (error) {
    return (error as Error).message
  }
}

export interface LoopOverrides {
  readonly maxIterations?: number
  readonly maxDurationMs?: number
  readonly maxTokens?: number
  readonly maxCostUsd?: number
  readonly criteria?: ReadonlyArray<Criterion>
}

export const loopConfig = (settings: Settings, overrides: LoopOverrides = {}): LoopConfig => {
  const maxDurationMs = overrides.maxDurationMs ?? settings.loop.maxDurationMs ?? undefined
  const maxTokens = overrides.maxTokens ?? settings.loop.maxTokens ?? undefined
  const maxCostUsd = overrides.maxCostUsd ?? settings.loop.maxCostUsd ?? undefined
  return {
    maxIterations: overrides.maxIterations ?? settings.loop.maxIterations,
    ...(maxDurationMs === undefined ? {} : { maxDurationMs }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    noProgressThreshold: settings.loop.noProgressThreshold,
    cooldownMs: settings.loop.cooldownMs,
    contextBudget: settings.loop.contextBudget,
    successCriteria: overrides.criteria !== undefined && overrides.criteria.length > 0
      ? overrides.criteria
      : settings.loop.successCriteria.map(fromSetting)
  }
}
