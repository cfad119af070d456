/**
 * Feeds a scenario through the real hook entry (dist/hook.mjs, one process per hook, as Claude Code runs
 * it) into a fresh project, then measures what each system would inject into the later session:
 *   ralph-mem   the SessionStart and UserPromptSubmit injections, as the hooks print them;
 *   newest-50   the 50 newest observations of the project, one line each (what count-based memory
 *               plugins inject; 50 is the leading plugin's default);
 *   no memory   nothing.
 * An expected item counts as brought when its distinctive string is in the injected text (ignoring case).
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { estimateTokens, relativeText } from "@ralph-mem/projections"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { removeWhenSettled } from "../../tests/support/remove.ts"
import { lookAround, unrelatedSessions } from "./routine.ts"
import type { PastSession, Scenario, Step } from "./scenario.ts"

const DIST = join(import.meta.dirname, "..", "..", "dist")
const HOOK = join(DIST, "hook.mjs")
const CLI = join(DIST, "ralph-mem.mjs")

export const SYSTEMS = ["ralph-mem", "newest-50", "no memory"] as const
export type System = (typeof SYSTEMS)[number]

export interface Measure {
  /** Expected items whose string is in the injected text. */
  readonly found: ReadonlyArray<string>
  readonly missed: ReadonlyArray<string>
  readonly recall: number
  /** Of the injected lines (headings left out), the share that holds an expected item's string. */
  readonly precision: number
  readonly tokens: number
  /** Whether the user's home folder shows anywhere in the injected text. */
  readonly homeShown: boolean
}

export interface ScenarioResult {
  readonly id: string
  readonly language: Scenario["language"]
  readonly observations: number
  readonly systems: Record<System, Measure>
  /** The injected texts, for reading what a system said. */
  readonly texts: Record<System, string>
}

interface Place {
  readonly home: string
  readonly project: string
  readonly env: Record<string, string>
}

const spawn = (args: ReadonlyArray<string>, input: string, place: Place) => {
  const result = spawnSync(process.execPath, args, {
    cwd: place.project,
    input,
    env: place.env,
    encoding: "utf8",
    maxBuffer: 64 << 20
  })
  if (result.status !== 0 || result.stderr !== "") {
    throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  }
  return result.stdout
}

let toolUses = 0

const hook = (place: Place, event: string, sessionId: string, fields: Record<string, unknown>): string =>
  spawn(
    [HOOK, event],
    JSON.stringify({
      session_id: sessionId,
      transcript_path: join(place.home, ".claude", "projects", `${sessionId}.jsonl`),
      cwd: place.project,
      hook_event_name: event,
      ...fields
    }),
    place
  )

const absolute = (place: Place, file: string) => join(place.project, file)

const recordStep = (place: Place, sessionId: string, step: Step) => {
  const tool_use_id = `toolu_${String(++toolUses).padStart(6, "0")}`
  switch (step.kind) {
    case "note":
      spawn([CLI, "inject", step.text], "", place)
      return
    case "read":
      hook(place, "PostToolUse", sessionId, {
        tool_name: "Read",
        tool_input: { file_path: absolute(place, step.file) },
        tool_response: { type: "text", file: { filePath: absolute(place, step.file), numLines: step.lines } },
        tool_use_id
      })
      return
    case "grep":
      hook(place, "PostToolUse", sessionId, {
        tool_name: "Grep",
        tool_input: { pattern: step.pattern, path: place.project },
        tool_response: {
          mode: "files_with_matches",
          filenames: step.found.map((f) => absolute(place, f)),
          numFiles: step.found.length
        },
        tool_use_id
      })
      return
    case "run":
      hook(place, "PostToolUse", sessionId, {
        tool_name: "Bash",
        tool_input: { command: step.command },
        tool_response: { stdout: step.output, stderr: "", interrupted: false },
        tool_use_id
      })
      return
    case "fail":
      hook(place, "PostToolUseFailure", sessionId, {
        tool_name: "Bash",
        tool_input: { command: step.command },
        error: `Exit code 1\n${step.output}`,
        is_interrupt: false,
        tool_use_id
      })
      return
    case "edit":
      hook(place, "PostToolUse", sessionId, {
        tool_name: "Edit",
        tool_input: { file_path: absolute(place, step.file), old_string: step.before, new_string: step.after },
        tool_response: { filePath: absolute(place, step.file) },
        tool_use_id
      })
      return
    case "write":
      hook(place, "PostToolUse", sessionId, {
        tool_name: "Write",
        tool_input: { file_path: absolute(place, step.file), content: step.content },
        tool_response: { type: "create", filePath: absolute(place, step.file) },
        tool_use_id
      })
      return
  }
}

const recordSession = (place: Place, sessionId: string, past: PastSession) => {
  hook(place, "SessionStart", sessionId, { source: "startup" })
  const [first, ...more] = past.prompts
  if (first !== undefined) hook(place, "UserPromptSubmit", sessionId, { prompt: first })
  for (const step of past.steps) recordStep(place, sessionId, step)
  for (const prompt of more) hook(place, "UserPromptSubmit", sessionId, { prompt })
  hook(place, "Stop", sessionId, { stop_hook_active: false, last_assistant_message: past.reply })
  hook(place, "SessionEnd", sessionId, { reason: "prompt_input_exit" })
}

const contextOf = (stdout: string) =>
  stdout.trim() === ""
    ? ""
    : String(
      (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext
    )

interface ObservationRow {
  readonly type: string
  readonly toolName: string | null
  readonly inputSummary: string | null
  readonly content: string
  readonly errorMessage: string | null
}

/**
 * The newest-N baseline: one line an observation, its kind, tool, input and the start of its output, with
 * paths made relative as ralph-mem's are (so the baseline is not charged for long paths).
 */
export const newestObservations = (databasePath: string, place: Place, n: number): string => {
  const db = newSqliteDatabase(databasePath, { readonly: true })
  try {
    const rows = db
      .prepare(
        `SELECT type, tool_name AS toolName, input_summary AS inputSummary, content, error_message AS errorMessage
         FROM observations WHERE project_path = ? ORDER BY id DESC LIMIT ?`
      )
      .all(place.project, n) as Array<ObservationRow>
    const line = (o: ObservationRow) => {
      const body =
        (o.errorMessage !== null && !o.content.includes(o.errorMessage) ? `${o.errorMessage}: ${o.content}` : o.content)
          .replace(/\s+/g, " ")
          .trim()
      const head = [o.toolName, o.inputSummary].filter(Boolean).join(" ")
      const text = relativeText(`- [${o.type}] ${head === "" ? "" : `${head}: `}${body}`, {
        project: place.project,
        home: place.home
      })
      return text.length > 240 ? `${text.slice(0, 239)}…` : text
    }
    const text = rows.reverse().map(line).join("\n")
    return text === "" ? "" : `# Recent observations\n${text}`
  } finally {
    db.close()
  }
}

const measure = (text: string, scenario: Scenario, place: Place): Measure => {
  const lower = text.toLowerCase()
  const found = scenario.expected.filter((e) => lower.includes(e.match.toLowerCase())).map((e) => e.match)
  const missed = scenario.expected.filter((e) => !lower.includes(e.match.toLowerCase())).map((e) => e.match)
  const lines = text.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"))
  const relevant = lines.filter((l) => scenario.expected.some((e) => l.toLowerCase().includes(e.match.toLowerCase())))
  return {
    found,
    missed,
    recall: found.length / scenario.expected.length,
    precision: lines.length === 0 ? 0 : relevant.length / lines.length,
    tokens: text === "" ? 0 : estimateTokens(text),
    homeShown: text.includes(place.home)
  }
}

/** Every expected string must be somewhere in what the past sessions recorded: otherwise no memory could bring it. */
const assertAnswerable = (databasePath: string, scenario: Scenario) => {
  const db = newSqliteDatabase(databasePath, { readonly: true })
  try {
    const all = (db.prepare(`SELECT group_concat(payload, char(10)) FROM events`).pluck().get() as string).toLowerCase()
    for (const item of scenario.expected) {
      if (!all.includes(JSON.stringify(item.match.toLowerCase()).slice(1, -1))) {
        throw new Error(`${scenario.id}: "${item.match}" (${item.what}) is nowhere in the recorded past`)
      }
    }
  } finally {
    db.close()
  }
}

/** The memory folder is removed once the maintenance each SessionEnd starts (detached) has exited. */
export const runScenario = async (scenario: Scenario): Promise<ScenarioResult> => {
  const root = mkdtempSync(join(tmpdir(), "ralph-mem-recall-"))
  try {
    const home = join(root, "home", "dev")
    const project = join(home, "work", scenario.id)
    mkdirSync(join(project, ".git"), { recursive: true })
    const place: Place = {
      home,
      project,
      env: { PATH: process.env["PATH"] ?? "", HOME: home, TMPDIR: root, NO_COLOR: "1" }
    }
    const sessions = [
      ...scenario.past.map((past, i) => ({ ...past, steps: [...lookAround(scenario, `past-${i}`, 4), ...past.steps] })),
      ...unrelatedSessions(scenario, scenario.laterSessions ?? 3)
    ]
    sessions.forEach((past, i) => recordSession(place, `${scenario.id}-past-${i + 1}`, past))
    const databasePath = join(project, ".ralph-mem", "memory.db")
    assertAnswerable(databasePath, scenario)

    const later = `${scenario.id}-later`
    const start = contextOf(hook(place, "SessionStart", later, { source: "startup" }))
    const prompt = contextOf(hook(place, "UserPromptSubmit", later, { prompt: scenario.next }))
    const texts: Record<System, string> = {
      "ralph-mem": [start, prompt].filter((t) => t !== "").join("\n\n"),
      "newest-50": newestObservations(databasePath, place, 50),
      "no memory": ""
    }
    const db = newSqliteDatabase(databasePath, { readonly: true })
    const observations = db.prepare(`SELECT count(*) FROM observation_rows`).pluck().get() as number
    db.close()
    return {
      id: scenario.id,
      language: scenario.language,
      observations,
      texts,
      systems: {
        "ralph-mem": measure(texts["ralph-mem"], scenario, place),
        "newest-50": measure(texts["newest-50"], scenario, place),
        "no memory": measure(texts["no memory"], scenario, place)
      }
    }
  } finally {
    await removeWhenSettled(root)
  }
}

export interface Totals {
  readonly scenarios: number
  /** Mean over scenarios. */
  readonly recall: number
  readonly precision: number
  readonly tokens: number
  /** Scenarios whose injected text shows the home folder. */
  readonly homeShown: number
}

export const totals = (
  results: ReadonlyArray<ScenarioResult>,
  system: System,
  language?: Scenario["language"]
): Totals => {
  const chosen = results.filter((r) => language === undefined || r.language === language)
  const mean = (f: (m: Measure) => number) =>
    chosen.length === 0
      ? 0
      : Math.round((chosen.reduce((sum, r) => sum + f(r.systems[system]), 0) / chosen.length) * 1000) / 1000
  return {
    scenarios: chosen.length,
    recall: mean((m) => m.recall),
    precision: mean((m) => m.precision),
    tokens: Math.round(mean((m) => m.tokens)),
    homeShown: chosen.filter((r) => r.systems[system].homeShown).length
  }
}
