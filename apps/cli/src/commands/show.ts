/**
 * `ralph-mem show`: memory items in full, by the ids search prints or the short ids injected text (`@12`)
 * and audit (`#12`) show. An observation in full (layer 3); a session with its summary and the index of its
 * observations; any other event (a belief, a decision, a loop's checks) as it was recorded.
 */
import { type EventDetail, eventDetails, formatTime } from "@ralph-mem/projections"
import { fullDetails, positionOfRef } from "@ralph-mem/projections/search"
import { Argument, Command } from "effect/cli"
import * as Effect from "effect/Effect"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson, printText, streamForReading, valuesForReading } from "../output.ts"
import { printDetail } from "./search.ts"

/** Whether an item answers an id as given: its event id, or its short id in any spelling. */
const answers = (item: { readonly id: string; readonly ref: string }, id: string) =>
  item.id === id || (positionOfRef(id) !== undefined && `@${positionOfRef(id)}` === item.ref)

/** An event as recorded (its payload as JSON) or a session's index, for reading: paths relative, home as `~`. */
const printEvent = (detail: EventDetail) => {
  const e = { ...valuesForReading(detail), streamId: streamForReading(detail.streamId) }
  return printText(
    e.session === undefined
      ? [`${e.ref}  ${e.type} (${e.id}, ${e.streamId}, ${formatTime(e.createdAt)})`, JSON.stringify(e.payload, null, 2)]
        .join("\n") + "\n"
      : [
        `${e.ref}  session ${e.session.sessionId} (started ${formatTime(e.createdAt)})`,
        ...(e.session.summary === null ? [] : ["", e.session.summary]),
        "",
        ...e.session.observations.map((o) => `${o.ref}  [${o.type}] ${o.title}`),
        ""
      ].join("\n")
  )
}

export const show = Command.make(
  "show",
  {
    ids: Argument.String("id").pipe(
      Argument.withDescription(
        "Ids as search prints them, or positions as injected text (@12) and audit (#12) show them"
      ),
      Argument.variadic({ min: 1 })
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withExistingStore(input.db, ({ db }) =>
      Effect.gen(function*() {
        const observations = fullDetails(db, input.ids).map((d) => ({ ...d, ref: `@${d.position}` }))
        const rest = input.ids.filter((id) => !observations.some((d) => answers(d, id)))
        const events = rest.length === 0 ? [] : eventDetails(db, rest)
        const unknown = rest.filter((id) => !events.some((e) => answers(e, id)))
        if (input.json) yield* printJson({ details: [...observations, ...events], unknown })
        else {
          for (const d of observations) yield* printDetail(d)
          for (const e of events) yield* printEvent(e)
        }
        if (unknown.length > 0) return yield* flags.failWith(`no memory item with id ${unknown.join(", ")}`)
      }))
).pipe(Command.withDescription("Show memory items in full: observations, sessions and other events, by id or @id"))
