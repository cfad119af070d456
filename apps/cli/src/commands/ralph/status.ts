/** `ralph status`: one loop, as text or `--json`. */
import { statusFields, statusReport } from "@ralph-mem/loop"
import { Command } from "effect/cli"
import * as Effect from "effect/Effect"
import { withExistingStore } from "../../command-memory.ts"
import * as flags from "../../flags.ts"
import { printFields, printJson } from "../../output.ts"
import { loopFlag, resolveLoop } from "./shared.ts"

export const status = Command.make(
  "status",
  { loop: loopFlag, db: flags.db, json: flags.json },
  (input) =>
    withExistingStore(input.db, (memory) =>
      Effect.gen(function*() {
        const loop = yield* resolveLoop(memory, input.loop)
        if (input.json) return yield* printJson(statusReport(loop))
        yield* printFields(statusFields(loop))
      }))
).pipe(Command.withDescription("Show a loop: goal, iteration, elapsed time, last checks, stop conditions, snapshots"))
