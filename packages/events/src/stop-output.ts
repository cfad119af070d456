/**
 * What a Stop hook answers Claude Code: nothing lets Claude stop; `additionalContext` continues the turn
 * with it. One type for the hook runner (packages/hooks) and the loop's session driver (packages/loop),
 * which cannot import each other.
 */
export interface StopOutput {
  readonly hookSpecificOutput?: { readonly hookEventName: "Stop"; readonly additionalContext: string }
  readonly systemMessage?: string
}
