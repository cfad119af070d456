/**
 * The prompt that starts each iteration: it re-anchors the agent on the goal, says what the harness
 * found failing (fingerprint and output tail), and what earlier iterations tried. Pure; bounded by a
 * character budget so a noisy test run cannot flood the context.
 */
import type { CriterionResult } from "@ralph-mem/events"
import type { Loop } from "./state.ts"

const clip = (text: string, max: number) => (text.length > max ? `…${text.slice(text.length - max)}` : text)

const describeResult = (r: CriterionResult, tailChars: number): string => {
  const command = r.command === undefined ? "" : ` \`${r.command.join(" ")}\``
  const outcome = r.timedOut ? "timed out" : r.exitCode === undefined ? (r.passed ? "passed" : "failed") : `exit ${r.exitCode}`
  const head = `- ${r.kind}${command}: ${outcome}${r.fingerprint ? ` — ${r.fingerprint}` : ""}`
  return r.passed || r.outputTail.trim() === "" ? head : `${head}\n  \`\`\`\n${clip(r.outputTail.trim(), tailChars)}\n  \`\`\``
}

export interface PromptContext {
  /** Decisive results memory holds from this loop (errors and successes), newest first, as lines. */
  readonly memoryLines?: ReadonlyArray<string>
  /** Upper bound on the prompt's length. */
  readonly maxChars: number
}

export const iterationPrompt = (loop: Loop, context: PromptContext): string => {
  const current = loop.iterations.at(-1)
  const completed = loop.iterations.filter((it) => it.completedAt !== undefined)
  const last = completed.at(-1)
  const failing = (last?.results ?? []).filter((r) => !r.passed)
  const tailChars = Math.max(200, Math.floor(context.maxChars / 4 / Math.max(1, failing.length)))
  const sections = [
    `[ralph-mem loop ${loop.loopId}] Goal: ${loop.goal}`,
    `This is iteration ${current?.iteration ?? 1} of at most ${loop.config.maxIterations}.`,
    failing.length === 0
      ? "Work toward the goal. When you believe it is met, stop: the harness then runs the success criteria itself."
      : `The harness ran the success criteria after iteration ${last!.iteration} and they did not pass:\n${failing.map((r) => describeResult(r, tailChars)).join("\n")}`,
    completed.length > 1
      ? `Earlier iterations:\n${completed.slice(0, -1).map((it) => {
        const failed = (it.results ?? []).filter((r) => !r.passed).map((r) => r.fingerprint ?? r.kind)
        return `- ${it.iteration}: ${it.passed ? "passed" : `failed (${failed.join("; ") || "criteria"})`}${(it.filesChanged ?? []).length > 0 ? `; changed ${(it.filesChanged ?? []).slice(0, 8).join(", ")}` : ""}`
      }).join("\n")}`
      : undefined,
    (context.memoryLines ?? []).length > 0 ? `What memory recorded in this loop:\n${context.memoryLines!.join("\n")}` : undefined,
    failing.length === 0
      ? undefined
      : "Fix what failed above and keep to the goal. Stop when you believe it is met; the harness checks again. The user can end the loop with /ralph-mem:ralph stop."
  ].filter((s): s is string => s !== undefined)
  const prompt = sections.join("\n\n")
  return prompt.length > context.maxChars ? `${prompt.slice(0, context.maxChars - 1)}…` : prompt
}
