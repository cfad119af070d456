/**
 * A throwaway Claude Code plugin that records every hook call, generated into a temp dir.
 *
 * Each hook runs `node "${CLAUDE_PLUGIN_ROOT}/hooks/record.mjs" <Event>`; the script appends its stdin JSON
 * as one line to `hooksLog` and a few hook environment variables to `envLog`. It can also inject
 * SessionStart context and block Stop a given number of times. The plugin directory doubles as a
 * one-plugin local marketplace (`source: "./"`), so it can be installed as well as passed via --plugin-dir.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** Events every supported CLI version knows (2.1.112 drops ALL of a plugin's hooks on one unknown name). */
export const RECORDED_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "SessionEnd"
] as const

export type RecordedEvent = (typeof RECORDED_EVENTS)[number]

export interface RecordingPluginOptions {
  /** Plugin name, also used as marketplace name `<name>-marketplace`. Default "e2e-recorder". */
  readonly name?: string
  readonly events?: ReadonlyArray<RecordedEvent>
  /** Printed as SessionStart `additionalContext`. */
  readonly sessionStartContext?: string
  /** The Stop hook blocks once per entry, with that entry as reason, then lets Claude stop. */
  readonly stopBlockReasons?: ReadonlyArray<string>
}

/** A hook's stdin payload. Common fields are typed; everything else stays `unknown` (fields keep being added). */
export interface HookPayload {
  readonly session_id: string
  readonly transcript_path: string
  readonly cwd: string
  readonly hook_event_name: string
  readonly [key: string]: unknown
}

/** What the script saw in its environment. */
export interface HookEnvRecord {
  readonly event: string
  readonly cwd: string
  readonly CLAUDE_PLUGIN_ROOT?: string
  readonly CLAUDE_PLUGIN_DATA?: string
  readonly CLAUDE_PROJECT_DIR?: string
  readonly CLAUDE_CODE_SESSION_ID?: string
}

export interface RecordingPlugin {
  readonly name: string
  readonly marketplace: string
  /** The plugin (and marketplace) root. */
  readonly dir: string
  readonly hooksLog: string
  readonly envLog: string
  /** All recorded payloads so far, in call order. */
  readonly payloads: () => Array<HookPayload>
  readonly payloadsFor: (event: RecordedEvent) => Array<HookPayload>
  readonly envRecords: () => Array<HookEnvRecord>
}

/** Writes the plugin into `<root>/<name>` and its logs into `<root>/<name>-state/`. */
export const createRecordingPlugin = (root: string, options: RecordingPluginOptions = {}): RecordingPlugin => {
  const name = options.name ?? "e2e-recorder"
  const marketplace = `${name}-marketplace`
  const dir = join(root, name)
  const state = join(root, `${name}-state`)
  mkdirSync(join(dir, ".claude-plugin"), { recursive: true })
  mkdirSync(join(dir, "hooks"), { recursive: true })
  mkdirSync(state, { recursive: true })
  const hooksLog = join(state, "hooks.jsonl")
  const envLog = join(state, "env.jsonl")

  const author = { name: "ralph-mem e2e" }
  writeJson(join(dir, ".claude-plugin", "plugin.json"), {
    name,
    version: "0.0.1",
    description: "Records hook calls for e2e tests",
    author
  })
  writeJson(join(dir, ".claude-plugin", "marketplace.json"), {
    name: marketplace,
    owner: author,
    // Without a description `validate --strict` fails on the marketplace manifest (a warning made an error).
    metadata: { description: "Local marketplace for e2e tests" },
    plugins: [{ name, source: "./", description: "Records hook calls for e2e tests" }]
  })
  const events = options.events ?? RECORDED_EVENTS
  writeJson(join(dir, "hooks", "hooks.json"), {
    hooks: Object.fromEntries(
      events.map((
        event
      ) => [event, [{
        hooks: [{ type: "command", command: `node "\${CLAUDE_PLUGIN_ROOT}/hooks/record.mjs" ${event}` }]
      }]])
    )
  })
  // Absolute paths: an installed copy of the plugin (in the plugin cache) still writes to the same logs.
  writeJson(join(dir, "hooks", "config.json"), {
    hooksLog,
    envLog,
    stopCounter: join(state, "stop-blocks"),
    sessionStartContext: options.sessionStartContext ?? null,
    stopBlockReasons: options.stopBlockReasons ?? []
  })
  writeFileSync(join(dir, "hooks", "record.mjs"), RECORD_SCRIPT)

  const payloads = (): Array<HookPayload> => readJsonLines<HookPayload>(hooksLog)
  return {
    name,
    marketplace,
    dir,
    hooksLog,
    envLog,
    payloads,
    payloadsFor: (event) => payloads().filter((p) => p.hook_event_name === event),
    envRecords: () => readJsonLines<HookEnvRecord>(envLog)
  }
}

const writeJson = (path: string, value: unknown): void => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)

const readJsonLines = <A>(path: string): Array<A> =>
  existsSync(path)
    ? readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as A)
    : []

/** Plain JS so it runs on any Node; logs go to files, never stdout (stdout is hook output). */
const RECORD_SCRIPT = `import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const event = process.argv[2] ?? "unknown"
const config = JSON.parse(readFileSync(fileURLToPath(new URL("./config.json", import.meta.url)), "utf8"))
const raw = readFileSync(0, "utf8")
let payload
try { payload = JSON.parse(raw) } catch { payload = { hook_event_name: event, unparsable: raw } }
appendFileSync(config.hooksLog, JSON.stringify(payload) + "\\n")
const env = process.env
appendFileSync(config.envLog, JSON.stringify({
  event, cwd: process.cwd(),
  CLAUDE_PLUGIN_ROOT: env.CLAUDE_PLUGIN_ROOT, CLAUDE_PLUGIN_DATA: env.CLAUDE_PLUGIN_DATA,
  CLAUDE_PROJECT_DIR: env.CLAUDE_PROJECT_DIR, CLAUDE_CODE_SESSION_ID: env.CLAUDE_CODE_SESSION_ID
}) + "\\n")

if (event === "SessionStart" && config.sessionStartContext !== null) {
  process.stdout.write(JSON.stringify({
    hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: config.sessionStartContext }
  }))
}
if (event === "Stop") {
  const done = existsSync(config.stopCounter) ? Number(readFileSync(config.stopCounter, "utf8")) : 0
  const reason = config.stopBlockReasons[done]
  if (reason !== undefined) {
    writeFileSync(config.stopCounter, String(done + 1))
    process.stdout.write(JSON.stringify({ decision: "block", reason }))
  }
}
`
