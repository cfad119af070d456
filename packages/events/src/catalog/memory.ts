/** The user's own controls over memory. */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

export const NoteInjected = defineEvent("NoteInjected", () => ({
  noteId: Schema.String,
  projectPath: Schema.String,
  sessionId: Schema.optionalKey(Schema.String),
  noteType: Schema.String,
  text: Schema.String
}))

/**
 * A forget: the events it names have their payloads redacted in the log (the one permitted change),
 * and every projection drops what they held. `selector` says how the user chose them, never the content.
 */
export const MemoryForgotten = defineEvent("MemoryForgotten", () => ({
  eventIds: Schema.Array(Schema.String),
  selector: Schema.String
}))

/**
 * Claude opened its memory through one of the MCP server's tools: what it asked for and which memories
 * the answer held, so the log shows what Claude looked at (and how often an injected memory was opened).
 */
export const MemoryToolCalled = defineEvent("MemoryToolCalled", () => ({
  sessionId: Schema.optionalKey(Schema.String),
  /**
   * The tool's name without its MCP prefix: search, timeline, get, why, beliefs, task, remember, loop_status; for
   * a call to a tool the server does not have, the name as called, cut to 100 characters.
   */
  tool: Schema.String,
  /** Claude Code's id of the tool call, which its hooks see too. */
  toolUseId: Schema.optionalKey(Schema.String),
  /** The words searched for (search, why). */
  query: Schema.optionalKey(Schema.String),
  /** The ids asked for (get, timeline around an observation or a session). */
  ids: Schema.optionalKey(Schema.Array(Schema.String)),
  /** The ids of the memories the answer held, in the order given (remember: the id it stored). */
  returned: Schema.Array(Schema.String),
  /** The answer's size in estimated tokens. */
  tokens: Schema.Int,
  /** Why the call was refused (a malformed input, an unusable database), when it was. */
  error: Schema.optionalKey(Schema.String)
}))
