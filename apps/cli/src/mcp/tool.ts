/**
 * What a memory tool is: a name, a description written for the model, an input Schema (which gives the JSON
 * Schema Claude sees and decodes what it sends), and what it answers given the memory. The tools themselves
 * are in recall.ts, working.ts, remember.ts and loop-status.ts; tools.ts lists them.
 */
import type { AppendError } from "@ralph-mem/events"
import type { MemoryStore } from "@ralph-mem/projections"
import type { Settings } from "@ralph-mem/settings"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Answer } from "./budget.ts"

export interface ToolContext {
  readonly memory: MemoryStore
  /** The project root: searches and working memory are scoped to it. */
  readonly project: string
  /**
   * Memory as Claude reads it: every string of plain data with its paths relative to the project and the home
   * folder as `~` (display-paths), so the home folder never reaches Claude. Applied before rendering, so no
   * line cut to fit keeps part of a path.
   */
  readonly forReading: <T>(value: T) => T
  /** The user's home folder, which `forReading` writes as `~`. */
  readonly home: string | undefined
  /** The Claude Code session the server serves (CLAUDE_CODE_SESSION_ID), when it is known. */
  readonly sessionId: string | undefined
  readonly settings: Settings
  /** The most the answer may hold, in tokens. */
  readonly budget: number
  readonly now: number
}

/** A call a tool cannot answer as asked (an unknown id, a decision without why): Claude is told, as a tool error. */
export class ToolRefused extends Schema.TaggedError<ToolRefused>()("ToolRefused", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

export const refuse = (reason: string) => new ToolRefused({ reason })

/** What a call asked for, as its record keeps it. */
export interface Asked {
  readonly query?: string
  readonly ids?: ReadonlyArray<string>
}

export interface MemoryTool<I> {
  readonly name: string
  readonly description: string
  readonly input: Schema.Codec<I, unknown>
  /** Writes: the database is created if it does not exist, and the tool runs outside a read transaction. */
  readonly writes: boolean
  readonly asked: (input: I) => Asked
  /** Fails with ToolRefused for a call that cannot be answered as asked; any other failure is ralph-mem's. */
  readonly run: (input: I, context: ToolContext) => Effect.Effect<Answer, ToolRefused | AppendError>
}

export const tool = <I>(definition: MemoryTool<I>): MemoryTool<unknown> => definition as unknown as MemoryTool<unknown>

// Inputs: the pieces of every tool's Schema.

export const text = (max: number) => Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(max))
export const Id = text(200)
export const count = (maximum: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum }))
export const positive = (maximum: number) => Schema.Int.check(Schema.isBetween({ minimum: 1, maximum }))
export const described = <S extends Schema.Top>(schema: S, description: string) => schema.annotate({ description })
export const optional = <S extends Schema.Top>(schema: S, description: string) =>
  Schema.optionalKey(described(schema, description))

export const ObservationType = Schema.Literals(["error", "success", "tool_use", "note"])
