/** Session lifecycle: what Claude Code tells the hooks about a session, start to end. */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

/**
 * The project (git top level of the hook payload's `cwd`) an event of a session belongs to. Every hook
 * writes it, so a session whose SessionStart never ran (the plugin installed mid-session, a failed hook)
 * is still scoped to its project. Absent from events written before it existed.
 */
export const ProjectPath = Schema.optionalKey(Schema.String)

export const SessionSource = Schema.Literals(["startup", "resume", "clear", "compact"])
export type SessionSource = typeof SessionSource.Type

export const SessionStarted = defineEvent("SessionStarted", () => ({
  sessionId: Schema.String,
  projectPath: Schema.String,
  source: SessionSource,
  transcriptPath: Schema.optionalKey(Schema.String),
  model: Schema.optionalKey(Schema.String)
}))

export const PromptSubmitted = defineEvent("PromptSubmitted", () => ({
  sessionId: Schema.String,
  projectPath: ProjectPath,
  prompt: Schema.String,
  promptId: Schema.optionalKey(Schema.String)
}))

/** What ralph-mem put into Claude's context, and why: the user can always see what Claude was told. */
export const ContextInjected = defineEvent("ContextInjected", () => ({
  sessionId: Schema.String,
  projectPath: ProjectPath,
  hookEvent: Schema.String,
  reason: Schema.String,
  text: Schema.String,
  tokens: Schema.Int,
  /** Event ids of the memories the text was built from. */
  sources: Schema.Array(Schema.String)
}))

export const AssistantReplied = defineEvent("AssistantReplied", () => ({
  sessionId: Schema.String,
  projectPath: ProjectPath,
  message: Schema.String
}))

export const SessionCompacted = defineEvent("SessionCompacted", () => ({
  sessionId: Schema.String,
  projectPath: ProjectPath,
  trigger: Schema.Literals(["manual", "auto"]),
  customInstructions: Schema.optionalKey(Schema.String)
}))

export const SessionSummarized = defineEvent("SessionSummarized", () => ({
  sessionId: Schema.String,
  projectPath: ProjectPath,
  summary: Schema.String,
  /** Which summariser wrote it (the default is local and deterministic), with its version. */
  summarizer: Schema.String,
  /**
   * The session did nothing but run memory commands (`/ralph-mem:mem-status`, ...): it is no "recent
   * session" worth showing. Absent from summaries written before it existed.
   */
  memoryOnly: Schema.optionalKey(Schema.Boolean)
}))

export const SessionEnded = defineEvent("SessionEnded", () => ({
  sessionId: Schema.String,
  projectPath: ProjectPath,
  reason: Schema.String
}))
