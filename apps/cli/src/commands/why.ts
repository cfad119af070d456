/** `ralph-mem why`: the decisions that match a question, with their rationale and rejected alternatives. */
import { findProjectRoot } from "@ralph-mem/events"
import { searchDecisions } from "@ralph-mem/projections"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { decisionMarkdown } from "../markdown.ts"
import { printJson, printText } from "../output.ts"

export const why = Command.make(
  "why",
  {
    query: Argument.String("query").pipe(
      Argument.withDescription("What the decision was about (any word may match)"),
      Argument.variadic({ min: 1 })
    ),
    limit: Flag.Int("limit").pipe(Flag.withDescription("Show at most N decisions (default 5)"), Flag.optional),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const limit = (yield* flags.parseLimit(input.limit)) ?? 5
      const query = input.query.join(" ")
      yield* withExistingStore(input.db, ({ db }) =>
        Effect.gen(function*() {
          const decisions = searchDecisions(db, { query, project: findProjectRoot(process.cwd()), limit })
          if (input.json) return yield* printJson({ query, decisions })
          if (decisions.length === 0) return yield* Console.log(`No decision matches ${JSON.stringify(query)}.`)
          yield* printText(decisions.map((d) => decisionMarkdown(d, 2)).join("\n\n"))
        }))
    })
).pipe(Command.withDescription("Why did we do this? The matching decisions, with rationale and rejected alternatives"))
