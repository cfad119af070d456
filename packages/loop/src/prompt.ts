/**
 * The prompt that starts each iteration: it re-anchors the agent on the goal, says what the harness
 * found failing (fingerprint and output tail), and what earlier iterations tried. Pure; bounded by a
 * character budget so a noisy test run cannot flood the context.
 */
import type { CriterionResult, PrdStory } from "@ralph-mem/events"
import { relativeValues } from "@ralph-mem/projections"
import { DEFAULT_MIN_PLAN_ITERATIONS, DEFAULT_PLAN_MARKER, DEFAULT_PLAN_SECTIONS } from "./criteria/index.ts"
import { type Loop, storyOf } from "./state.ts"

const clip = (text: string, max: number) => (text.length > max ? `…${text.slice(text.length - max)}` : text)

const describeResult = (r: CriterionResult, tailChars: number): string => {
  const command = r.command === undefined ? "" : ` \`${r.command.join(" ")}\``
  const outcome = r.timedOut
    ? "timed out"
    : r.exitCode === undefined
    ? (r.passed ? "passed" : "failed")
    : `exit ${r.exitCode}`
  const head = `- ${r.kind}${command}: ${outcome}${r.fingerprint ? ` — ${r.fingerprint}` : ""}`
  return r.passed || r.outputTail.trim() === ""
    ? head
    : `${head}\n  \`\`\`\n${clip(r.outputTail.trim(), tailChars)}\n  \`\`\``
}

/** Characters the next prompt may use: the loop's share (`context_budget`) of the injection budget, 4 per token. */
export const promptChars = (loop: Loop, injectionBudgetTokens: number): number =>
  Math.max(2_000, Math.floor(injectionBudgetTokens * loop.config.contextBudget * 4))

export interface PromptContext {
  /** Decisive results memory holds from this loop (errors and successes), newest first, as lines. */
  readonly memoryLines?: ReadonlyArray<string>
  /** Upper bound on the prompt's length. */
  readonly maxChars: number
  /** The user's home folder, written `~` in the prompt. */
  readonly home?: string | undefined
}

/** A PRD loop: the story to work on now, and where the others stand. */
const storySection = (loop: Loop, story: PrdStory): string =>
  [
    `Work on this one story now, and only on it: ${story.id} (priority ${story.priority}) — ${story.title}`,
    story.description.trim() === "" ? undefined : story.description.trim(),
    story.acceptanceCriteria.length === 0
      ? undefined
      : `Acceptance criteria:\n${story.acceptanceCriteria.map((c) => `- ${c}`).join("\n")}`,
    story.notes === undefined ? undefined : `Notes: ${story.notes}`,
    `Stories: ${
      loop.prd!.stories.map((s) => `${s.id}${s.passes ? " (passes)" : s.id === story.id ? " (this one)" : ""}`).join(
        ", "
      )
    }.`,
    "The harness marks the story as passing only when its checks pass; " +
    "do not edit the passes flags in the PRD file yourself."
  ].filter((line) => line !== undefined).join("\n")

/** A plan loop: what the plan must look like, and that the first reply is a draft to critique. */
const planSection = (loop: Loop, iteration: number): string => {
  const gate = loop.config.successCriteria
  const sections = gate.find((c) => c.kind === "plan_sections")?.sections ?? DEFAULT_PLAN_SECTIONS
  const minimum = gate.find((c) => c.kind === "min_iterations")?.minIterations ?? DEFAULT_MIN_PLAN_ITERATIONS
  const marker = gate.find((c) => c.kind === "marker")?.marker ?? DEFAULT_PLAN_MARKER
  return [
    "You are writing a plan, not code: file edits and commands that change anything are blocked " +
    "while this plan loop runs. Reading files and read-only commands are fine.",
    iteration === 1
      ? "Write a first draft of the complete plan in your reply."
      : "Critique the previous draft first (what is missing, wrong, risky or vague), " +
        "then write the complete improved plan in your reply.",
    `The plan needs a Markdown heading for each of: ${sections.join(", ")} (English or Korean headings both count).`,
    `It can be accepted from iteration ${minimum} on. When the plan is complete, end your reply with ${marker}.`
  ].join("\n")
}

/**
 * What Claude is told at the start of an iteration. Paths are named as Claude reads them everywhere else: relative to
 * the loop's project, the home folder as `~` (the log keeps them whole). The loop and the memory lines are made
 * relative before the prompt is put together, so cutting it to length never leaves part of a path.
 */
export const iterationPrompt = (loop: Loop, context: PromptContext): string => {
  const paths = { project: loop.projectPath, home: context.home }
  return promptOf(relativeValues(loop, paths), {
    ...context,
    memoryLines: relativeValues(context.memoryLines ?? [], paths)
  })
}

const promptOf = (loop: Loop, context: PromptContext): string => {
  const current = loop.iterations.at(-1)
  const completed = loop.iterations.filter((it) => it.completedAt !== undefined)
  const last = completed.at(-1)
  const story = storyOf(loop, current)
  // A new story starts clean: the failures shown are those of the same story's last attempt.
  const failing = (last?.results ?? []).filter((r) => !r.passed && (story === undefined || last?.storyId === story.id))
  const tailChars = Math.max(200, Math.floor(context.maxChars / 4 / Math.max(1, failing.length)))
  const kind = loop.prd !== undefined ? "PRD loop" : loop.plan !== undefined ? "plan loop" : "loop"
  const sections = [
    `[ralph-mem ${kind} ${loop.loopId}] Goal: ${loop.goal}`,
    `This is iteration ${current?.iteration ?? 1} of at most ${loop.config.maxIterations}.`,
    story === undefined ? undefined : storySection(loop, story),
    loop.plan === undefined ? undefined : planSection(loop, current?.iteration ?? 1),
    failing.length === 0
      ? "Work toward the goal. When you believe it is met, stop: the harness then runs the success criteria itself."
      : `The harness ran the success criteria after iteration ${last!.iteration} and they did not pass:\n${
        failing.map((r) => describeResult(r, tailChars)).join("\n")
      }`,
    completed.length > 1
      ? `Earlier iterations:\n${
        completed.slice(0, -1).map((it) => {
          const failed = (it.results ?? []).filter((r) => !r.passed).map((r) => r.fingerprint ?? r.kind)
          return `- ${it.iteration}${it.storyId === undefined ? "" : ` (${it.storyId})`}: ${
            it.passed ? "passed" : `failed (${failed.join("; ") || "criteria"})`
          }${(it.filesChanged ?? []).length > 0 ? `; changed ${(it.filesChanged ?? []).slice(0, 8).join(", ")}` : ""}`
        }).join("\n")
      }`
      : undefined,
    (context.memoryLines ?? []).length > 0
      ? `What memory recorded in this loop:\n${context.memoryLines!.join("\n")}`
      : undefined,
    failing.length === 0
      ? undefined
      : "Fix what failed above and keep to the goal. Stop when you believe it is met; the harness checks again. " +
        "The user can end the loop with /ralph-mem:ralph stop."
  ].filter((s): s is string => s !== undefined)
  const prompt = sections.join("\n\n")
  return prompt.length > context.maxChars ? `${prompt.slice(0, context.maxChars - 1)}…` : prompt
}
