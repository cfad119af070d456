/**
 * The loop's policy, one for both drivers: after an iteration closed, the loop succeeds (the goal is met),
 * fails (a stop condition holds, with its reason) or continues. Pure: the time and the session's
 * continuations come in.
 */
import type { Loop } from "./state.ts"
import { goalMet } from "./state.ts"
import { stopCondition } from "./stop-conditions.ts"

export type Verdict =
  | { readonly _tag: "Succeed" }
  | { readonly _tag: "Fail"; readonly reason: string }
  | { readonly _tag: "Continue" }

export interface PolicyContext {
  readonly now: number
  /**
   * In a session: Claude Code's cap on consecutive Stop-hook continuations (0: none) and how many the
   * loop used since the user's last prompt.
   */
  readonly continuations?: { readonly cap: number; readonly used: number }
}

export const nextStep = (loop: Loop, context: PolicyContext): Verdict => {
  if (goalMet(loop)) return { _tag: "Succeed" }
  const ending = stopCondition(loop, context.now)
  if (ending !== undefined) return { _tag: "Fail", reason: ending }
  const continuations = context.continuations
  if (continuations !== undefined && continuations.cap > 0 && continuations.used >= continuations.cap) {
    return {
      _tag: "Fail",
      reason: `Claude Code allows ${continuations.cap} consecutive Stop-hook continuations ` +
        "(CLAUDE_CODE_STOP_HOOK_BLOCK_CAP); raise it, or continue with ralph-mem ralph resume"
    }
  }
  return { _tag: "Continue" }
}
