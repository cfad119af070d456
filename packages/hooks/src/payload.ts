/**
 * What Claude Code sends a hook on stdin, decoded leniently: the fields ralph-mem uses are checked,
 * anything else (new fields appear with every release) is ignored.
 */
import * as Schema from "effect/Schema"

/** Ids become stream names and log lines, never paths; a bound keeps garbage out of the database. */
const Id = Schema.String.pipe(Schema.check(Schema.isMinLength(1), Schema.isMaxLength(256)))

const base = () => ({
  session_id: Id,
  cwd: Schema.optionalKey(Schema.String),
  transcript_path: Schema.optionalKey(Schema.String),
  prompt_id: Schema.optionalKey(Schema.String)
})

const OptionalText = () => Schema.optionalKey(Schema.NullOr(Schema.String))

const SessionStartInput = () =>
  Schema.Struct({ ...base(), source: Schema.optionalKey(Schema.String), model: Schema.optionalKey(Schema.Unknown) })
const UserPromptSubmitInput = () => Schema.Struct({ ...base(), prompt: Schema.String })
const PreToolUseInput = () =>
  Schema.Struct({
    ...base(),
    tool_name: Schema.String,
    tool_input: Schema.optionalKey(Schema.Unknown),
    tool_use_id: Schema.optionalKey(Schema.String)
  })
const PostToolUseInput = () =>
  Schema.Struct({
    ...base(),
    tool_name: Schema.String,
    tool_input: Schema.optionalKey(Schema.Unknown),
    tool_response: Schema.optionalKey(Schema.Unknown),
    tool_use_id: Schema.optionalKey(Schema.String),
    duration_ms: Schema.optionalKey(Schema.Number)
  })
const PostToolUseFailureInput = () =>
  Schema.Struct({
    ...base(),
    tool_name: Schema.String,
    tool_input: Schema.optionalKey(Schema.Unknown),
    tool_use_id: Schema.optionalKey(Schema.String),
    error: OptionalText(),
    is_interrupt: Schema.optionalKey(Schema.Boolean),
    duration_ms: Schema.optionalKey(Schema.Number)
  })
const StopInput = () =>
  Schema.Struct({
    ...base(),
    stop_hook_active: Schema.optionalKey(Schema.Boolean),
    last_assistant_message: OptionalText()
  })
/**
 * A turn that ended on an API error (`error`: rate_limit, overloaded, ...); Claude Code 2.1.330 fires it
 * interactively.
 */
const StopFailureInput = () =>
  Schema.Struct({ ...base(), error: OptionalText(), last_assistant_message: OptionalText() })
const PreCompactInput = () =>
  Schema.Struct({ ...base(), trigger: Schema.optionalKey(Schema.String), custom_instructions: OptionalText() })
const SessionEndInput = () => Schema.Struct({ ...base(), reason: Schema.optionalKey(Schema.String) })

export type SessionStartInput = ReturnType<typeof SessionStartInput>["Type"]
export type UserPromptSubmitInput = ReturnType<typeof UserPromptSubmitInput>["Type"]
export type PreToolUseInput = ReturnType<typeof PreToolUseInput>["Type"]
export type PostToolUseInput = ReturnType<typeof PostToolUseInput>["Type"]
export type PostToolUseFailureInput = ReturnType<typeof PostToolUseFailureInput>["Type"]
export type StopInput = ReturnType<typeof StopInput>["Type"]
export type StopFailureInput = ReturnType<typeof StopFailureInput>["Type"]
export type PreCompactInput = ReturnType<typeof PreCompactInput>["Type"]
export type SessionEndInput = ReturnType<typeof SessionEndInput>["Type"]

/** Builds a schema on first use: a hook process decodes one kind of input, not all eight. */
const lazy = <A>(make: () => A): () => A => {
  let value: A | undefined
  return () => (value ??= make())
}

/** The hook events ralph-mem registers, each with (a builder of) its input schema. */
export const inputs = {
  SessionStart: lazy(SessionStartInput),
  UserPromptSubmit: lazy(UserPromptSubmitInput),
  PreToolUse: lazy(PreToolUseInput),
  PostToolUse: lazy(PostToolUseInput),
  PostToolUseFailure: lazy(PostToolUseFailureInput),
  Stop: lazy(StopInput),
  StopFailure: lazy(StopFailureInput),
  PreCompact: lazy(PreCompactInput),
  SessionEnd: lazy(SessionEndInput)
} as const

export type HookName = keyof typeof inputs
export type HookInput<H extends HookName> = ReturnType<(typeof inputs)[H]>["Type"]
export const isHookName = (name: string | undefined): name is HookName =>
  name !== undefined && Object.hasOwn(inputs, name)
