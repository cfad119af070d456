/** The user's own controls over memory. */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

export const NoteInjected = defineEvent("NoteInjected", {
  noteId: Schema.String,
  projectPath: Schema.String,
  sessionId: Schema.optionalKey(Schema.String),
  noteType: Schema.String,
  text: Schema.String
})

/**
 * A forget: the events it names have their payloads redacted in the log (the one permitted change),
 * and every projection drops what they held. `selector` says how the user chose them, never the content.
 */
export const MemoryForgotten = defineEvent("MemoryForgotten", {
  eventIds: Schema.Array(Schema.String),
  selector: Schema.String
})
