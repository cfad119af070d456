/**
 * Runs one argv to completion without a shell, keeping the tail of its output and killing its whole process tree
 * on timeout.
 *
 * Why node:child_process and not effect/process: the criteria need three things from the OS — a new process group
 * (`detached`), a kill aimed at that group (`process.kill(-pid)`), and the raw output chunks to bound memory while
 * streaming. Node gives all three directly, and this package then needs no platform layer (`@effect/platform-node`)
 * to be provided by every caller. `Effect.callback` wraps it: the returned cleanup kills the group if the fiber
 * is interrupted, so an interrupted loop never leaves a test run behind.
 */
import * as Effect from "effect/Effect"
import type { ChildProcess } from "node:child_process"
import { TailBuffer } from "./tail-buffer.ts"

/** Only this many bytes of output are ever held in memory. */
const OUTPUT_WINDOW_BYTES = 64 * 1024

/**
 * After the main process exits (or is killed), how long to wait for its pipes to close. Something outside its
 * process group (a daemon that called setsid) can hold them open forever; the run must end anyway.
 */
const PIPE_CLOSE_GRACE_MS = 2_000

export interface CommandOptions {
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  readonly timeoutMs: number
}

export interface CommandOutcome {
  /** Undefined when the process did not exit by itself (killed by a signal, or never started). */
  readonly exitCode: number | undefined
  readonly signal: NodeJS.Signals | undefined
  readonly timedOut: boolean
  /** The last OUTPUT_WINDOW_BYTES of stdout and stderr, merged in the order the chunks arrived. */
  readonly output: string
  readonly durationMs: number
  /** Why the process could not be started (e.g. `spawn nosuchtool ENOENT`). */
  readonly startError: string | undefined
}

/** A process group per run lets one signal reach every process the command started. POSIX only. */
const usesProcessGroups = process.platform !== "win32"

const killTree = (child: ChildProcess): void => {
  const pid = child.pid
  if (pid === undefined) return
  try {
    if (usesProcessGroups) process.kill(-pid, "SIGKILL")
    else child.kill("SIGKILL")
  } catch {
    // ESRCH: the group is already gone, which is what we wanted.
  }
}

export const runCommand = (argv: ReadonlyArray<string>, options: CommandOptions): Effect.Effect<CommandOutcome> =>
  Effect.callback<CommandOutcome>((resume) => {
    const started = performance.now()
    const output = new TailBuffer(OUTPUT_WINDOW_BYTES)
    const elapsed = () => Math.round(performance.now() - started)
    const [program, ...args] = argv

    const notStarted = (reason: string): CommandOutcome => ({
      exitCode: undefined,
      signal: undefined,
      timedOut: false,
      output: "",
      durationMs: elapsed(),
      startError: reason
    })

    if (program === undefined || program === "") {
      resume(Effect.succeed(notStarted("empty command")))
      return
    }

    let child: ChildProcess
    try {
      // Fetched here: child_process (with net and the streams) would cost every hook that loads this module 3 ms.
      child = process.getBuiltinModule("node:child_process").spawn(program, args, {
        cwd: options.cwd,
        env: options.env,
        shell: false,
        detached: usesProcessGroups,
        // No stdin: a command that prompts must fail, not wait for an answer nobody will type.
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true
      })
    } catch (error) {
      // spawn throws synchronously for invalid arguments (e.g. a NUL byte in argv).
      resume(Effect.succeed(notStarted(error instanceof Error ? error.message : String(error))))
      return
    }

    let finished = false
    let timedOut = false
    let exitCode: number | undefined
    let signal: NodeJS.Signals | undefined
    let graceTimer: NodeJS.Timeout | undefined

    const finish = (outcome: CommandOutcome) => {
      if (finished) return
      finished = true
      clearTimeout(deadline)
      clearTimeout(graceTimer)
      child.stdout?.destroy()
      child.stderr?.destroy()
      resume(Effect.succeed(outcome))
    }
    const finishRun = () =>
      finish({ exitCode, signal, timedOut, output: output.toString(), durationMs: elapsed(), startError: undefined })
    const finishAfterGrace = () => {
      if (graceTimer === undefined) graceTimer = setTimeout(finishRun, PIPE_CLOSE_GRACE_MS)
    }

    child.stdout?.on("data", (chunk: Buffer) => output.append(chunk))
    child.stderr?.on("data", (chunk: Buffer) => output.append(chunk))

    const deadline = setTimeout(() => {
      timedOut = true
      killTree(child)
      // Normally "exit" and "close" follow at once; this only matters if the kill could not land.
      finishAfterGrace()
    }, options.timeoutMs)

    child.on("error", (error) => {
      // After a successful start, errors only come from kill() and are covered by the exit / grace paths.
      if (child.pid === undefined) finish(notStarted(error.message))
    })
    child.on("exit", (code, exitSignal) => {
      exitCode = code ?? undefined
      signal = exitSignal ?? undefined
      // Processes the command left behind in its group would keep the pipes open (and keep running between
      // iterations): the check is over, so they go too.
      killTree(child)
      finishAfterGrace()
    })
    child.on("close", finishRun)

    return Effect.sync(() => {
      if (finished) return
      finished = true
      clearTimeout(deadline)
      clearTimeout(graceTimer)
      killTree(child)
      child.stdout?.destroy()
      child.stderr?.destroy()
    })
  })
