/**
 * `remember`: what Claude saves for later sessions, through the same writes as the CLI's inject, decide,
 * belief set and task finding, so through the log's privacy filter.
 */
import { type AppendError, DecisionImpact, type RecordedEvent, streams } from "@ralph-mem/events"
import { currentTaskId, handleCommand, Refused, taskIds } from "@ralph-mem/projections"
import { beliefDecider, parseName, taskDecider } from "@ralph-mem/working"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { writeDecision, writeNote } from "../writes.ts"
import { type Answer, plainAnswer } from "./budget.ts"
import { quoted } from "./render.ts"
import { described, Id, optional, refuse, text, tool, type ToolContext, type ToolRefused } from "./tool.ts"

const REMEMBER_KINDS = ["note", "decision", "belief", "finding"] as const

export const remember = tool({
  name: "remember",
  description:
    "Save to this project's memory (ralph-mem) what later sessions should know: a note; a decision with why it was " +
    "taken and the alternatives rejected; a belief, a durable fact about the project under a key (replacing its " +
    "earlier value); or a finding of the current task. Private text (<private>...</private>) and secrets are " +
    "filtered out before anything is stored. Returns the new memory's id.",
  input: Schema.Struct({
    kind: described(Schema.Literals(REMEMBER_KINDS), "note, decision, belief or finding"),
    text: described(text(10_000), "The note, the decision, the belief's value, or the finding"),
    why: optional(text(4000), "For a decision (required): the rationale"),
    alternatives: optional(
      Schema.Array(text(1000)).check(Schema.isMaxLength(20)),
      "For a decision: options considered and rejected, each as \"<option>: <why not>\""
    ),
    impact: optional(DecisionImpact, "For a decision: low, medium (default) or high"),
    key: optional(
      text(64),
      "For a belief (required): what it is about: stack, key-files, conventions, focus, blockers, or any word"
    ),
    task: optional(Id, "For a finding or a decision: the task id (default: the current task)")
  }),
  writes: true,
  asked: () => ({}),
  run: (input, context) => rememberOne(input, context)
})

type RememberInput = {
  readonly kind: (typeof REMEMBER_KINDS)[number]
  readonly text: string
  readonly why?: string
  readonly alternatives?: ReadonlyArray<string>
  readonly impact?: DecisionImpact
  readonly key?: string
  readonly task?: string
}

/**
 * What the privacy filter changed, said back: Claude should know that what it saved is not all there. Every
 * write trims what it is given (writeNote, the deciders) before the filter sees it, so only a difference beyond
 * the trim is the filter's.
 */
const filtered = (given: string, stored: unknown) =>
  typeof stored === "string" && stored !== given.trim()
    ? ` Stored with private text or secrets filtered out: ${quoted(stored)}.`
    : ""

const taskFor = (context: ToolContext, named: string | undefined): Effect.Effect<string | undefined, ToolRefused> => {
  const { memory, project } = context
  if (named === undefined) return Effect.succeed(currentTaskId(memory.db, project))
  const taskId = parseName("task id", named)
  if (taskId instanceof Refused) return Effect.fail(refuse(taskId.message))
  return taskIds(memory.db, project).has(taskId)
    ? Effect.succeed(taskId)
    : Effect.fail(refuse(`No task ${quoted(taskId)} in this project (the task tool shows the current one).`))
}

const saved = (event: RecordedEvent, said: string, context: ToolContext): Answer => {
  const answer = plainAnswer(
    `${said} Its id: ${event.eventId} (\`ralph-mem forget ${event.eventId}\` removes it).`,
    context.budget
  )
  return { ...answer, returned: [event.eventId] }
}

const WRITER = "mcp:remember"

const rememberOne = (input: RememberInput, context: ToolContext): Effect.Effect<Answer, ToolRefused | AppendError> => {
  const { memory, project, sessionId } = context
  const refused = (error: Refused) => refuse(error.message)
  switch (input.kind) {
    case "note":
      return writeNote(memory, {
        project,
        text: input.text,
        noteType: "note",
        writer: WRITER,
        ...(sessionId === undefined ? {} : { sessionId })
      }).pipe(
        Effect.catchTag("Refused", (error) => Effect.fail(refused(error))),
        Effect.map(({ stored }) =>
          saved(
            stored,
            "Remembered as a note: later sessions of this project are told it at their start." +
              filtered(input.text, (stored.payload as { text?: unknown }).text),
            context
          )
        )
      )
    case "decision":
      if (input.why === undefined) {
        return Effect.fail(refuse("A decision needs `why`: the rationale, so a later session knows what it rests on."))
      }
      return Effect.flatMap(taskFor(context, input.task), (taskId) =>
        writeDecision(memory, {
          project,
          decision: input.text,
          rationale: input.why!,
          alternatives: input.alternatives ?? [],
          impact: input.impact ?? "medium",
          writer: WRITER,
          ...(taskId === undefined ? {} : { taskId })
        }).pipe(
          Effect.catchTag("Refused", (error) => Effect.fail(refused(error))),
          Effect.map((stored) =>
            saved(
              stored,
              `Decision recorded${taskId === undefined ? "" : ` for task ${taskId}`}: the why tool finds it.` +
                filtered(input.text, (stored.payload as { decision?: unknown }).decision),
              context
            )
          )
        ))
    case "belief": {
      if (input.key === undefined) {
        return Effect.fail(
          refuse(
            "A belief needs `key`: what it is about (stack, key-files, conventions, focus, blockers, or any word)."
          )
        )
      }
      const key = parseName("belief key", input.key)
      if (key instanceof Refused) return Effect.fail(refused(key))
      return handleCommand(
        memory,
        streams.belief(project, key),
        beliefDecider,
        { _tag: "Set", projectPath: project, key, value: input.text },
        WRITER
      ).pipe(
        Effect.catchTag("Refused", (error) => Effect.fail(refused(error))),
        Effect.map(({ state, events }) => {
          const [event] = events
          if (event === undefined) {
            return plainAnswer(`The belief ${key} already says exactly this; nothing changed.`, context.budget)
          }
          return saved(
            event,
            `Belief ${key} set: every new session of this project is told it.${filtered(input.text, state)}`,
            context
          )
        })
      )
    }
    case "finding":
      return Effect.flatMap(taskFor(context, input.task), (taskId) => {
        if (taskId === undefined) {
          return Effect.fail(
            refuse("There is no open task to add a finding to; remember it as a note instead (kind \"note\").")
          )
        }
        return handleCommand(
          memory,
          streams.task(project, taskId),
          taskDecider,
          { _tag: "RecordFinding", finding: input.text },
          WRITER
        ).pipe(
          Effect.catchTag("Refused", (error) => Effect.fail(refused(error))),
          Effect.map(({ events }) => {
            const event = events[0]!
            return saved(
              event,
              `Finding recorded for task ${taskId}: the task tool shows it.` +
                filtered(input.text, (event.payload as { finding?: unknown }).finding),
              context
            )
          })
        )
      })
  }
}
