/**
 * The hook program behind hook-loader.ts: decides which hook runs and prints its output. This is where the
 * memory hooks and the Ralph loop meet: the loop continues at Stop.
 *
 * Bundled on its own (scripts/bundle.mjs) and loaded by hook-loader.ts: everything it imports is evaluated by
 * every hook, so Node's modules that only some hooks need (child_process) are fetched where they are used.
 */
import { useBundledNativeBinding } from "@ralph-mem/events"
import { type HookExtensions, injectionBudgetTokens, isHookName, runHook } from "@ralph-mem/hooks"
import { continueAtStop, interruptAtStopFailure } from "@ralph-mem/loop"
import * as Effect from "effect/Effect"
import { writeSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

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

/**
 * Writes all of `text` to stdout synchronously: no stream is set up (that loads net and the streams),
 * and nothing is left pending when the process exits. A non-blocking pipe that is full is waited for;
 * a closed one (EPIPE) ends the writing, and the hook still exits 0.
 */
const writeStdout = (text: string): void => {
  const bytes = Buffer.from(text, "utf8")
  for (let offset = 0; offset < bytes.length;) {
    try {
      offset += writeSync(1, bytes, offset)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return
    }
  }
}

export const main = async (hook: string | undefined, readStdin: () => string | undefined): Promise<boolean> => {
  // An event we do not handle (a newer Claude Code, a mistyped hooks.json): stay silent.
  if (!isHookName(hook)) return false
  useBundledNativeBinding(import.meta.url)
  let stdin: string | undefined
  try {
    stdin = readStdin()
  } catch {
    stdin = undefined
  }
  let recorded = false
  const extensions: HookExtensions = {
    afterRecorded: (name, context) => {
      recorded = true
      maintainAfterSession(name, context)
    },
    // Imported statically: the loop's modules only define functions and a few patterns, compiled when
    // Stop first calls them, while a dynamic import made the bundler wrap every module of the program
    // in a lazy initializer (0.5 ms more for every hook).
    stop: ({ memory, input, settings, env }) =>
      Effect.suspend(() =>
        continueAtStop(memory, {
          sessionId: input.session_id,
          lastAssistantMessage: input.last_assistant_message ?? "",
          env,
          now: Date.now(),
          injectionBudgetTokens: injectionBudgetTokens(settings),
          ...(input.transcript_path === undefined ? {} : { transcriptPath: input.transcript_path })
        })),
    stopFailure: ({ memory, input }) =>
      Effect.suspend(() =>
        interruptAtStopFailure(memory, {
          sessionId: input.session_id,
          error: input.error ?? "unknown",
          message: (input.last_assistant_message ?? "").slice(0, 300)
        }))
  }
  const output = await Effect.runPromise(runHook(hook, stdin, { env: process.env, cwd: process.cwd(), exitsAfter: true }, extensions))
  if (output !== undefined) writeStdout(`${JSON.stringify(output)}\n`)
  return recorded
}
