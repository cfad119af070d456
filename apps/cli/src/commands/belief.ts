/** `ralph-mem belief set|list|unset`: durable facts about the project, told to every new session. */
import { findProjectRoot, streams } from "@ralph-mem/events"
import { handleCommand, listBeliefs, type MemoryStore } from "@ralph-mem/projections"
import { type BeliefCommand, beliefDecider, parseName } from "@ralph-mem/working"
import { Argument, Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { withExistingStore, withStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { forReading, printFields, printJson, printText } from "../output.ts"

const keyArgument = Argument.String("key").pipe(
  Argument.withDescription("What the belief is about: stack, key-files, conventions, focus, blockers, or any word")
)

const run = (memory: MemoryStore, rawKey: string, command: (project: string, key: string) => BeliefCommand) =>
  Effect.gen(function*() {
    const key = parseName("belief key", rawKey)
    if (typeof key !== "string") return yield* flags.failWith(key.message)
    const project = findProjectRoot(process.cwd())
    const { state, events } = yield* handleCommand(
      memory,
      streams.belief(project, key),
      beliefDecider,
      command(project, key),
      "cli:belief"
    )
    return { key, value: state ?? null, changed: events.length > 0, id: events[0]?.eventId ?? null }
  })

const set = Command.make(
  "set",
  {
    key: keyArgument,
    value: Argument.String("value").pipe(
      Argument.withDescription("What is true about it"),
      Argument.variadic({ min: 1 })
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const result = yield* run(
          memory,
          input.key,
          (projectPath, key) => ({ _tag: "Set", projectPath, key, value: input.value.join(" ") })
        )
        if (input.json) return yield* printJson(result)
        yield* printText(`${result.key}: ${result.value}${result.changed ? "" : " (unchanged)"}`)
      }))
).pipe(Command.withDescription("Set a belief (replacing its value); every new session of this project is told it"))

const unset = Command.make(
  "unset",
  { key: keyArgument, db: flags.db, json: flags.json },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const result = yield* run(memory, input.key, (projectPath, key) => ({ _tag: "Unset", projectPath, key }))
        if (input.json) return yield* printJson(result)
        yield* Console.log(`${result.key} is no longer a belief.`)
      }))
).pipe(Command.withDescription("Remove a belief (its history stays in the log; forget its ids to erase it)"))

const list = Command.make(
  "list",
  { db: flags.db, json: flags.json },
  (input) =>
    withExistingStore(input.db, ({ db }) =>
      Effect.gen(function*() {
        const beliefs = listBeliefs(db, findProjectRoot(process.cwd()))
        if (input.json) return yield* printJson(beliefs)
        if (beliefs.length === 0) {
          return yield* Console.log("No beliefs yet. Record one with: ralph-mem belief set <key> <value>")
        }
        yield* printFields(beliefs.map((b) => [b.key, forReading(b.value)]))
      }))
).pipe(Command.withDescription("List this project's beliefs, the most recently set first"))

export const belief = Command.make("belief").pipe(
  Command.withDescription(
    "Durable facts about the project (stack, key files, conventions, focus, blockers), told to every new session"
  ),
  Command.withSubcommands([set, list, unset])
)
