/**
 * `ralph-mem mcp`: the memory tools (tools.ts) served to Claude Code over MCP on stdin and stdout, with
 * the official MCP SDK doing the protocol. A call is decoded by its tool's Schema (a malformed one is a
 * tool error, never a crash), answered within the token budget, and recorded as a MemoryToolCalled event
 * in the session's stream, so the log shows what Claude opened.
 *
 * The server lives exactly as long as Claude Code: it exits when its stdin ends (Claude Code closed it,
 * or died, even by SIGKILL), on SIGINT (what Claude Code sends at exit), SIGTERM or SIGHUP, when writing
 * to Claude Code fails, and when its parent process is gone; nothing it starts outlives it. An end Claude
 * Code did not ask for (a broken stdin or stdout, the SDK's transport giving up) is logged to hooks.log with
 * its reason. A message too long to read is refused unread (message-lines.ts), never the end of the server.
 * The database is opened at the first call, not at start-up.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import { DatabaseUnusable, failureLogPath, homeFolder, type RalphMemEvent, streams, VERSION } from "@ralph-mem/events"
import { logFailure } from "@ralph-mem/hooks"
import { type MemoryStore, type PathContext, relativeValues } from "@ralph-mem/projections"
import { type Environment, loadSettings } from "@ralph-mem/settings"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type Answer, plainAnswer } from "./budget.ts"
import { type MemoryConnection, memoryConnection } from "./connection.ts"
import { boundedLines, MAX_MESSAGE_BYTES, type OversizedMessage } from "./message-lines.ts"
import { type Asked, type ToolContext, ToolRefused } from "./tool.ts"
import { memoryTools } from "./tools.ts"

export interface MemoryServerOptions {
  readonly databasePath: string
  /** The project root the session works in: searches and working memory are scoped to it. */
  readonly project: string
  /** Claude Code's session (CLAUDE_CODE_SESSION_ID): calls are recorded in its stream, loop_status reads its loop. */
  readonly sessionId: string | undefined
  readonly env: Environment
  /** The process that started the server (Claude Code), read as early as possible: the server ends with it. */
  readonly parentPid: number
  /** Called once, soon after the first call is answered (the server's code cache is written then). */
  readonly afterFirstAnswer?: (() => void) | undefined
}

const INSTRUCTIONS =
  "ralph-mem remembers this project's past Claude Code sessions. To recall earlier errors and fixes, commands, " +
  "files and notes: search, then timeline (around a hit), then get (in full). why finds recorded decisions, " +
  "beliefs the project's durable facts, task the current task's state, loop_status this session's Ralph loop; " +
  "remember saves a note, decision, belief or finding for later sessions."

const byName = new Map(memoryTools.map((tool) => [tool.name, tool]))

/** The tools as Claude Code lists them: the JSON Schema of each is made from the Schema that decodes its input. */
const toolList = (): Array<Tool> =>
  memoryTools.map((tool) => {
    const { schema } = Schema.toJsonSchemaDocument(tool.input as unknown as Schema.Top)
    return {
      name: tool.name,
      description: tool.description,
      // A struct with no fields comes out as "anything but null"; a tool's input must say it is an object.
      inputSchema: (schema["type"] === "object" ? schema : { type: "object", properties: {} }) as Tool["inputSchema"]
    }
  })

/** How a call ended: answered, refused (what Claude asked for cannot be given), or failed (ralph-mem's fault). */
type Outcome =
  | { readonly _tag: "answered"; readonly answer: Answer }
  | { readonly _tag: "refused"; readonly reason: string }
  | { readonly _tag: "failed"; readonly reason: string }

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error
    ? String((error as { message: unknown }).message)
    : String(error)

/** What Claude is told names paths relative to the project, and the home folder as `~`. */
const readingPaths = (options: MemoryServerOptions): PathContext => ({
  project: options.project,
  home: homeFolder(options.env)
})

/** Runs reads in one short transaction: one consistent view of the database, never held past the call. */
const inReadTransaction = <A, E>(memory: MemoryStore, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.suspend(() => memory.db.transaction(() => Effect.runSyncExit(effect))())

const NO_MEMORY =
  "This project has no memory yet: ralph-mem records sessions as they happen, so later sessions can search them."

export interface CallRequest {
  readonly name: string
  readonly arguments: unknown
  /** Claude Code's id of the tool call (`_meta["claudecode/toolUseId"]`), which its hooks see too. */
  readonly toolUseId: string | undefined
}

/** One tool call, start to end: decode, open, answer, record. Never fails: every problem is a tool error. */
const callTool = (
  connection: MemoryConnection,
  options: MemoryServerOptions,
  request: CallRequest
): Effect.Effect<CallToolResult> =>
  Effect.gen(function*() {
    const tool = byName.get(request.name)
    // A name no tool has is recorded as it was called, cut: it can be any length.
    const name = tool?.name ?? request.name.slice(0, 100)
    // A broken config never stops a call: its problems are logged and the valid layers apply.
    const { settings, problems } = loadSettings({ projectRoot: options.project, env: options.env })
    for (const problem of problems) logProblem(options, name, `config: ${problem}`)
    const budget = settings.memory.toolResultTokens
    let asked: Asked = {}
    let memory: MemoryStore | undefined
    // Recorded in the memory there is, if any; a call refused unread makes no database.
    const refusedUnread = (reason: string) =>
      Effect.map(connection.current({ create: false }), (current): Outcome => {
        memory = current
        return { _tag: "refused", reason }
      })
    const outcome: Outcome = yield* Effect.gen(function*() {
      if (tool === undefined) {
        return yield* refusedUnread(
          `Unknown tool ${JSON.stringify(name)}; the memory tools are ${[...byName.keys()].join(", ")}.`
        )
      }
      const decoded = yield* Effect.result(Schema.decodeUnknownEffect(tool.input)(request.arguments ?? {}))
      if (decoded._tag === "Failure") {
        return yield* refusedUnread(`Invalid input for ${tool.name}: ${decoded.failure.message}`)
      }
      memory = yield* connection.current({ create: tool.writes })
      asked = tool.asked(decoded.success)
      if (memory === undefined) return { _tag: "answered", answer: plainAnswer(NO_MEMORY, budget) } as const
      const context: ToolContext = {
        memory,
        project: options.project,
        forReading: (value) => relativeValues(value, readingPaths(options)),
        home: readingPaths(options).home,
        sessionId: options.sessionId,
        settings,
        budget,
        now: Date.now()
      }
      const run = tool.run(decoded.success, context)
      return { _tag: "answered", answer: yield* tool.writes ? run : inReadTransaction(memory, run) } as const
    }).pipe(
      Effect.catchCause((cause): Effect.Effect<Outcome> => {
        const error = Cause.squash(cause)
        // A memory folder refused (files git tracks, a memory not made here) is never written to, not even
        // hooks.log: the refusal says why and what to do.
        const refused = error instanceof ToolRefused ||
          (error instanceof DatabaseUnusable && error.problem === "unsafe")
        return Effect.succeed(
          refused ? { _tag: "refused", reason: error.reason } : { _tag: "failed", reason: describe(error) }
        )
      })
    )
    if (outcome._tag === "failed") logProblem(options, name, outcome.reason)
    if (memory !== undefined) {
      yield* record(memory, options, { tool: name, toolUseId: request.toolUseId, asked, outcome })
      connection.wrote()
    }
    if (outcome._tag === "answered") return { content: [{ type: "text", text: outcome.answer.text }] }
    const said = outcome._tag === "refused"
      ? outcome.reason
      : `ralph-mem could not answer: ${outcome.reason}. \`ralph-mem doctor\` (Bash) checks the memory database.`
    // A refusal quotes what was asked (ids, a time): it keeps to the budget like any answer.
    return { isError: true, content: [{ type: "text", text: plainAnswer(said, budget).text }] }
  })

/** A problem the server could not turn into an answer, where `doctor` finds hook failures. */
const logProblem = (options: MemoryServerOptions, tool: string, reason: string) =>
  logFailure(failureLogPath(options.databasePath), {
    time: new Date().toISOString(),
    hook: `mcp:${tool}`,
    reason: reason.slice(0, 1000),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId })
  })

/** The call's record. Best effort: a call whose record cannot be written is still answered, and the reason logged. */
const record = (
  memory: MemoryStore,
  options: MemoryServerOptions,
  call: {
    readonly tool: string
    readonly toolUseId: string | undefined
    readonly asked: Asked
    readonly outcome: Outcome
  }
) => {
  const { asked, outcome } = call
  const event: RalphMemEvent = {
    _tag: "MemoryToolCalled",
    tool: call.tool,
    returned: outcome._tag === "answered" ? outcome.answer.returned : [],
    tokens: outcome._tag === "answered" ? outcome.answer.tokens : 0,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(call.toolUseId === undefined ? {} : { toolUseId: call.toolUseId }),
    ...(asked.query === undefined ? {} : { query: asked.query }),
    ...(asked.ids === undefined ? {} : { ids: asked.ids }),
    ...(outcome._tag === "answered" ? {} : { error: outcome.reason.slice(0, 1000) })
  }
  const stream = options.sessionId === undefined ? streams.memoryTools : streams.session(options.sessionId)
  return memory.log.append(stream, [event], { expectedVersion: "any", writer: `mcp:${call.tool}` }).pipe(
    Effect.catchCause((cause) =>
      Effect.sync(() => logProblem(options, call.tool, `could not record the call: ${describe(Cause.squash(cause))}`))
    ),
    Effect.asVoid
  )
}

/**
 * The SDK validates JSON Schemas only for what a client answers to elicitation, which this server never
 * asks for; its default validator (ajv) would compile its meta-schemas at every start, for nothing.
 */
const noElicitation: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "ralph-mem asks Claude Code for no input" })
}

/** How often the server checks that the process that started it is still there. */
const PARENT_CHECK_MS = 1000

/** Serves the memory tools on stdio until Claude Code goes away; then closes the database and exits. */
export const serveMemoryTools = async (options: MemoryServerOptions): Promise<void> => {
  const connection = memoryConnection(options.databasePath, (reason) => logProblem(options, "checkpoint", reason))
  const server = new Server(
    { name: "ralph-mem", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: noElicitation
    }
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }))
  let answered = false
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const toolUseId = request.params._meta?.["claudecode/toolUseId"]
    // Synchronously, start to end: calls Claude Code makes at once never interleave (one could otherwise
    // close the connection another is reading through, when it finds the file replaced).
    const result = Effect.runSync(
      callTool(connection, options, {
        name: request.params.name,
        arguments: request.params.arguments,
        toolUseId: typeof toolUseId === "string" ? toolUseId : undefined
      })
    )
    // Once the answer is on its way.
    if (!answered && options.afterFirstAnswer !== undefined) setImmediate(options.afterFirstAnswer)
    answered = true
    return result
  })
  let stopping = false
  /**
   * Closes the database and exits: quietly (0) at the ends Claude Code means, and with the reason in hooks.log
   * (where `doctor` looks) and 1 at any other, so a server gone for a broken line is not gone without a word.
   */
  const stop = (failure?: string) => {
    if (stopping) return
    stopping = true
    if (failure !== undefined) logProblem(options, "exit", `the memory server exited: ${failure}`)
    connection.close()
    process.exit(failure === undefined ? 0 : 1)
  }
  const quietly = () => stop()
  process.stdin.once("end", quietly)
  process.stdin.once("close", quietly)
  // Unreadable: Claude Code's end is gone. Piped into the line reader, stdin has no other listener for it.
  process.stdin.once("error", (error) => stop(`reading from Claude Code failed: ${describe(error)}`))
  // EPIPE: nobody reads our answers any more.
  process.stdout.once("error", (error) => stop(`writing to Claude Code failed: ${describe(error)}`))
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, quietly)
  // Orphaned (the parent died while something else still holds our stdin open): the parent changes.
  setInterval(() => process.ppid !== options.parentPid && stop(), PARENT_CHECK_MS).unref()
  if (process.ppid !== options.parentPid) stop()
  // The SDK reports what it could not read or send and reads on; the last report says why, should it close.
  let lastError: unknown
  server.onerror = (error) => (lastError = error)
  // The transport closes only when it gives up (stdin's end stops the server before): never a normal end.
  server.onclose = () =>
    stop(`the MCP transport closed${lastError === undefined ? "" : ` after an error: ${describe(lastError)}`}`)
  // A message too long to read is refused, said to Claude Code (by its request's id, when one end of the line
  // names it) and logged where `doctor` looks; the server reads on.
  const refuseOversized = ({ bytes, id }: OversizedMessage) => {
    const refusal = `a message of ${bytes} bytes${id === undefined ? "" : ` (request ${JSON.stringify(id)})`}, ` +
      `more than the ${MAX_MESSAGE_BYTES} bytes (${MAX_MESSAGE_BYTES / 1024 / 1024} MiB) the memory server reads, ` +
      "was refused unread"
    logProblem(options, "message", refusal)
    void transport.send({
      jsonrpc: "2.0",
      ...(id === undefined ? {} : { id }),
      error: { code: ErrorCode.InvalidRequest, message: `ralph-mem: ${refusal}.` }
    })
  }
  // The transport's own limit is never reached: every line it is given is whole and within the same bound.
  const transport = new StdioServerTransport(
    process.stdin.pipe(boundedLines(MAX_MESSAGE_BYTES, refuseOversized)),
    process.stdout,
    { maxBufferSize: MAX_MESSAGE_BYTES }
  )
  await server.connect(transport)
}
