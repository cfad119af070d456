/** `ralph start <goal>`: a loop bound to this Claude Code session; its Stop hook runs the checks. */
import { monotonicUlid } from "@ralph-mem/events"
import { describeCriteria } from "@ralph-mem/loop"
import { Argument, Command } from "effect/cli"
import * as Effect from "effect/Effect"
import * as flags from "../../flags.ts"
import { configFromFlags, criteriaFlag, loopLimitFlags, sessionFlag, sessionToBind, startInSession } from "./shared.ts"

export const start = Command.make(
  "start",
  {
    goal: Argument.String("goal").pipe(
      Argument.withDescription("What the loop works toward"),
      Argument.variadic({ min: 1 })
    ),
    ...loopLimitFlags,
    criteria: criteriaFlag,
    session: sessionFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const sessionId = yield* sessionToBind(input.session)
      const { root, config } = yield* configFromFlags(input)
      const goal = input.goal.join(" ")
      const loopId = monotonicUlid()()
      yield* startInSession(
        { ...input, sessionId },
        { loopId, root, goal, config },
        `Ralph loop ${loopId} started: ${goal}\nThe harness checks ${describeCriteria(config.successCriteria)} ` +
          `every time you stop, for up to ${config.maxIterations} iterations.`
      )
    })
).pipe(Command.withDescription(
  "Start a loop bound to this Claude Code session: its Stop hook runs the checks and continues until they pass"
))
