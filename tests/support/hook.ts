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
  }
): HookRun => {
  const result = spawnSync(process.execPath, [...HOOK_NODE_OPTIONS, HOOK, event], {
    cwd: options.cwd,
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
