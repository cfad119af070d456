/**
 * The settings ralph-mem runs with, and their defaults. YAML files spell keys in snake_case
 * (`memory.context_window`); code reads this camelCase object. Durations are milliseconds here.
 */

export const criterionTypes = ["test_pass", "build_success", "lint_clean", "type_check", "custom", "marker"] as const
export type CriterionType = (typeof criterionTypes)[number]

/** How the loop decides an iteration succeeded. */
export interface SuccessCriterion {
  readonly type: CriterionType
  /** A shell command line, or an argv list run without a shell. Absent: the loop's usual command for the type. */
  readonly command?: string | ReadonlyArray<string>
  readonly expectedExitCode: number
  /** For `marker`: the text the agent prints when done. */
  readonly marker?: string
  readonly timeoutMs?: number
}

export interface SearchSettings {
  /** The recency component of ranking halves every this many days. */
  readonly recencyHalfLifeDays: number
  /** How much recency counts against text relevance (0..1). */
  readonly recencyWeight: number
}

export interface MemorySettings {
  /** The model's context window, in tokens. */
  readonly contextWindow: number
  /** Shares of the context window (each 0..1, together at most 1). */
  readonly system: number
  readonly injectedMemory: number
  readonly task: number
  readonly response: number
  /** Longer tool outputs are trimmed (head and tail kept) and marked as truncated. */
  readonly maxObservationChars: number
  readonly maxPromptChars: number
  /** The most one answer of a memory tool (the MCP server's search, get, ...) may hold, in tokens. */
  readonly toolResultTokens: number
  readonly search: SearchSettings
}

export interface LoopSettings {
  readonly maxIterations: number
  /** null: no time limit. */
  readonly maxDurationMs: number | null
  /** Budget stops (null: none): tokens the iterations used, US dollars they cost, as the agent reports them. */
  readonly maxTokens: number | null
  readonly maxCostUsd: number | null
  /** Stop after this many iterations in a row without progress. */
  readonly noProgressThreshold: number
  readonly cooldownMs: number
  /** Share of the context window one iteration may fill before the loop starts a fresh one. */
  readonly contextBudget: number
  readonly successCriteria: ReadonlyArray<SuccessCriterion>
}

export interface BackupSettings {
  readonly keep: number
  readonly intervalMs: number
}

export interface Settings {
  readonly memory: MemorySettings
  readonly loop: LoopSettings
  readonly backup: BackupSettings
}

export const defaultSettings: Settings = {
  memory: {
    contextWindow: 200_000,
    system: 0.1,
    injectedMemory: 0.15,
    task: 0.35,
    response: 0.4,
    maxObservationChars: 4_000,
    maxPromptChars: 8_000,
    toolResultTokens: 3_000,
    search: { recencyHalfLifeDays: 14, recencyWeight: 0.3 }
  },
  loop: {
    maxIterations: 10,
    maxDurationMs: null,
    maxTokens: null,
    maxCostUsd: null,
    noProgressThreshold: 3,
    cooldownMs: 1_000,
    contextBudget: 0.6,
    successCriteria: [{ type: "test_pass", expectedExitCode: 0 }]
  },
  backup: { keep: 5, intervalMs: 3_600_000 }
}
