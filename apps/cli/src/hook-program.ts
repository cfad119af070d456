/**
 * What every hook program runs (one per group of hooks, in hook-programs/): reads stdin, runs the hook with the
 * program's handlers and extensions, and prints its output.
 *
 * scripts/bundle.mjs bundles each program on its own and hook-loader.ts loads the one that runs its event:
 * everything a program imports is evaluated by each of its hooks, so a program holds only what its hooks
 * run, and Node's modules that only some hooks need (child_process) are fetched where they are used.
 */
import { useBundledNativeBinding } from "@ralph-mem/events"
import { type HookExtensions, type HookHandlers, isHookName, runHookWith } from "@ralph-mem/hooks"
import * as Effect from "effect/Effect"
import { writeSync } from "node:fs"
import { isAbsolute } from "node:path"
import { inert } from "./inert.ts"

/** Runs the hook; true when it recorded its events (hook-loader.ts then writes the code cache). */
export type HookMain = (hook: string | undefined, readStdin: () => string | undefined) => Promise<boolean>

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

/**
 * The process's working folder. Claude Code starts a hook in the folder the session stands in, which may have been
 * removed since (`rm -rf build` from inside it, a branch switch without it): `process.cwd()` then throws, and the
 * hook goes on with what names the folder still (the shell's PWD, else the project's folder); the payload's `cwd`
 * names it too, and the project is found from the folders above it.
 */
const processFolder = (): string => {
  try {
    return process.cwd()
  } catch {
    const named = [process.env["PWD"], process.env["CLAUDE_PROJECT_DIR"]].find((dir) => isAbsolute(dir ?? ""))
    return named ?? ""
  }
}

/**
 * The output with its `systemMessage`, which Claude Code shows the user in the terminal, inert: it can name what a
 * repository named (a folder, a file). What Claude reads (additional context) is left as it is.
 */
const shown = (output: object): object =>
  "systemMessage" in output && typeof output.systemMessage === "string"
    ? { ...output, systemMessage: inert(output.systemMessage) }
    : output

export const hookMain =
  (handlers: HookHandlers, extensions: HookExtensions = {}): HookMain => async (hook, readStdin) => {
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
    const afterRecorded: HookExtensions["afterRecorded"] = (name, context) => {
      recorded = true
      extensions.afterRecorded?.(name, context)
    }
    const environment = { env: process.env, cwd: processFolder(), exitsAfter: true }
    const run = runHookWith(handlers, hook, stdin, environment, { ...extensions, afterRecorded })
    const output = await Effect.runPromise(run)
    if (output !== undefined) writeStdout(`${JSON.stringify(shown(output))}\n`)
    return recorded
  }
