/**
 * A loop's configuration: defaults from settings (YAML and environment), overridden by the flags of
 * `ralph start` / `ralph run`. Flags are parsed strictly: an unknown criterion is an error, never text
 * folded into the goal.
 */
import { type Criterion, type CriterionKind, type LoopConfig, redactStrings } from "@ralph-mem/events"
import { DURATION_EXAMPLES, parseDuration, type Settings, type SuccessCriterion } from "@ralph-mem/settings"
import { splitCommand } from "./argv.ts"

const KINDS: ReadonlyArray<CriterionKind> = [
  "test_pass",
  "build_success",
  "lint_clean",
  "type_check",
  "custom",
  "marker"
]

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
  if (!KINDS.includes(kind as CriterionKind)) {
    return `unknown criterion ${JSON.stringify(kind)}; use one of ${KINDS.join(", ")}`
  }
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

/**
 * The loop limits as a user types them (the flags of `ralph start`, `plan` and `run`). Absent values keep
 * the settings' defaults; a present one must be valid.
 */
export interface LoopLimitsInput {
  readonly maxIterations?: number | undefined
  readonly maxDuration?: string | undefined
  readonly maxTokens?: number | undefined
  readonly maxCost?: string | undefined
  readonly criteria?: ReadonlyArray<string> | undefined
}

/** Why typed loop limits or a loop setting were refused, in words the user acts on. */
export class LoopConfigInvalid {
  readonly _tag = "LoopConfigInvalid"
  constructor(readonly message: string) {}
}

/** `2.50` or `$2.50`: a positive amount of US dollars, else undefined. */
const dollars = (text: string) => {
  const amount = Number(text.trim().replace(/^\$/, ""))
  return Number.isFinite(amount) && amount > 0 ? amount : undefined
}

/** Validates typed loop limits into overrides for `loopConfig`; the first problem is the answer. */
export const parseLoopLimits = (input: LoopLimitsInput): LoopOverrides | LoopConfigInvalid => {
  if (input.maxIterations !== undefined && input.maxIterations < 1) {
    return new LoopConfigInvalid("--max-iterations must be at least 1")
  }
  if (input.maxTokens !== undefined && input.maxTokens < 1) {
    return new LoopConfigInvalid("--max-tokens must be at least 1")
  }
  const criteria: Array<Criterion> = []
  for (const value of input.criteria ?? []) {
    const parsed = parseCriterion(value)
    if (typeof parsed === "string") return new LoopConfigInvalid(`--criteria ${value}: ${parsed}`)
    criteria.push(parsed)
  }
  const maxDurationMs = input.maxDuration === undefined ? undefined : parseDuration(input.maxDuration.trim())
  if (input.maxDuration !== undefined && maxDurationMs === undefined) {
    return new LoopConfigInvalid(
      `--max-duration ${JSON.stringify(input.maxDuration)} is not a duration; use 0, ${DURATION_EXAMPLES}`
    )
  }
  const maxCostUsd = input.maxCost === undefined ? undefined : dollars(input.maxCost)
  if (input.maxCost !== undefined && maxCostUsd === undefined) {
    return new LoopConfigInvalid(`--max-cost ${input.maxCost}: use an amount of US dollars like 5 or 2.50`)
  }
  return {
    ...(input.maxIterations === undefined ? {} : { maxIterations: input.maxIterations }),
    ...(maxDurationMs === undefined ? {} : { maxDurationMs }),
    ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    criteria
  }
}

/** The settings `ralph config` shows and changes, by the names of the settings file. */
export const LOOP_SETTING_KEYS = [
  "max_iterations",
  "max_duration",
  "max_tokens",
  "max_cost_usd",
  "no_progress_threshold",
  "cooldown_ms",
  "context_budget"
] as const
export type LoopSettingKey = (typeof LOOP_SETTING_KEYS)[number]

/** A loop's settings as `ralph config` shows them (null: no limit). */
export const loopSettings = (c: LoopConfig): Record<LoopSettingKey, string | number | null> => ({
  max_iterations: c.maxIterations,
  max_duration: c.maxDurationMs === undefined ? null : `${Math.round(c.maxDurationMs / 1000)}s`,
  max_tokens: c.maxTokens ?? null,
  max_cost_usd: c.maxCostUsd ?? null,
  no_progress_threshold: c.noProgressThreshold,
  cooldown_ms: c.cooldownMs,
  context_budget: c.contextBudget
})

export const isLoopSettingKey = (key: string): key is LoopSettingKey =>
  (LOOP_SETTING_KEYS as ReadonlyArray<string>).includes(key)

/** The config with one setting changed to a typed value, or why the value does not fit the setting. */
export const changeLoopSetting = (c: LoopConfig, key: LoopSettingKey, raw: string): LoopConfig | LoopConfigInvalid => {
  const number = Number(raw)
  switch (key) {
    case "max_duration": {
      const ms = parseDuration(raw)
      return ms === undefined
        ? new LoopConfigInvalid(`max_duration ${raw}: use a duration: ${DURATION_EXAMPLES}`)
        : { ...c, maxDurationMs: ms }
    }
    case "max_cost_usd":
      return Number.isFinite(number) && number > 0
        ? { ...c, maxCostUsd: number }
        : new LoopConfigInvalid(`max_cost_usd must be an amount of US dollars > 0, got ${raw}`)
    case "context_budget":
      return number > 0 && number <= 1
        ? { ...c, contextBudget: number }
        : new LoopConfigInvalid(`context_budget must be between 0 and 1, got ${raw}`)
    default: {
      const min = key === "cooldown_ms" ? 0 : 1
      if (!Number.isInteger(number) || number < min) {
        return new LoopConfigInvalid(`${key} must be a whole number >= ${min}, got ${raw}`)
      }
      if (key === "max_iterations") return { ...c, maxIterations: number }
      if (key === "max_tokens") return { ...c, maxTokens: number }
      if (key === "no_progress_threshold") return { ...c, noProgressThreshold: number }
      return { ...c, cooldownMs: number }
    }
  }
}

/**
 * What every loop config must satisfy, whoever built it: the decider refuses a Start or a ChangeConfig
 * that breaks it, so a bad limit never reaches the log.
 */
export const loopConfigProblem = (c: LoopConfig): string | undefined => {
  if (!Number.isInteger(c.maxIterations) || c.maxIterations < 1) return "max_iterations must be a whole number >= 1"
  if (c.maxDurationMs !== undefined && !(c.maxDurationMs >= 0)) return "max_duration must be a duration"
  if (c.maxTokens !== undefined && !(Number.isInteger(c.maxTokens) && c.maxTokens >= 1)) {
    return "max_tokens must be a whole number >= 1"
  }
  if (c.maxCostUsd !== undefined && !(Number.isFinite(c.maxCostUsd) && c.maxCostUsd > 0)) {
    return "max_cost_usd must be an amount of US dollars > 0"
  }
  if (!Number.isInteger(c.noProgressThreshold) || c.noProgressThreshold < 1) {
    return "no_progress_threshold must be a whole number >= 1"
  }
  if (!Number.isInteger(c.cooldownMs) || c.cooldownMs < 0) return "cooldown_ms must be a whole number >= 0"
  if (!(c.contextBudget > 0 && c.contextBudget <= 1)) return "context_budget must be between 0 and 1"
  return undefined
}
