/** `ralph config [key] [value]`: shows or changes a loop's settings; the loop package validates the value. */
import {
  changeLoopSetting,
  execute,
  isLoopSettingKey,
  LOOP_SETTING_KEYS,
  LoopConfigInvalid,
  loopSettings,
  statusReport
} from "@ralph-mem/loop"
import { Argument, Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withStore } from "../../command-memory.ts"
import * as flags from "../../flags.ts"
import { printFields, printJson } from "../../output.ts"
import { loopFlag, resolveLoop } from "./shared.ts"

export const config = Command.make(
  "config",
  {
    key: Argument.String("key").pipe(
      Argument.withDescription(`One of ${LOOP_SETTING_KEYS.join(", ")}`),
      Argument.optional
    ),
    value: Argument.String("value").pipe(Argument.withDescription("The new value"), Argument.optional),
    loop: loopFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const loop = yield* resolveLoop(memory, input.loop)
        const current = loopSettings(loop.config)
        if (Option.isNone(input.key)) {
          return yield* input.json
            ? printJson(current)
            : printFields(Object.entries(current).map(([k, v]) => [k, String(v)]))
        }
        const key = input.key.value
        if (!isLoopSettingKey(key)) {
          return yield* flags.failWith(`unknown loop setting ${key}; use one of ${LOOP_SETTING_KEYS.join(", ")}`)
        }
        if (Option.isNone(input.value)) {
          return yield* input.json ? printJson({ [key]: current[key] }) : Console.log(String(current[key]))
        }
        const raw = input.value.value
        const next = changeLoopSetting(loop.config, key, raw)
        if (next instanceof LoopConfigInvalid) return yield* flags.failWith(next.message)
        const changed = yield* execute(memory, loop.loopId, { _tag: "ChangeConfig", config: next }, "cli:ralph-config")
        if (input.json) return yield* printJson(statusReport(changed).stopConditions)
        yield* Console.log(`${key} = ${raw}`)
      }))
).pipe(Command.withDescription("Show or change a loop's settings"))
