/** Session lifecycle: what Claude Code tells the hooks about a session, start to end. */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

export const SessionSource = Schema.Literals(["startup", "resume", "clear", "compact"])
export type SessionSource = typeof SessionSource.Type

export const SessionStarted = defineEvent("SessionStarted", {
  sessionId: Schema.String,
  projectPath: Schema.String,
  source: SessionSource,
  transcriptPath: Schema.optionalKey(Schema.String),
  model: Schema.optionalKey(Schema.String)
})

export const PromptSubmitted = defineEvent("PromptSubmitted", {
  sessionId: Schema.String,
  prompt: Schema.String,
  promptId: Schema.optionalKey(Schema.String)
})

/** What ralph-mem put into Claude's context, and why: the user can always see what Claude was told. */
export const ContextInjected = defineEvent("ContextInjected", {
  sessionId: Schema.String,
  hookEvent: Schema.String,
  reason: Schema.String,
  text: Schema.String,
  tokens: Schema.Int,
  /** Event ids of the memories the text was built from. */
  sources: Schema.Array(Schema.String)
})

export const AssistantReplied = defineEvent("AssistantReplied", {
  sessionId: Schema.String,
  message: Schema.String
})

export const SessionCompacted = defineEvent("SessionCompacted", {
  sessionId: Schema.String,
  trigger: Schema.Literals(["manual", "auto"]),
  customInstructions: Schema.optionalKey(Schema.String)
})

export const SessionSummarized = defineEvent("SessionSummarized", {
  sessionId: Schema.String,
  summary: Schema.String,
  /** Which summariser wrote it (the default is local and deterministic). */
  summarizer: Schema.String
})

export const SessionEnded = defineEvent("SessionEnded", {
  sessionId: Schema.String,
  reason: Schema.String
})
