/**
 * `ralph-mem config [key] [value]`: read and write the YAML configuration. `ralph-mem config trust`
 * accepts the project's file as it is now (see packages/settings/src/trust.ts).
 */
import { findProjectRoot } from "@ralph-mem/events"
import {
  acceptProjectFile,
  keepAccepted,
  listSettings,
  type LoadedSettings,
  loadSettings,
  settingKeys,
  settingValue,
  TrustNotRecorded,
  writeSetting
} from "@ralph-mem/settings"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as flags from "../flags.ts"
import { inert, printFields, printJson } from "../output.ts"

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/** `config trust`: shows what it accepts (the commands the file runs, the limits it raises), then records it. */
const trust = (loaded: LoadedSettings, json: boolean) =>
  Effect.gen(function*() {
    const { acceptance, problem } = yield* flags.failingWith(TrustNotRecorded, () => acceptProjectFile(loaded.files))
    if (acceptance === undefined) return yield* flags.failWith(problem ?? "nothing to accept")
    if (json) return yield* printJson(acceptance)
    const hash = acceptance.sha256.slice(0, 16)
    yield* Console.log(`Accepted ${acceptance.file} as it is now (sha256 ${hash}...); a change needs accepting again.`)
    if (acceptance.accepted.length === 0) {
      return yield* Console.log("It sets nothing that runs a command or raises a limit.")
    }
    yield* Console.log("These settings now apply:")
    for (const { key, value } of acceptance.accepted) yield* Console.log(`  ${key}: ${JSON.stringify(value)}`)
  })

export const config = Command.make(
  "config",
  {
    key: Argument.String("key").pipe(
      Argument.withDescription("A dotted key, e.g. memory.context_window; or trust, to accept the project's file"),
      Argument.optional
    ),
    value: Argument.String("value").pipe(
      Argument.withDescription("A new value (YAML: 0.2, 30m, [a, b], null)"),
      Argument.optional
    ),
    global: Flag.Boolean("global").pipe(
      Flag.withDescription("Write the global file instead of the project's"),
      Flag.withDefault(false)
    ),
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const loaded = loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env })
      // A problem names the file, in a folder an archive may have named.
      for (const problem of [...loaded.problems, ...loaded.untrusted]) {
        yield* Console.error(inert(`warning: ${problem}`))
      }
      const trusting = Option.isSome(input.key) && input.key.value === "trust" && Option.isNone(input.value)
      if (trusting) return yield* trust(loaded, input.json)
      if (Option.isNone(input.key)) {
        const all = listSettings(loaded.settings)
        if (input.json) {
          return yield* printJson({
            settings: Object.fromEntries(all.map((s) => [s.key, s.value])),
            files: loaded.files,
            problems: loaded.problems,
            untrusted: loaded.untrusted
          })
        }
        return yield* printFields(all.map((s) => [s.key, show(s.value)]))
      }
      const key = input.key.value
      if (!settingKeys().includes(key)) {
        return yield* flags.failWith(`unknown setting ${key}; known: ${settingKeys().join(", ")}`)
      }
      if (Option.isNone(input.value)) {
        const value = settingValue(loaded.settings, key)
        return yield* input.json ? printJson({ [key]: value }) : Console.log(show(value))
      }
      const file = input.global ? loaded.files.global : loaded.files.project
      const { problems } = writeSetting({ file, key, value: input.value.value })
      if (problems.length > 0) return yield* flags.failWith(problems.join("\n"))
      // The user's own write keeps an accepted file accepted (a file with nothing to accept counts as accepted).
      if (!input.global) keepAccepted(loaded.files, loaded.untrusted.length === 0)
      yield* input.json
        ? printJson({ file, key, value: input.value.value })
        : Console.log(`${key} = ${input.value.value} (in ${file})`)
    })
).pipe(Command.withDescription(
  "Show or change settings (defaults < global < project < environment); " +
    "`config trust` accepts the project's file, whose commands and raised limits are ignored until then"
))
