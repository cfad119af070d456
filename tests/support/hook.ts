/** Runs the bundled hook entry as Claude Code does: a fresh process, JSON on stdin. */
import { spawnSync } from "node:child_process"
import { HOOK, HOOK_NODE_OPTIONS, testRunState } from "./cli.ts"

export interface HookRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const runHookProcess = (
  event: string,
  stdin: string | Buffer,
  options: {
    readonly cwd: string
    readonly env?: Record<string, string>
    /** For a hook that would wait forever if it did not refuse (a FIFO where a file belongs): killed past this. */
    readonly timeoutMs?: number
    /**
     * The hook starts in `cwd` after it was removed (an empty folder the session stood in, deleted since): a shell
     * goes into it, removes it and runs the hook there, as Claude Code's shell would.
     */
    readonly cwdRemoved?: boolean
  }
): HookRun => {
  const [command, args] = options.cwdRemoved === true
    ? ["sh", [
      "-c",
      "cd \"$0\" && rmdir \"$0\" && exec \"$@\"",
      options.cwd,
      process.execPath,
      ...HOOK_NODE_OPTIONS,
      HOOK,
      event
    ]]
    : [process.execPath, [...HOOK_NODE_OPTIONS, HOOK, event]]
  const result = spawnSync(command, args, {
    cwd: options.cwdRemoved === true ? "/" : options.cwd,
    input: stdin,
    env: { PATH: process.env["PATH"] ?? "", HOME: options.cwd, ...testRunState(), ...options.env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs })
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A hook payload with the fields every event carries. */
export const payload = (event: string, sessionId: string, cwd: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: sessionId, transcript_path: `${cwd}/t.jsonl`, cwd, hook_event_name: event, ...fields })
