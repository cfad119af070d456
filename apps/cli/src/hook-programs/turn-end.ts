/**
 * The hook program of a turn's and a session's end: the Ralph loop continues at Stop (this is where the memory
 * hooks and the loop meet), and a session that ended is maintained in the background.
 */
import { type HookExtensions, injectionBudgetTokens, turnEndHandlers } from "@ralph-mem/hooks"
import { continueAtStop, interruptAtStopFailure } from "@ralph-mem/loop"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { hookMain } from "../hook-program.ts"

/**
 * After a session ends, maintenance in a detached process: settled streams are packed, and a backup is
 * taken at most once per backup.interval. The hook returns at once, and the work runs on without
 * slowing Claude Code.
 */
const maintainAfterSession: HookExtensions["afterRecorded"] = (hook, { databasePath }) => {
  if (hook !== "SessionEnd") return
  // Loaded here only: child_process (with net and the streams) costs every other hook about 3 ms.
  const { spawn } = process.getBuiltinModule("node:child_process")
  const cli = join(fileURLToPath(new URL(".", import.meta.url)), "..", "ralph-mem.mjs")
  const child = spawn(process.execPath, [cli, "maintain", "--db", databasePath], { detached: true, stdio: "ignore" })
  child.on("error", () => undefined) // maintenance that cannot start must not break the hook
  child.unref()
}

export const main = hookMain(turnEndHandlers, {
  afterRecorded: maintainAfterSession,
  // Imported statically: the loop's modules only define functions and a few patterns, compiled when
  // Stop first calls them, while a dynamic import made the bundler wrap every module of the program
  // in a lazy initializer.
  stop: ({ memory, input, settings, env }) =>
    Effect.suspend(() =>
      continueAtStop(memory, {
        sessionId: input.session_id,
        lastAssistantMessage: input.last_assistant_message ?? "",
        env,
        now: Date.now(),
        injectionBudgetTokens: injectionBudgetTokens(settings),
        ...(input.transcript_path === undefined ? {} : { transcriptPath: input.transcript_path })
      })
    ),
  stopFailure: ({ memory, input }) =>
    Effect.suspend(() =>
      interruptAtStopFailure(memory, {
        sessionId: input.session_id,
        error: input.error ?? "unknown",
        message: (input.last_assistant_message ?? "").slice(0, 300)
      })
    )
})
