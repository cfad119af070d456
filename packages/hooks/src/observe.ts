/**
 * Turning a tool call into an observation: classified, summarised, with the files it touched and its
 * output trimmed to a size limit. Pure: the same call gives the same observation.
 */
import type { ObservationKind } from "@ralph-mem/events"
import { checkKind, extractFailures, failureHeadline, stripAnsi } from "@ralph-mem/projections"
import { oneLine } from "@ralph-mem/projections"
import type { PostToolUseFailureInput, PostToolUseInput } from "./payload.ts"

export interface ToolObservation {
  readonly kind: ObservationKind
  readonly toolName: string
  readonly inputSummary?: string
  readonly content: string
  readonly truncated?: boolean
  readonly files: ReadonlyArray<string>
  readonly errorMessage?: string
  readonly toolUseId?: string
  readonly durationMs?: number
}

/**
 * A call of ralph-mem's own memory tools (plugin ralph-mem, MCP server `memory`). Their server records each as
 * a MemoryToolCalled event; recorded again as an observation, what memory answered would come back as a new
 * memory, and the next search would find its own answers.
 */
export const isMemoryToolCall = (toolName: string): boolean => toolName.startsWith("mcp__plugin_ralph-mem_memory__")

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined)

/** Keeps the head and the tail, where errors and summaries are, and says how much was cut. */
export const trim = (content: string, limit: number): { readonly content: string; readonly truncated: boolean } => {
  if (content.length <= limit) return { content, truncated: false }
  const head = Math.floor(limit * 0.6)
  const tail = limit - head
  return {
    content: `${content.slice(0, head)}\n… [${content.length - limit} characters cut] …\n${
      content.slice(content.length - tail)
    }`,
    truncated: true
  }
}

/** A compact, human-readable summary of what the tool was asked to do. */
export const summarizeInput = (toolName: string, toolInput: unknown): string | undefined => {
  const input = record(toolInput)
  const pick = (...keys: ReadonlyArray<string>) => keys.map((k) => text(input[k])).find((v) => v !== undefined)
  const summary = toolName === "Bash"
    ? pick("command")
    : toolName === "Grep"
    ? [pick("pattern"), pick("path", "glob")].filter(Boolean).join(" in ")
    : pick("file_path", "notebook_path", "path", "pattern", "url", "query", "description", "prompt", "skill", "command")
  if (summary !== undefined && summary !== "") return oneLine(summary, 300)
  const keys = Object.keys(input)
  return keys.length === 0 ? undefined : oneLine(`${keys.join(", ")}`, 300)
}

/** The files a tool call names: its input's paths, and the path a Write or Edit reports back. */
const filesTouched = (toolInput: unknown, toolResponse: unknown): ReadonlyArray<string> => {
  const input = record(toolInput)
  const response = record(toolResponse)
  const candidates = [input["file_path"], input["notebook_path"], response["filePath"]]
  return [...new Set(candidates.filter((c): c is string => typeof c === "string" && c.length > 0))]
}

/** What a tool's response says, as text: Bash output, or the essentials of an edit or a read. */
const responseText = (toolName: string, toolInput: unknown, toolResponse: unknown): string => {
  if (typeof toolResponse === "string") return toolResponse
  const response = record(toolResponse)
  if (toolName === "Bash") {
    return [text(response["stdout"]), text(response["stderr"])].filter(Boolean).join("\n")
  }
  if (toolName === "Read") {
    const file = record(response["file"])
    const lines = typeof file["numLines"] === "number" ? file["numLines"] : undefined
    // The file's content is already on disk; remembering that it was read is what matters.
    return `read ${text(file["filePath"]) ?? summarizeInput(toolName, toolInput) ?? "a file"}${
      lines === undefined ? "" : ` (${lines} lines)`
    }`
  }
  if (toolName === "Edit" || toolName === "MultiEdit") {
    const input = record(toolInput)
    return [
      text(input["old_string"]) && `- ${text(input["old_string"])}`,
      text(input["new_string"]) && `+ ${text(input["new_string"])}`
    ]
      .filter(Boolean)
      .join("\n")
  }
  if (toolName === "Write") {
    const content = text(record(toolInput)["content"]) ?? ""
    return `${text(response["type"]) === "create" ? "created" : "wrote"} ${text(response["filePath"]) ?? ""} (${
      content.split("\n").length
    } lines)`
  }
  return toolResponse === undefined ? "" : boundedJson(toolResponse, 64, 100_000)
}

/**
 * The lines an edit changed, from its recorded text (`- old` then `+ new`, as responseText writes it): the
 * new lines the old text did not have, else (a deletion) the old lines that went, marked `-`. Undefined for
 * what is not an edit's text (a Write's "created ...").
 */
export const changedLines = (content: string): Array<string> | undefined => {
  const split = content.startsWith("+ ") ? -1 : content.startsWith("- ") ? content.indexOf("\n+ ") : undefined
  if (split === undefined) return undefined
  const before = split === -1 ? "" : content.slice(2, split)
  const after = split === -1 ? content.slice(2) : content.slice(split + 3)
  const lines = (text: string) => text.split("\n").map((line) => line.trim()).filter((line) => line !== "")
  const old = new Set(lines(before))
  const added = lines(after).filter((line) => !old.has(line))
  if (added.length > 0 || split === -1) return added
  const kept = new Set(lines(after))
  return lines(before).filter((line) => !kept.has(line)).map((line) => `- ${line}`)
}

/**
 * JSON of a tool's response, cut at `maxDepth` levels and `maxChars` characters: responses come from
 * any tool (MCP servers included) and can be nested deeper than a plain JSON.stringify survives.
 */
export const boundedJson = (value: unknown, maxDepth: number, maxChars: number): string => {
  let out = ""
  const write = (v: unknown, depth: number): void => {
    if (out.length > maxChars) return
    if (v === null || typeof v !== "object") {
      out += typeof v === "string"
        ? JSON.stringify(v)
        : typeof v === "number" && !Number.isFinite(v)
        ? "null"
        : String(JSON.stringify(v) ?? "null")
      return
    }
    if (depth >= maxDepth) {
      out += Array.isArray(v) ? "[…]" : "{…}"
      return
    }
    const entries = Array.isArray(v) ? v.map((item) => [undefined, item] as const) : Object.entries(v)
    out += Array.isArray(v) ? "[" : "{"
    entries.forEach(([key, item], i) => {
      if (i > 0) out += ","
      if (key !== undefined) out += `${JSON.stringify(key)}:`
      write(item, depth + 1)
    })
    out += Array.isArray(v) ? "]" : "}"
  }
  write(value, 0)
  return out.length > maxChars ? `${out.slice(0, maxChars)}…` : out
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }

export const observeToolUse = (input: PostToolUseInput, limit: number): ToolObservation => {
  const summary = summarizeInput(input.tool_name, input.tool_input)
  const output = trim(responseText(input.tool_name, input.tool_input, input.tool_response), limit)
  const isCheck = input.tool_name === "Bash" && summary !== undefined && checkKind(summary) !== undefined
  // A check can exit 0 and still fail (`npm test | tail`): its output naming failures makes it an error.
  const failed = isCheck && namesFailures(output.content)
  return {
    kind: failed ? "error" : isCheck ? "success" : "tool_use",
    ...optional("errorMessage", failed ? failureHeadline(output.content) : undefined),
    toolName: input.tool_name,
    content: output.content,
    files: filesTouched(input.tool_input, input.tool_response),
    ...optional("inputSummary", summary),
    ...optional("truncated", output.truncated || undefined),
    ...optional("toolUseId", input.tool_use_id),
    ...optional("durationMs", finite(input.duration_ms))
  }
}

/** Output that names a failure (a failing test, a compiler or linter error), warnings aside. */
const namesFailures = (output: string) =>
  extractFailures(stripAnsi(output).split(/\r?\n/)).some((line) => !/\bwarning\b/i.test(line))

/** A duration Claude Code reports, or nothing when it is not a finite number (`1e400` parses as Infinity). */
const finite = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : undefined)

export const observeToolFailure = (input: PostToolUseFailureInput, limit: number): ToolObservation => {
  const error = input.error ?? (input.is_interrupt === true ? "interrupted" : "failed")
  const output = trim(error, limit)
  return {
    kind: "error",
    toolName: input.tool_name,
    content: output.content,
    files: filesTouched(input.tool_input, undefined),
    errorMessage: oneLine(error, 500),
    ...optional("inputSummary", summarizeInput(input.tool_name, input.tool_input)),
    ...optional("truncated", output.truncated || undefined),
    ...optional("toolUseId", input.tool_use_id),
    ...optional("durationMs", finite(input.duration_ms))
  }
}
