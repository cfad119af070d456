/** `ralph-mem show`: observations in full (layer 3), by id. */
import { fullDetails } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { Argument, Command } from "effect/cli"
import * as flags from "../flags.ts"
import { printJson } from "../output.ts"
import { withExistingStore } from "../command-memory.ts"
import { printDetail } from "./search.ts"

export const show = Command.make(
  "show",
  {
    ids: Argument.String("id").pipe(Argument.withDescription("Observation ids, as search prints them"), Argument.variadic({ min: 1 })),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withExistingStore(input.db, ({ db }) =>
      Effect.gen(function*() {
        const details = fullDetails(db, input.ids)
        const unknown = input.ids.filter((id) => !details.some((d) => d.id === id))
        if (input.json) yield* printJson({ details, unknown })
        else for (const d of details) yield* printDetail(d)
        if (unknown.length > 0) return yield* flags.failWith(`no observation with id ${unknown.join(", ")}`)
      })
    )
).pipe(Command.withDescription("Show observations in full: content, metadata and files"))
