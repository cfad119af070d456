/**
 * A local stand-in for the Anthropic Messages API, good enough for the real Claude Code CLI.
 *
 * The CLI only needs `POST /v1/messages?beta=true` answered as SSE (see /work/shared/claude-code.md);
 * everything else gets `200 {}`. Every request is recorded so tests can assert on what the model saw,
 * and the model's replies are scripted by the test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** One tool call the scripted model makes. `id` defaults to a unique `toolu_mock_<n>`. */
export interface ToolCall {
  readonly name: string
  readonly input: Readonly<Record<string, unknown>>
  readonly id?: string
}

/** What the scripted model answers: plain text (ends the turn) or tool calls (optionally after some text). */
export type Reply = string | { readonly text: string } | {
  readonly toolUses: ReadonlyArray<ToolCall>
  readonly text?: string
}

/** The parts of a Messages request body the harness looks at; the rest stays reachable through `unknown`. */
export interface MessagesBody {
  readonly model?: string
  readonly stream?: boolean
  readonly system?: unknown
  readonly messages?: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  readonly tools?: ReadonlyArray<{ readonly name: string }>
  readonly [key: string]: unknown
}

export interface RecordedRequest {
  readonly method: string
  /** Path with query string, e.g. `/v1/messages?beta=true`. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body, or `undefined` when there was none or it was not JSON. */
  readonly body: MessagesBody | undefined
  /** `main` consumed the script, `side` was a tool-less side request (title, summary), `other` got `200 {}`. */
  readonly kind: "main" | "side" | "other"
  /** Index into the script for `main` requests. */
  readonly scriptIndex?: number
}

/** Decides the model's reply to the `index`-th main request (0-based). */
export type Script = (request: RecordedRequest, index: number) => Reply

export interface MockAnthropicOptions {
  /** A function, or a list of replies consumed in order (then `fallback`). */
  readonly script: Script | ReadonlyArray<Reply>
  /** Answer once a list script is exhausted. Default "Done.". */
  readonly fallback?: Reply
  /** Answer to side requests. Default "Mock title". */
  readonly sideReply?: string
}

export interface MockAnthropic {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string
  /** Every request so far, in arrival order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Requests that consumed the script (the real conversation turns). */
  readonly mainRequests: () => ReadonlyArray<RecordedRequest>
  /** Errors thrown by the script; a script error is answered with HTTP 500 so the run fails visibly. */
  readonly scriptErrors: ReadonlyArray<unknown>
  /** Forgets recorded requests and restarts the script at index 0 (for a second `claude` run). */
  readonly reset: () => void
  readonly close: () => Promise<void>
}

/** Starts the mock on 127.0.0.1 with a random port. */
export const startMockAnthropic = async (options: MockAnthropicOptions): Promise<MockAnthropic> => {
  const requests: Array<RecordedRequest> = []
  const scriptErrors: Array<unknown> = []
  const script = toScript(options.script, options.fallback ?? "Done.")
  const sideReply = options.sideReply ?? "Mock title"
  let mainCount = 0
  let toolIds = 0
  const nextToolId = (): string => `toolu_mock_${++toolIds}`

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req)
    const body = parseBody(raw)
    const method = req.method ?? "GET"
    const path = req.url ?? "/"
    const headers = flattenHeaders(req)
    if (method !== "POST" || !isMessagesPath(path) || body === undefined) {
      requests.push({ method, path, headers, body, kind: "other" })
      return sendJson(res, 200, {})
    }
    // Tool-less requests are the CLI's own side calls (titles, summaries): never part of the script.
    if (body.tools === undefined || body.tools.length === 0) {
      requests.push({ method, path, headers, body, kind: "side" })
      return sendMessage(res, body, { text: sideReply }, nextToolId)
    }
    const index = mainCount++
    const recorded: RecordedRequest = { method, path, headers, body, kind: "main", scriptIndex: index }
    requests.push(recorded)
    let reply: Reply
    try {
      reply = script(recorded, index)
    } catch (error) {
      scriptErrors.push(error)
      return sendJson(res, 500, {
        type: "error",
        error: { type: "api_error", message: `mock script failed: ${String(error)}` }
      })
    }
    return sendMessage(res, body, reply, nextToolId)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      scriptErrors.push(error)
      if (!res.headersSent) sendJson(res, 500, { type: "error", error: { type: "api_error", message: String(error) } })
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === "main"),
    scriptErrors,
    reset: () => {
      requests.length = 0
      mainCount = 0
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // The CLI keeps connections alive; drop them so close() does not wait for their idle timeout.
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      })
  }
}

// ---------------------------------------------------------------------------------------------------------
// Searching recorded bodies

/** Every string value inside `value` (object keys excluded), depth first. */
export const stringsIn = (value: unknown): Array<string> => {
  const out: Array<string> = []
  const walk = (v: unknown): void => {
    if (typeof v === "string") out.push(v)
    else if (Array.isArray(v)) { for (const item of v) walk(item) }
    else if (v !== null && typeof v === "object") { for (const item of Object.values(v)) walk(item) }
  }
  walk(value)
  return out
}

/** Whether `needle` appears in any string of the body: system prompt, messages, tool results, tools. */
export const bodyContains = (body: unknown, needle: string): boolean => stringsIn(body).some((s) => s.includes(needle))

/** Indexes (into `requests`) of the requests whose body contains `needle`. */
export const requestsContaining = (requests: ReadonlyArray<RecordedRequest>, needle: string): Array<number> =>
  requests.flatMap((r, i) => (bodyContains(r.body, needle) ? [i] : []))

/** Whether `needle` appears in the conversation (`messages`) of a request, ignoring system prompt and tools. */
export const messagesContain = (request: RecordedRequest, needle: string): boolean =>
  bodyContains(request.body?.messages, needle)

/** The `content` of the last message of a request (what the model is answering). */
export const lastMessage = (
  request: RecordedRequest
): { readonly role: string; readonly content: unknown } | undefined => request.body?.messages?.at(-1)

/** Tool results (`tool_result` blocks) in the last message of a request, keyed by tool_use_id. */
export const lastToolResults = (
  request: RecordedRequest
): Array<{ readonly toolUseId: string; readonly isError: boolean; readonly text: string }> => {
  const content = lastMessage(request)?.content
  if (!Array.isArray(content)) return []
  return content.flatMap((block: unknown) => {
    if (!isRecord(block) || block["type"] !== "tool_result") return []
    return [{
      toolUseId: String(block["tool_use_id"]),
      isError: block["is_error"] === true,
      text: stringsIn(block["content"]).join("\n")
    }]
  })
}

// ---------------------------------------------------------------------------------------------------------
// Internals

const toScript = (script: Script | ReadonlyArray<Reply>, fallback: Reply): Script =>
  typeof script === "function" ? script : (_request, index) => script[index] ?? fallback

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isMessagesPath = (path: string): boolean => path.split("?")[0] === "/v1/messages"

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

const parseBody = (raw: string): MessagesBody | undefined => {
  if (raw === "") return undefined
  try {
    const parsed: unknown = JSON.parse(raw)
    return isRecord(parsed) ? (parsed as MessagesBody) : undefined
  } catch {
    return undefined
  }
}

const flattenHeaders = (req: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const sendJson = (res: ServerResponse, status: number, value: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(value))
}

type Block =
  | { readonly type: "text"; readonly text: string }
  | {
    readonly type: "tool_use"
    readonly id: string
    readonly name: string
    readonly input: Readonly<Record<string, unknown>>
  }

const toBlocks = (reply: Reply, nextToolId: () => string): Array<Block> => {
  if (typeof reply === "string") return [{ type: "text", text: reply }]
  const blocks: Array<Block> = []
  if (reply.text !== undefined && reply.text !== "") blocks.push({ type: "text", text: reply.text })
  if ("toolUses" in reply) {
    for (const call of reply.toolUses) {
      blocks.push({ type: "tool_use", id: call.id ?? nextToolId(), name: call.name, input: call.input })
    }
  }
  return blocks
}

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

const sendMessage = (res: ServerResponse, body: MessagesBody, reply: Reply, nextToolId: () => string): void => {
  const blocks = toBlocks(reply, nextToolId)
  const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"
  const model = body.model ?? "claude-mock"
  const id = `msg_mock_${Date.now().toString(36)}`
  if (body.stream !== true) {
    // Not observed from the CLI, but cheap to support should a side call ever be non-streaming.
    return sendJson(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: blocks,
      stop_reason: stopReason,
      stop_sequence: null,
      usage
    })
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  const event = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  }
  event("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage
    }
  })
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } })
      event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } })
    } else {
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} }
      })
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
      })
    }
    event("content_block_stop", { index })
  })
  event("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens }
  })
  event("message_stop", {})
  res.end()
}
