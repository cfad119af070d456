/** `ralph-mem adopt`: the project's memory is the user's own, though this machine has no record of making it. */
import { Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { adoptStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson } from "../output.ts"

export const adopt = Command.make(
  "adopt",
  { db: flags.db, json: flags.json },
  (input) =>
    Effect.gen(function*() {
      const { path, id, already } = yield* adoptStore(input.db)
      if (input.json) return yield* printJson({ database: path, id, alreadyYours: already })
      yield* Console.log(
        already
          ? `${path} is already your memory on this machine (id ${id}).`
          : `${path} is now your memory on this machine (id ${id}): the hooks and the memory tools use it from the ` +
            "next session."
      )
    })
).pipe(
  Command.withDescription(
    "Accept the project's memory as yours when ralph-mem refuses it as not made here (copied from another " +
      "machine, or unused for long); never for a memory that came with someone else's files"
  )
)
