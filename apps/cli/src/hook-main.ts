/**
 * The hook program behind hook.ts: decides which hook runs and prints its output. This is where the
 * memory hooks and the Ralph loop meet: the loop continues at Stop.
 */
import { useBundledNativeBinding } from "@ralph-mem/events"
import { type HookExtensions, isHookName, runHook } from "@ralph-mem/hooks"
import { injectionBudgetTokens } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * After a session ends, a backup in a detached process (at most once per backup.interval): the hook
 * returns at once, and the copy runs on without slowing Claude Code.
 */
const backupAfterSession: HookExtensions["afterRecorded"] = (hook, { databasePath }) => {
  if (hook !== "SessionEnd") return
  const cli = join(fileURLToPath(new URL(".", import.meta.url)), "..", "ralph-mem.mjs")
  const child = spawn(process.execPath, [cli, "backup", "--if-due", "--db", databasePath], { detached: true, stdio: "ignore" })
  child.on("error", () => undefined) // a backup that cannot start must not break the hook
  child.unref()
}

const extensions: HookExtensions = {
  afterRecorded: backupAfterSession,
  // Loaded only at Stop: every other hook would pay for the loop's modules at start-up.
  stop: ({ memory, input, settings, env }) =>
    Effect.flatMap(Effect.promise(() => import("@ralph-mem/loop")), ({ continueAtStop }) =>
      continueAtStop(memory, {
        sessionId: input.session_id,
        lastAssistantMessage: input.last_assistant_message ?? "",
        env,
        now: Date.now(),
        injectionBudgetTokens: injectionBudgetTokens(settings)
      }))
}

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
    runHook(hook, stdin, { env: process.env, cwd: process.cwd() }, extensions)
  )
  if (output !== undefined) process.stdout.write(`${JSON.stringify(output)}\n`)
}
