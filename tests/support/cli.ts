/** Runs the bundled `ralph-mem` binary as a real process. */
import { spawnSync } from "node:child_process"
import { join } from "node:path"

export const CLI = join(import.meta.dirname, "..", "..", "dist", "ralph-mem.mjs")

/** The hook entry the plugin registers in hooks/hooks.json. */
export const HOOK = join(import.meta.dirname, "..", "..", "dist", "hook.mjs")

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const runCli = (
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly env?: Record<string, string>; readonly node?: string } = {}
): CliResult => {
  const result = spawnSync(options.node ?? process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    encoding: "utf8"
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}
