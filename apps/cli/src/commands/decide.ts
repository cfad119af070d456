/** `ralph-mem decide`: record a decision, why it was taken, and the alternatives it rejected. */
import { DecisionImpact, findProjectRoot } from "@ralph-mem/events"
import { currentTaskId } from "@ralph-mem/projections"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson } from "../output.ts"
import { writeDecision } from "../writes.ts"
import { existingTask } from "./task.ts"

export const decide = Command.make(
  "decide",
  {
    decision: Argument.String("decision").pipe(
      Argument.withDescription("What was decided"),
      Argument.variadic({ min: 1 })
    ),
    why: flags.freeText("why").pipe(Flag.withDescription("The rationale: why this and not something else")),
    alternatives: flags.freeText("alternative").pipe(
      Flag.withDescription(`An option considered and rejected, as "<option>: <why it was rejected>" (repeatable)`),
      Flag.atLeast(0)
    ),
    impact: Flag.Literals("impact", DecisionImpact.literals).pipe(
      Flag.withDescription("How much the decision matters"),
      Flag.withDefault("medium")
    ),
    task: flags.task,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const project = findProjectRoot(process.cwd())
        const taskId = Option.isSome(input.task)
          ? yield* existingTask(memory, input.task.value)
          : currentTaskId(memory.db, project)
        const stored = yield* writeDecision(memory, {
          project,
          decision: input.decision.join(" "),
          rationale: input.why,
          alternatives: input.alternatives,
          impact: input.impact,
          writer: "cli:decide",
          ...(taskId === undefined ? {} : { taskId })
        }).pipe(Effect.catchTag("Refused", (refused) => flags.failWith(refused.message)))
        if (input.json) return yield* printJson({ id: stored.eventId, ...(stored.payload as object) })
        yield* Console.log(
          `Decision recorded (${stored.eventId}${
            taskId === undefined ? "" : `, task ${taskId}`
          }). ralph-mem why <words> finds it.`
        )
      }))
).pipe(Command.withDescription("Record a decision with its rationale and the alternatives rejected"))
