/** The environment layer: a few RALPH_MEM_* variables override single settings, above every file. */
import type { Layer } from "./layer.ts"
import { findSpec } from "./schema.ts"

const environmentOverrides: ReadonlyArray<{ readonly variable: string; readonly key: string }> = [
  { variable: "RALPH_MEM_CONTEXT_WINDOW", key: "memory.context_window" },
  { variable: "RALPH_MEM_INJECTION_SHARE", key: "memory.injected_memory" },
  { variable: "RALPH_MEM_MAX_OBSERVATION_CHARS", key: "memory.max_observation_chars" },
  { variable: "RALPH_MEM_MAX_PROMPT_CHARS", key: "memory.max_prompt_chars" },
  { variable: "RALPH_MEM_TOOL_RESULT_TOKENS", key: "memory.tool_result_tokens" },
  { variable: "RALPH_MEM_MAX_ITERATIONS", key: "loop.max_iterations" }
]

export type Environment = Readonly<Record<string, string | undefined>>

const numberSyntax = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i

/** Only plain decimal numbers count; anything else stays text so the problem shows what was given. */
const parseNumber = (raw: string): unknown => (numberSyntax.test(raw) ? Number(raw) : raw)

export const environmentLayer = (env: Environment): Layer => {
  const values = new Map<string, unknown>()
  const problems: Array<string> = []
  for (const { variable, key } of environmentOverrides) {
    const raw = env[variable]?.trim()
    if (raw === undefined || raw === "") continue
    const decoded = findSpec(key)?.decode(parseNumber(raw))
    if (decoded === undefined) continue
    if (decoded.ok) values.set(key, decoded.value)
    else problems.push(...decoded.problems.map((problem) => `${variable}: ${problem}`))
  }
  return { source: "environment", values, problems }
}
