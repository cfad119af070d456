/** Runs the bundled `ralph-mem` binary as a real process. */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"

export const CLI = join(import.meta.dirname, "..", "..", "dist", "ralph-mem.mjs")

/** The hook entry the plugin registers in hooks/hooks.json. */
export const HOOK = join(import.meta.dirname, "..", "..", "dist", "hook.mjs")

/** The options hooks/hooks.json gives `node` before the hook entry (the same for every event). */
export const HOOK_NODE_OPTIONS: ReadonlyArray<string> = (() => {
  const file = join(import.meta.dirname, "..", "..", "plugin", "hooks", "hooks.json")
  const config = JSON.parse(readFileSync(file, "utf8")) as {
    hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>
  }
  const command = config.hooks["PostToolUse"]![0]!.hooks[0]!.command
  return command.slice(0, command.indexOf(" \"")).split(" ").slice(1)
})()

/**
 * The test run's state home (global-setup.ts), for processes started with an environment of their own: one machine,
 * whose record of the memories its user made (memory-origin.ts) every process of a test shares, as a user's do.
 */
export const testRunState = (): Record<string, string> => {
  const state = process.env["XDG_STATE_HOME"]
  return state === undefined ? {} : { XDG_STATE_HOME: state }
}

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const runCli = (
  args: ReadonlyArray<string>,
  options: {
    readonly cwd?: string
    readonly env?: Record<string, string>
    readonly node?: string
    /** For a command that would run until stopped if it did not refuse (`ui`): killed past this. */
    readonly timeoutMs?: number
  } = {}
): CliResult => {
  const result = spawnSync(options.node ?? process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    encoding: "utf8",
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs })
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}
