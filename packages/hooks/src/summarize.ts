/**
 * The default session summariser: local and deterministic (no network, no model, no cost). It says what
 * a later session needs: what was asked, what failed and whether it was fixed, the checks that passed,
 * the files changed, and how the session ended in Claude's own words.
 *
 * A new version of it is a new `summarizer` name: sessions summarised by an older one are summarised
 * again (`resummarize.ts`), as a new event.
 */
import {
  oneLine,
  type PathContext,
  type RecordedObservation,
  relativePath,
  relativeText,
  type SessionRecord
} from "@ralph-mem/projections"

export const LOCAL_SUMMARIZER = "local-v2"

export interface Summary {
  readonly summary: string
  /** The session only ran memory commands: it is not a "recent session" worth injecting. */
  readonly memoryOnly: boolean
}

const withoutFinalStop = (text: string) => text.replace(/[.!?\u2026]+$/, "")

/** ralph-mem's own commands, as typed (`/ralph-mem:mem-status`) or as Claude Code wraps them. */
const PLUGIN_COMMAND = /^\/ralph-mem:([\w-]+)\s*([\s\S]*)$/
const WRAPPED_COMMAND = /<command-name>\s*\/?([^<\s]+)\s*<\/command-name>/
const WRAPPED_ARGS = /<command-args>([\s\S]*?)<\/command-args>/
/** Any other slash command (`/clear`, `/compact`, a user's own `/review src`). */
const SLASH_COMMAND = /^\/[\w:-]+(?:\s|$)/
/** Text Claude Code inserts around commands, never typed by the user. */
const COMMAND_NOISE = /^<(?:local-command-[\w-]+|command-(?:message|name|args|stdout|stderr))>/
/** The expansion of one of ralph-mem's command files: it runs the plugin's CLI bundle. */
const COMMAND_EXPANSION = /ralph-mem\.mjs["']?\s+[a-z]/
/** A shell command that runs ralph-mem's memory commands (the bundle, or `ralph-mem` on the PATH). */
const MEMORY_CLI = new RegExp(
  String.raw`ralph-mem\.mjs["']?\s|(?:^|[\s;&|])(?:npx\s+)?ralph-mem\s+` +
    String.raw`(?:status|search|show|forget|inject|timeline|resume|belief|decide|task|why)\b`
)

export type PromptKind =
  | { readonly kind: "real"; readonly text: string }
  /** A Ralph loop started on a goal: the goal is what was asked. */
  | { readonly kind: "goal"; readonly text: string }
  | { readonly kind: "memory" }
  | { readonly kind: "command"; readonly text: string }

const pluginCommand = (name: string, args: string): PromptKind => {
  const started = name === "ralph" ? /^(?:start|plan)\s+([\s\S]+)$/.exec(args.trim()) : null
  // The goal without the loop's own flags.
  const goal = started?.[1]?.replace(/\s--[\w-]+(?:[ =](?!-)\S+)?/g, "").replace(/^["']|["']$/g, "").trim()
  return goal !== undefined && goal !== "" ? { kind: "goal", text: goal } : { kind: "memory" }
}

/** What a prompt is: a real request, a loop's goal, a memory command, or another command. */
export const classifyPrompt = (prompt: string): PromptKind => {
  const text = prompt.trim()
  const typed = PLUGIN_COMMAND.exec(text)
  if (typed !== null) return pluginCommand(typed[1]!, typed[2] ?? "")
  const wrapped = WRAPPED_COMMAND.exec(text)
  if (wrapped !== null) {
    const name = wrapped[1]!
    const args = WRAPPED_ARGS.exec(text)?.[1] ?? ""
    return name.startsWith("ralph-mem:")
      ? pluginCommand(name.slice("ralph-mem:".length), args)
      : { kind: "command", text: `/${name} ${args}`.trim() }
  }
  if (COMMAND_NOISE.test(text)) return { kind: "command", text: "" }
  if (COMMAND_EXPANSION.test(text)) return { kind: "memory" }
  if (SLASH_COMMAND.test(text)) return { kind: "command", text }
  return { kind: "real", text }
}

/** A tool call that only used ralph-mem itself (its CLI, its MCP server). */
const isMemoryTool = (o: RecordedObservation) =>
  (o.toolName ?? "").startsWith("mcp__plugin_ralph-mem_") ||
  (o.toolName === "Bash" && MEMORY_CLI.test(`${o.inputSummary ?? ""} `))

const EDITING_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"])

/** Same command, same tool: what a later passing run must match to resolve an error. */
const runKey = (o: RecordedObservation) => `${o.toolName ?? ""}\u0000${oneLine(o.inputSummary ?? "", 300)}`

const firstErrorLine = (o: RecordedObservation) => {
  // The content keeps the output's lines; the error message is the same text on one line.
  const lines = (o.content.trim() === "" ? o.errorMessage ?? "" : o.content)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^exit code \d+$/i.test(l))
  // The line that names the error, else one that says something failed, beats the first line of the
  // output (Korean: "error", "failure").
  return lines.find((l) => /error|exception|panic|\uc624\ub958/i.test(l)) ??
    lines.find((l) => /fail|cannot|not found|denied|refused|timeout|\uc2e4\ud328/i.test(l)) ?? lines[0] ?? ""
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

export const summarizeSession = (record: SessionRecord, paths: Partial<PathContext> = {}): Summary | undefined => {
  const context: PathContext = { project: paths.project ?? record.project ?? "/", home: paths.home }
  const show = (text: string) => relativeText(text, context)
  const prompts = record.prompts.map(classifyPrompt)
  const withText = prompts.filter((p): p is Exclude<PromptKind, { kind: "memory" }> => p.kind !== "memory")
  const asked = withText.find((p) => p.kind === "real" || p.kind === "goal") ??
    withText.find((p) => p.kind === "command" && p.text !== "")
  const work = record.observations.filter((o) => !isMemoryTool(o))
  const memoryOnly = asked === undefined && work.length === 0 && prompts.some((p) => p.kind === "memory")
  if (memoryOnly) return { summary: "Only ran ralph-mem's memory commands.", memoryOnly: true }

  const errors = work.map((o, at) => ({ o, at })).filter(({ o }) => o.type === "error")
  const resolvedAt = (error: { o: RecordedObservation; at: number }) =>
    work.findIndex((o, at) => at > error.at && o.type !== "error" && runKey(o) === runKey(error.o))
  const describeError = (error: { o: RecordedObservation; at: number }) => {
    const what = error.o.inputSummary ?? error.o.toolName ?? "a tool"
    const fixed = resolvedAt(error) >= 0
    const why = oneLine(show(firstErrorLine(error.o)), 140)
    return `\`${oneLine(show(what), 80)}\` failed (${why})${fixed ? ", fixed later" : ", still failing"}`
  }
  // One line per failing command: its last failure says whether it was fixed.
  const lastFailures = [...new Map(errors.map((e) => [runKey(e.o), e])).values()]
  const open = lastFailures.filter((e) => resolvedAt(e) < 0)
  const fixed = lastFailures.filter((e) => resolvedAt(e) >= 0)
  const passed = work.filter((o) => o.type === "success")
  const checks = [...new Set(passed.map((o) => oneLine(show(o.inputSummary ?? o.toolName ?? ""), 80)))]
  const edited = work.filter((o) => EDITING_TOOLS.has(o.toolName ?? "")).flatMap((o) => o.files)
  const changed = [...new Set(edited.map((f) => relativePath(f, context)))]
  const outcome = record.lastReply === null ? "" : oneLine(show(record.lastReply), 300)

  const parts = [
    asked === undefined ? undefined : `Asked: ${withoutFinalStop(oneLine(show(asked.text), 200))}`,
    // How it ended, in Claude's words, comes before the details: a summary cut short still says it.
    outcome === "" ? undefined : `Outcome: ${withoutFinalStop(outcome)}`,
    errors.length === 0
      ? undefined
      : `Errors (${count(lastFailures.length, "command")}, ${fixed.length} fixed): ${
        [...open, ...fixed].slice(0, 4).map(describeError).join("; ")
      }`,
    checks.length === 0 ? undefined : `Passed: ${checks.slice(-4).map((c) => `\`${c}\``).join(", ")}`,
    changed.length === 0
      ? undefined
      : `Changed: ${changed.slice(0, 10).join(", ")}${changed.length > 10 ? ` and ${changed.length - 10} more` : ""}`
  ].filter((p): p is string => p !== undefined)
  return parts.length === 0 ? undefined : { summary: `${parts.join(". ")}.`, memoryOnly: false }
}
