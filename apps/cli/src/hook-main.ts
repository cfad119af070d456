/** The hook program behind entry.ts: decides which hook runs and prints its output. */
import { useBundledNativeBinding } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { isHookName } from "./payload.ts"
import { runHook } from "./run.ts"

export const main = async (hook: string | undefined, readStdin: () => string | undefined): Promise<void> => {
  // An event we do not handle (a newer Claude Code, a mistyped hooks.json): stay silent.
  if (!isHookName(hook)) return
  useBundledNativeBinding(import.meta.url)
  let stdin: string | undefined
  try {
    stdin = readStdin()
  } catch {
    stdin = undefined
  }
  const output = await Effect.runPromise(
    runHook(hook, stdin, { env: process.env, cwd: process.cwd() })
  )
  if (output !== undefined) process.stdout.write(`${JSON.stringify(output)}\n`)
}
