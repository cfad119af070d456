/**
 * Runs the real Claude Code CLI headless, fully isolated, against a mock Messages API.
 *
 * Isolation and flags follow /work/shared/claude-code.md: a throwaway HOME/TMPDIR per sandbox, the API
 * pointed at the mock, telemetry and updates off, and none of the parent's ANTHROPIC_* / CLAUDE_* variables.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path"
import { removeWhenSettled } from "../support/remove.ts"

const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const REPO_BIN = join(REPO_ROOT, "node_modules", ".bin", process.platform === "win32" ? "claude.cmd" : "claude")

/** Default per-process time limit: it only catches a hang, so it leaves room for a busy 2-core machine. */
export const DEFAULT_TIMEOUT_MS = 120_000

// ---------------------------------------------------------------------------------------------------------
// Locating the binary

/**
 * The claude binary: `CLAUDE_CODE_BIN` if set, else `<repo>/node_modules/.bin/claude`, else `undefined`.
 * A `CLAUDE_CODE_BIN` that points nowhere throws: an explicit setting that is wrong must not turn into a skip.
 */
export const findClaudeBinary = (): string | undefined => {
  const fromEnv = process.env["CLAUDE_CODE_BIN"]
  if (fromEnv !== undefined && fromEnv !== "") {
    const path = resolve(fromEnv)
    if (!existsSync(path)) throw new Error(`CLAUDE_CODE_BIN=${fromEnv} does not exist`)
    return path
  }
  return existsSync(REPO_BIN) ? REPO_BIN : undefined
}

export const MISSING_CLAUDE_MESSAGE =
  "No Claude Code binary: set CLAUDE_CODE_BIN or install the pinned @anthropic-ai/claude-code devDependency " +
  `(${REPO_BIN})`

/** The claude binary, or a clear error. */
export const requireClaudeBinary = (): string => {
  const bin = findClaudeBinary()
  if (bin === undefined) throw new Error(MISSING_CLAUDE_MESSAGE)
  return bin
}

// ---------------------------------------------------------------------------------------------------------
// Sandboxes: one isolated HOME/TMPDIR, reusable across runs

export interface Sandbox {
  readonly root: string
  /** HOME: settings, sessions (`~/.claude/projects`), installed plugins and plugin data live here. */
  readonly home: string
  /** TMPDIR, CLAUDE_CODE_TMPDIR and XDG_RUNTIME_DIR. */
  readonly tmp: string
  /** Removes the whole sandbox. */
  readonly cleanup: () => Promise<void>
}

/** A fresh isolated home. Share one between runs to `--resume` a session or use installed plugins. */
export const createSandbox = (): Sandbox => {
  const root = mkdtempSync(join(tmpdir(), "ralph-mem-e2e-"))
  const home = join(root, "home")
  const tmp = join(root, "tmp")
  mkdirSync(home)
  mkdirSync(tmp)
  // Waits for a detached process the session started (ralph-mem's maintenance after SessionEnd), which may
  // still be writing its compile cache under the sandbox's TMPDIR.
  return { root, home, tmp, cleanup: () => removeWhenSettled(root) }
}

/** Parent variables worth keeping; everything else (notably ANTHROPIC_*, CLAUDE_*, NODE_OPTIONS) is dropped. */
/**
 * XDG_STATE_HOME is the test run's (global-setup.ts): the machine's record of the memories its user made, shared
 * with the CLI a test seeds a memory with.
 */
const INHERITED = ["LANG", "LC_ALL", "LC_CTYPE", "TZ", "SHELL", "USER", "LOGNAME", "XDG_STATE_HOME"] as const

/** Where nothing listens: keeps a run that has no mock from ever reaching a real API. */
const NO_API_URL = "http://127.0.0.1:9"

/** The environment of every claude process: inherited basics, then isolation, then `extra` (wins). */
export const isolatedEnv = (
  sandbox: Sandbox,
  apiUrl: string = NO_API_URL,
  extra: Readonly<Record<string, string>> = {}
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const key of INHERITED) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  // Hooks run `node ...`: put the Node running the tests first so they never pick an older system Node.
  env["PATH"] = [dirname(process.execPath), process.env["PATH"] ?? ""].filter((p) => p !== "").join(delimiter)
  return {
    ...env,
    HOME: sandbox.home,
    TMPDIR: sandbox.tmp,
    CLAUDE_CODE_TMPDIR: sandbox.tmp,
    XDG_RUNTIME_DIR: sandbox.tmp,
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: "test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    // These machines run as root, where --dangerously-skip-permissions otherwise exits 1.
    IS_SANDBOX: "1",
    ...extra
  }
}

// ---------------------------------------------------------------------------------------------------------
// Processes

export interface ProcessResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly durationMs: number
  readonly stdout: string
  readonly stderr: string
}

interface SpawnOptions {
  readonly cwd: string
  readonly env: Record<string, string>
  readonly timeoutMs: number
}

/** Runs a process to completion; on timeout kills its whole process group (claude and any hook it started). */
const runProcess = (bin: string, args: ReadonlyArray<string>, options: SpawnOptions): Promise<ProcessResult> =>
  new Promise((resolvePromise, reject) => {
    const started = performance.now()
    // stdin is /dev/null: with a pipe, `claude -p` may wait for more prompt on stdin.
    const child = spawn(bin, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    let stdout = ""
    let stderr = ""
    let timedOut = false
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      timedOut = true
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL")
        } catch {
          child.kill("SIGKILL")
        }
      }
    }, options.timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ code, signal, timedOut, durationMs: Math.round(performance.now() - started), stdout, stderr })
    })
  })

// ---------------------------------------------------------------------------------------------------------
// Stream-json events

/** One line of `--output-format stream-json`. Fields beyond `type` vary by version: read them leniently. */
export interface StreamEvent {
  readonly type: string
  readonly subtype?: string
  readonly session_id?: string
  readonly [key: string]: unknown
}

/** `system` events emitted by `--include-hook-events`: one `hook_started` and one `hook_response` per hook. */
export interface HookStreamEvent extends StreamEvent {
  readonly type: "system"
  readonly subtype: "hook_started" | "hook_response"
  readonly hook_id: string
  /** e.g. `SessionStart:startup`, `PostToolUse:Bash`, `Stop`. */
  readonly hook_name: string
  readonly hook_event: string
  /** Only on `hook_response`. */
  readonly stdout?: string
  readonly stderr?: string
  readonly exit_code?: number
  readonly outcome?: string
}

export const isHookEvent = (event: StreamEvent): event is HookStreamEvent =>
  event.type === "system" && (event.subtype === "hook_started" || event.subtype === "hook_response") &&
  typeof event["hook_event"] === "string"

const parseEvents = (stdout: string): { events: Array<StreamEvent>; unparsed: Array<string> } => {
  const events: Array<StreamEvent> = []
  const unparsed: Array<string> = []
  for (const line of stdout.split("\n")) {
    if (line.trim() === "") continue
    try {
      const value: unknown = JSON.parse(line)
      if (typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string") {
        events.push(value as StreamEvent)
      } else unparsed.push(line)
    } catch {
      unparsed.push(line)
    }
  }
  return { events, unparsed }
}

// ---------------------------------------------------------------------------------------------------------
// Running claude -p

export interface RunClaudeOptions {
  readonly prompt: string
  /** The project directory (the session's cwd). */
  readonly cwd: string
  /** Only `url` is used, so a test may also pass `{ url }` of any server. */
  readonly mock: { readonly url: string }
  /** Passed as `--plugin-dir` (made absolute; a relative one is silently ignored by the CLI). */
  readonly pluginDir?: string
  /** Extra environment for claude and its hooks; overrides the isolation defaults. */
  readonly env?: Readonly<Record<string, string>>
  readonly maxTurns?: number
  readonly extraArgs?: ReadonlyArray<string>
  /** Session id to `--resume` (needs the same `sandbox` as the run that created it). */
  readonly resume?: string
  /** Reuse an isolated home; by default a fresh one is created and removed after the run. */
  readonly sandbox?: Sandbox
  readonly timeoutMs?: number
  /** Defaults to `requireClaudeBinary()`. */
  readonly bin?: string
}

export interface ClaudeRun extends ProcessResult {
  readonly args: ReadonlyArray<string>
  /** Every parsed stream-json line, in order. Hook events of SessionStart/UserPromptSubmit come BEFORE `init`. */
  readonly events: ReadonlyArray<StreamEvent>
  /** stdout lines that were not JSON objects (should stay empty). */
  readonly unparsedLines: ReadonlyArray<string>
  readonly init: StreamEvent | undefined
  /** The final `result` event (`result`, `is_error`, `num_turns`, `stop_reason`, ...). */
  readonly result: StreamEvent | undefined
  readonly sessionId: string | undefined
  /** `init.plugin_errors`; the key is absent when there is none, then this is `[]`. */
  readonly pluginErrors: ReadonlyArray<unknown>
  readonly hookEvents: ReadonlyArray<HookStreamEvent>
}

/** Spawns `claude -p` headless with stream-json output and hook events, against `options.mock`. */
export const runClaude = async (options: RunClaudeOptions): Promise<ClaudeRun> => {
  const bin = options.bin ?? requireClaudeBinary()
  const args = claudeArgs(options)
  const sandbox = options.sandbox ?? createSandbox()
  try {
    const processResult = await runProcess(bin, args, {
      cwd: options.cwd,
      env: isolatedEnv(sandbox, options.mock.url, options.env),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    })
    return toClaudeRun(args, processResult)
  } finally {
    if (options.sandbox === undefined) await sandbox.cleanup()
  }
}

const claudeArgs = (options: RunClaudeOptions): Array<string> => {
  const args = [
    "-p",
    options.prompt,
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-hook-events",
    "--dangerously-skip-permissions"
  ]
  if (options.pluginDir !== undefined) {
    args.push("--plugin-dir", isAbsolute(options.pluginDir) ? options.pluginDir : resolve(options.pluginDir))
  }
  if (options.maxTurns !== undefined) args.push("--max-turns", String(options.maxTurns))
  if (options.resume !== undefined) args.push("--resume", options.resume)
  if (options.extraArgs !== undefined) args.push(...options.extraArgs)
  return args
}

const toClaudeRun = (args: ReadonlyArray<string>, processResult: ProcessResult): ClaudeRun => {
  const { events, unparsed } = parseEvents(processResult.stdout)
  const init = events.find((e) => e.type === "system" && e.subtype === "init")
  const result = events.findLast((e) => e.type === "result")
  const pluginErrors = init?.["plugin_errors"]
  return {
    ...processResult,
    args,
    events,
    unparsedLines: unparsed,
    init,
    result,
    sessionId: init?.session_id ?? result?.session_id,
    pluginErrors: Array.isArray(pluginErrors) ? pluginErrors : [],
    hookEvents: events.filter(isHookEvent)
  }
}

/** The `hook_response` events of one hook event name (e.g. "Stop"), in order. */
export const hookResponses = (run: ClaudeRun, hookEvent: string): Array<HookStreamEvent> =>
  run.hookEvents.filter((e) => e.subtype === "hook_response" && e.hook_event === hookEvent)

/** One-line summary for assertion messages: exit code, timeout, stderr and the result text. */
export const describeRun = (run: ProcessResult & { readonly result?: StreamEvent | undefined }): string =>
  `exit=${String(run.code)} signal=${String(run.signal)} timedOut=${String(run.timedOut)} ${run.durationMs}ms ` +
  `result=${JSON.stringify(run.result?.["result"])} stderr=${JSON.stringify(run.stderr.slice(0, 2000))}`

// ---------------------------------------------------------------------------------------------------------
// `claude plugin ...` subcommands (offline; they never call the API)

export interface PluginCommandOptions {
  readonly sandbox: Sandbox
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
  readonly bin?: string
}

/** Runs any `claude <args>` in the sandbox's isolated environment, with no API reachable. */
export const runClaudeCommand = (args: ReadonlyArray<string>, options: PluginCommandOptions): Promise<ProcessResult> =>
  runProcess(options.bin ?? requireClaudeBinary(), args, {
    cwd: options.cwd ?? options.sandbox.root,
    env: isolatedEnv(options.sandbox, NO_API_URL, options.env),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  })

/** `claude plugin validate [--strict] <dir>`. Exit 0 means valid. */
export const validatePlugin = (
  dir: string,
  options: Omit<PluginCommandOptions, "sandbox"> & { readonly sandbox?: Sandbox; readonly strict?: boolean } = {}
): Promise<ProcessResult> => {
  const sandbox = options.sandbox ?? createSandbox()
  const args = ["plugin", "validate", ...(options.strict === false ? [] : ["--strict"]), resolve(dir)]
  return runClaudeCommand(args, { ...options, sandbox }).finally(async () => {
    if (options.sandbox === undefined) await sandbox.cleanup()
  })
}

/**
 * Installs `<plugin>@<marketplace>` from a local marketplace directory into the sandbox's HOME, so later
 * `runClaude({ sandbox })` calls load it without `--plugin-dir`. Throws with the CLI's output on failure.
 */
export const installPluginFromMarketplace = async (
  options: PluginCommandOptions & {
    readonly marketplaceDir: string
    readonly plugin: string
    readonly marketplace: string
  }
): Promise<void> => {
  const add = await runClaudeCommand(["plugin", "marketplace", "add", resolve(options.marketplaceDir)], options)
  if (add.code !== 0) throw new Error(`claude plugin marketplace add failed: ${describeRun(add)} stdout=${add.stdout}`)
  const install = await runClaudeCommand(["plugin", "install", `${options.plugin}@${options.marketplace}`], options)
  if (install.code !== 0) {
    throw new Error(`claude plugin install failed: ${describeRun(install)} stdout=${install.stdout}`)
  }
}
