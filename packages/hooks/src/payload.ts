/**
 * What Claude Code sends a hook on stdin, decoded leniently: the fields ralph-mem uses are checked,
 * anything else (new fields appear with every release) is ignored.
 */
import * as Schema from "effect/Schema"

/** Ids become stream names and log lines, never paths; a bound keeps garbage out of the database. */
const Id = Schema.String.pipe(Schema.check(Schema.isMinLength(1), Schema.isMaxLength(256)))

const base = {
  session_id: Id,
  cwd: Schema.optionalKey(Schema.String),
  transcript_path: Schema.optionalKey(Schema.String),
  prompt_id: Schema.optionalKey(Schema.String)
}

const OptionalText = Schema.optionalKey(Schema.NullOr(Schema.String))

export const SessionStartInput = Schema.Struct({ ...base, source: Schema.optionalKey(Schema.String), model: Schema.optionalKey(Schema.Unknown) })
export const UserPromptSubmitInput = Schema.Struct({ ...base, prompt: Schema.String })
export const PostToolUseInput = Schema.Struct({
  ...base,
  tool_name: Schema.String,
  tool_input: Schema.optionalKey(Schema.Unknown),
  tool_response: Schema.optionalKey(Schema.Unknown),
  tool_use_id: Schema.optionalKey(Schema.String),
  duration_ms: Schema.optionalKey(Schema.Number)
})
export const PostToolUseFailureInput = Schema.Struct({
  ...base,
  tool_name: Schema.String,
  tool_input: Schema.optionalKey(Schema.Unknown),
  tool_use_id: Schema.optionalKey(Schema.String),
  error: OptionalText,
  is_interrupt: Schema.optionalKey(Schema.Boolean),
  duration_ms: Schema.optionalKey(Schema.Number)
})
export const StopInput = Schema.Struct({
  ...base,
  stop_hook_active: Schema.optionalKey(Schema.Boolean),
  last_assistant_message: OptionalText
})
export const PreCompactInput = Schema.Struct({ ...base, trigger: Schema.optionalKey(Schema.String), custom_instructions: OptionalText })
export const SessionEndInput = Schema.Struct({ ...base, reason: Schema.optionalKey(Schema.String) })

export type SessionStartInput = typeof SessionStartInput.Type
export type UserPromptSubmitInput = typeof UserPromptSubmitInput.Type
export type PostToolUseInput = typeof PostToolUseInput.Type
export type PostToolUseFailureInput = typeof PostToolUseFailureInput.Type
export type StopInput = typeof StopInput.Type
export type PreCompactInput = typeof PreCompactInput.Type
export type SessionEndInput = typeof SessionEndInput.Type

/** The hook events ralph-mem registers, each with its input schema. */
export const inputs = {
  SessionStart: SessionStartInput,
  UserPromptSubmit: UserPromptSubmitInput,
  PostToolUse: PostToolUseInput,
  PostToolUseFailure: PostToolUseFailureInput,
  Stop: StopInput,
  PreCompact: PreCompactInput,
  SessionEnd: SessionEndInput
} as const

export type HookName = keyof typeof inputs
export const hookNames = Object.keys(inputs) as ReadonlyArray<HookName>
export const isHookName = (name: string | undefined): name is HookName => name !== undefined && name in inputs
