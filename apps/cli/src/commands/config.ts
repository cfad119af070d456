/** `ralph-mem config [key] [value]`: read and write the YAML configuration. */
import { findProjectRoot } from "@ralph-mem/events"
import { listSettings, loadSettings, settingKeys, settingValue, writeSetting } from "@ralph-mem/projections"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import * as flags from "../flags.ts"
import { printFields, printJson } from "../output.ts"

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

export const config = Command.make(
  "config",
  {
    key: Argument.String("key").pipe(Argument.withDescription("A dotted key, e.g. memory.context_window"), Argument.optional),
    value: Argument.String("value").pipe(Argument.withDescription("A new value (YAML: 0.2, 30m, [a, b], null)"), Argument.optional),
    global: Flag.Boolean("global").pipe(Flag.withDescription("Write the global file instead of the project's"), Flag.withDefault(false)),
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const loaded = loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env })
      for (const problem of loaded.problems) yield* Console.error(`warning: ${problem}`)
      if (Option.isNone(input.key)) {
        const all = listSettings(loaded.settings)
        if (input.json) return yield* printJson({ settings: Object.fromEntries(all.map((s) => [s.key, s.value])), files: loaded.files, problems: loaded.problems })
        return yield* printFields(all.map((s) => [s.key, show(s.value)]))
      }
      const key = input.key.value
      if (!settingKeys().includes(key)) return yield* flags.failWith(`unknown setting ${key}; known: ${settingKeys().join(", ")}`)
      if (Option.isNone(input.value)) {
        const value = settingValue(loaded.settings, key)
        return yield* input.json ? printJson({ [key]: value }) : Console.log(show(value))
      }
      const file = input.global ? loaded.files.global : loaded.files.project
      const { problems } = writeSetting({ file, key, value: input.value.value })
      if (problems.length > 0) return yield* flags.failWith(problems.join("\n"))
      yield* input.json ? printJson({ file, key, value: input.value.value }) : Console.log(`${key} = ${input.value.value} (in ${file})`)
    })
).pipe(Command.withDescription("Show or change settings (defaults < global < project < environment)"))
