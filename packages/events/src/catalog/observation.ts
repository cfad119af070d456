/** What happened in a session, as an observation memory can later retrieve. */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"
import { ProjectPath } from "./session.ts"

export const ObservationKind = Schema.Literals(["tool_use", "error", "success", "note"])
export type ObservationKind = typeof ObservationKind.Type

export const ObservationRecorded = defineEvent("ObservationRecorded", () => ({
  sessionId: Schema.String,
  projectPath: ProjectPath,
  kind: ObservationKind,
  toolName: Schema.optionalKey(Schema.String),
  toolUseId: Schema.optionalKey(Schema.String),
  /** A compact, privacy-filtered summary of the tool input. */
  inputSummary: Schema.optionalKey(Schema.String),
  /** The output or message, privacy-filtered and trimmed; `truncated` says whether it was cut. */
  content: Schema.String,
  truncated: Schema.optionalKey(Schema.Boolean),
  files: Schema.Array(Schema.String),
  errorMessage: Schema.optionalKey(Schema.String),
  durationMs: Schema.optionalKey(Schema.Finite)
}))
