/** `ralph-mem inject`: a note the user wants remembered and brought back in later sessions. */
import { findProjectRoot } from "@ralph-mem/events"
import { Refused } from "@ralph-mem/projections"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { withStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson } from "../output.ts"
import { noteText, writeNote } from "../writes.ts"

export const inject = Command.make(
  "inject",
  {
    text: Argument.String("text").pipe(Argument.withDescription("The note"), Argument.variadic({ min: 1 })),
    type: Flag.String("type").pipe(
      Flag.withDescription("A label for the note (note, convention, warning, ...)"),
      Flag.withDefault("note")
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      // Refused before the memory is opened: an empty note makes no database.
      const text = noteText(input.text.join(" "))
      if (text instanceof Refused) return yield* flags.failWith(text.message)
      yield* withStore(input.db, (memory) =>
        Effect.gen(function*() {
          const { noteId, stored } = yield* writeNote(memory, {
            project: findProjectRoot(process.cwd()),
            text,
            noteType: input.type,
            writer: "cli:inject"
          })
          if (input.json) return yield* printJson({ id: stored.eventId, noteId, stored: stored.payload })
          yield* Console.log(
            `Remembered (${stored.eventId}). It will be injected at the start of later sessions in this project.`
          )
        }))
    })
).pipe(Command.withDescription("Remember a note and inject it into later sessions"))
