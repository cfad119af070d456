/**
 * Settings that shape what memory records and injects. Defaults here; the environment overrides
 * (RALPH_MEM_CONTEXT_WINDOW, RALPH_MEM_INJECTION_SHARE, RALPH_MEM_MAX_OBSERVATION_CHARS,
 * RALPH_MEM_MAX_PROMPT_CHARS). A malformed value is reported and the default kept, never a crash.
 */
export interface MemoryConfig {
  /** The model's context window, in tokens. */
  readonly contextWindow: number
  /** The share of the window injected memory may use (the product's budget: 15%). */
  readonly injectionShare: number
  /** Longer tool outputs are trimmed (head and tail kept) and marked as truncated. */
  readonly maxObservationChars: number
  readonly maxPromptChars: number
}

export const defaultConfig: MemoryConfig = {
  contextWindow: 200_000,
  injectionShare: 0.15,
  maxObservationChars: 4_000,
  maxPromptChars: 8_000
}

const settings: ReadonlyArray<readonly [keyof MemoryConfig, string, (n: number) => boolean]> = [
  ["contextWindow", "RALPH_MEM_CONTEXT_WINDOW", (n) => Number.isInteger(n) && n >= 1_000],
  ["injectionShare", "RALPH_MEM_INJECTION_SHARE", (n) => n > 0 && n <= 1],
  ["maxObservationChars", "RALPH_MEM_MAX_OBSERVATION_CHARS", (n) => Number.isInteger(n) && n >= 200],
  ["maxPromptChars", "RALPH_MEM_MAX_PROMPT_CHARS", (n) => Number.isInteger(n) && n >= 200]
]

export const configFromEnv = (
  env: Readonly<Record<string, string | undefined>>
): { readonly config: MemoryConfig; readonly problems: ReadonlyArray<string> } => {
  const config: Record<string, number> = { ...defaultConfig }
  const problems: Array<string> = []
  for (const [key, variable, valid] of settings) {
    const raw = env[variable]
    if (raw === undefined || raw === "") continue
    const value = Number(raw)
    if (valid(value)) config[key] = value
    else problems.push(`${variable}=${JSON.stringify(raw)} is not valid; using ${defaultConfig[key]}`)
  }
  return { config: config as unknown as MemoryConfig, problems }
}

/** How many tokens injected memory may use. */
export const injectionBudget = (config: MemoryConfig): number => Math.floor(config.contextWindow * config.injectionShare)
