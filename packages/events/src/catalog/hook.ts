/** Hooks fail open; when they do, the failure is recorded here (and in the log file). */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

export const HookFailed = defineEvent("HookFailed", () => ({
  hook: Schema.String,
  reason: Schema.String,
  sessionId: Schema.optionalKey(Schema.String)
}))
