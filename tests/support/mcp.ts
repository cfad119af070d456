/**
 * Speaks MCP (JSON-RPC, one message a line) to the bundled `ralph-mem mcp` as Claude Code does: a fresh
 * process on stdio, an initialize handshake, then tool calls. Raw lines can be sent too, for what no
 * well-behaved client would send.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { CLI, testRunState } from "./cli.ts"

export interface RpcResponse {
  readonly id: number | string | null
  readonly result?: {
    readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>
    readonly isError?: boolean
    readonly [key: string]: unknown
  }
  readonly error?: { readonly code: number; readonly message: string }
}

export interface ToolAnswer {
  readonly text: string
  readonly isError: boolean
}

export interface McpProcess {
  readonly child: ChildProcessWithoutNullStreams
  /** Everything the server wrote to stderr (it should stay empty). */
  readonly stderr: () => string
  readonly request: (method: string, params?: unknown) => Promise<RpcResponse>
  /** A tools/call; `args` is sent as it is, however malformed. */
  readonly call: (name: string, args?: unknown, meta?: Record<string, unknown>) => Promise<ToolAnswer>
  /** A raw line on the server's stdin (a newline is added). */
  readonly send: (line: string) => void
  /** The answer to a request sent raw (with `send`), by its id. */
  readonly answerTo: (id: number | string) => Promise<RpcResponse>
  /** Answers that name no request (JSON-RPC errors about a message whose id could not be read). */
  readonly unaddressed: () => ReadonlyArray<RpcResponse>
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  /** Ends the server's stdin (what Claude Code does at exit) and waits for it to exit. */
  readonly close: () => Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

export const startMcp = async (options: {
  readonly cwd: string
  readonly env?: Readonly<Record<string, string>>
  readonly args?: ReadonlyArray<string>
}): Promise<McpProcess> => {
  const child = spawn(process.execPath, [CLI, "mcp", ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env["PATH"] ?? "", HOME: options.cwd, ...testRunState(), ...options.env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const waiting = new Map<number | string, (response: RpcResponse) => void>()
  const unaddressed: Array<RpcResponse> = []
  let buffered = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      const response = JSON.parse(line) as RpcResponse
      if (response.id !== null && response.id !== undefined) waiting.get(response.id)?.(response)
      else unaddressed.push(response)
    }
  })
  let nextId = 1
  const send = (line: string) => child.stdin.write(`${line}\n`)
  const answer = (id: number | string, what: string) =>
    new Promise<RpcResponse>((resolve, reject) => {
      waiting.set(id, resolve)
      void exited.then(() => reject(new Error(`the server exited before answering ${what}: ${stderr}`)))
    })
  const request = (method: string, params?: unknown) => {
    const id = nextId++
    const answered = answer(id, method)
    send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }))
    return answered
  }
  const call = async (name: string, args?: unknown, meta?: Record<string, unknown>): Promise<ToolAnswer> => {
    const response = await request("tools/call", {
      name,
      ...(args === undefined ? {} : { arguments: args }),
      ...(meta === undefined ? {} : { _meta: meta })
    })
    if (response.result === undefined) {
      throw new Error(`tools/call ${name} answered with a protocol error: ${JSON.stringify(response.error)}`)
    }
    return {
      text: (response.result.content ?? []).map((c) => c.text ?? "").join("\n"),
      isError: response.result.isError === true
    }
  }
  const initialized = await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "ralph-mem-tests", version: "1" }
  })
  if (initialized.result === undefined) throw new Error(`initialize failed: ${JSON.stringify(initialized.error)}`)
  send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
  return {
    child,
    stderr: () => stderr,
    request,
    call,
    send,
    answerTo: (id) => answer(id, `request ${JSON.stringify(id)}`),
    unaddressed: () => unaddressed,
    exited,
    close: () => {
      child.stdin.end()
      return exited
    }
  }
}
