/**
 * Smoke test of the e2e harness: the real Claude Code CLI, a throwaway recording plugin, the mock API.
 * Proves hooks fire with the documented payloads, context injection reaches the model, tool failures
 * fire PostToolUseFailure, and a Stop block re-feeds Claude. Skipped only when no claude binary exists.
 */
import { mkdirSync, mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeWhenSettled } from "../support/remove.ts"
import {
  type ClaudeRun,
  createSandbox,
  describeRun,
  findClaudeBinary,
  hookResponses,
  installPluginFromMarketplace,
  MISSING_CLAUDE_MESSAGE,
  runClaude,
  validatePlugin
} from "./claude.ts"
import { lastToolResults, type MockAnthropic, requestsContaining, startMockAnthropic } from "./mock-anthropic.ts"
import { createRecordingPlugin, type RecordingPlugin } from "./recording-plugin.ts"

const claudeBin = findClaudeBinary()
if (claudeBin === undefined) console.warn(`tests/e2e skipped: ${MISSING_CLAUDE_MESSAGE}`)
const suiteName = claudeBin === undefined ? `e2e harness (skipped: ${MISSING_CLAUDE_MESSAGE})` : "e2e harness"

const CONTEXT = "ZEBRA-CONTEXT-5c1e"
const STOP_REASON = "KEEP-GOING-7f3a: run the checks once more"
const PROMPT = "Say hello from the shell"

const roots: Array<string> = []
const mocks: Array<MockAnthropic> = []

/** A fresh root with a `project/` folder; removed after the suite. */
const workspace = (): { root: string; project: string } => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-e2e-ws-")))
  roots.push(root)
  const project = join(root, "project")
  mkdirSync(project)
  return { root, project }
}

const mockWith = async (...args: Parameters<typeof startMockAnthropic>): Promise<MockAnthropic> => {
  const mock = await startMockAnthropic(...args)
  mocks.push(mock)
  return mock
}

afterAll(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()))
  for (const root of roots.splice(0)) await removeWhenSettled(root)
})

describe.skipIf(claudeBin === undefined)(suiteName, () => {
  describe("one session: a tool call, a failing tool call, a blocked Stop", () => {
    let run: ClaudeRun
    let mock: MockAnthropic
    let plugin: RecordingPlugin
    let project: string

    beforeAll(async () => {
      const ws = workspace()
      project = ws.project
      plugin = createRecordingPlugin(ws.root, { sessionStartContext: CONTEXT, stopBlockReasons: [STOP_REASON] })
      mock = await mockWith({
        script: [
          { toolUses: [{ name: "Bash", input: { command: "echo hello", description: "Print hello" } }] },
          { toolUses: [{ name: "Bash", input: { command: "exit 3", description: "Fail on purpose" } }] },
          "First attempt finished",
          "Second attempt finished"
        ]
      })
      run = await runClaude({ prompt: PROMPT, cwd: project, pluginDir: plugin.dir, mock, maxTurns: 10 })
    })

    it("exits 0 with parseable stream-json, an init event and the final result", () => {
      expect(run.code, describeRun(run)).toBe(0)
      expect(run.unparsedLines).toEqual([])
      expect(run.init?.["claude_code_version"]).toEqual(expect.any(String))
      expect(run.pluginErrors).toEqual([])
      expect(run.init?.["plugins"]).toEqual(expect.arrayContaining([expect.objectContaining({ name: plugin.name })]))
      expect(run.result?.["result"]).toBe("Second attempt finished")
      expect(mock.scriptErrors).toEqual([])
      expect(mock.mainRequests()).toHaveLength(4)
    })

    it("fires every hook with the documented common fields and hook environment", () => {
      const payloads = plugin.payloads()
      expect(payloads.map((p) => p.hook_event_name)).toEqual([
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "Stop",
        "SessionEnd"
      ])
      for (const p of payloads) {
        expect(p.session_id).toBe(run.sessionId)
        expect(p.cwd).toBe(project)
        expect(p.transcript_path).toEqual(expect.stringContaining(run.sessionId ?? "<none>"))
      }
      expect(plugin.payloadsFor("SessionStart")[0]?.["source"]).toBe("startup")
      expect(plugin.payloadsFor("UserPromptSubmit")[0]?.["prompt"]).toBe(PROMPT)
      expect(plugin.payloadsFor("SessionEnd")[0]?.["reason"]).toEqual(expect.any(String))
      for (const env of plugin.envRecords()) {
        expect(env).toMatchObject({
          cwd: project,
          CLAUDE_PLUGIN_ROOT: plugin.dir,
          CLAUDE_PROJECT_DIR: project,
          CLAUDE_CODE_SESSION_ID: run.sessionId
        })
        expect(env.CLAUDE_PLUGIN_DATA).toEqual(expect.any(String))
      }
    })

    // SessionEnd runs after the `result` event, so it shows only in the hook log, not in the stream.
    it("reports each hook's response in the stream-json events", () => {
      for (const event of ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"]) {
        expect(hookResponses(run, event).map((e) => e.exit_code), event).toEqual([0])
      }
      expect(hookResponses(run, "Stop")).toHaveLength(2)
      expect(hookResponses(run, "Stop")[0]?.stdout).toContain(STOP_REASON)
    })

    it("passes PostToolUse the tool name, input and response", () => {
      const [post] = plugin.payloadsFor("PostToolUse")
      expect(post).toMatchObject({
        tool_name: "Bash",
        tool_input: { command: "echo hello" },
        tool_response: { stdout: "hello", interrupted: false },
        tool_use_id: expect.any(String)
      })
      expect(lastToolResults(mock.mainRequests()[1]!)).toEqual([
        expect.objectContaining({ isError: false, text: "hello" })
      ])
    })

    it("injects SessionStart additionalContext into the very next model request, and keeps it", () => {
      const main = mock.mainRequests()
      expect(requestsContaining(main, CONTEXT)).toEqual([0, 1, 2, 3])
    })

    it("fires PostToolUseFailure (not PostToolUse) for a failing Bash command", () => {
      const [failure] = plugin.payloadsFor("PostToolUseFailure")
      expect(failure).toMatchObject({ tool_name: "Bash", tool_input: { command: "exit 3" }, is_interrupt: false })
      expect(String(failure?.["error"])).toContain("3")
      expect(plugin.payloadsFor("PostToolUse")).toHaveLength(1)
      expect(lastToolResults(mock.mainRequests()[2]!)).toEqual([expect.objectContaining({ isError: true })])
    })

    it("continues after a Stop block: the reason reaches the model, the re-fed Stop has stop_hook_active", () => {
      const main = mock.mainRequests()
      expect(requestsContaining(main, STOP_REASON)).toEqual([3])
      expect(requestsContaining(main, "Stop hook feedback")).toEqual([3])
      const stops = plugin.payloadsFor("Stop")
      expect(stops.map((s) => s["stop_hook_active"])).toEqual([false, true])
      expect(stops.map((s) => s["last_assistant_message"])).toEqual([
        "First attempt finished",
        "Second attempt finished"
      ])
    })
  })

  it("validates the throwaway plugin with --strict", async () => {
    const plugin = createRecordingPlugin(workspace().root)
    const result = await validatePlugin(plugin.dir)
    expect(result.code, result.stdout + result.stderr).toBe(0)
  })

  it("installs from a local marketplace (hooks fire without --plugin-dir) and resumes the session", async () => {
    const { root, project } = workspace()
    const plugin = createRecordingPlugin(root, { name: "e2e-installed" })
    const sandbox = createSandbox()
    try {
      await installPluginFromMarketplace({
        sandbox,
        marketplaceDir: plugin.dir,
        plugin: plugin.name,
        marketplace: plugin.marketplace
      })
      const mock = await mockWith({ script: ["First reply", "Second reply"] })
      const first = await runClaude({ prompt: "remember PELICAN-88", cwd: project, mock, sandbox })
      expect(first.code, describeRun(first)).toBe(0)
      const second = await runClaude({
        prompt: "what did I say?",
        cwd: project,
        mock,
        sandbox,
        resume: first.sessionId ?? ""
      })
      expect(second.code, describeRun(second)).toBe(0)
      expect(second.result?.["result"]).toBe("Second reply")
      expect(plugin.payloadsFor("SessionStart").map((p) => p["source"])).toEqual(["startup", "resume"])
      // The resumed conversation carries the first prompt back to the model.
      expect(requestsContaining(mock.mainRequests(), "PELICAN-88")).toEqual([0, 1])
    } finally {
      await sandbox.cleanup()
    }
  })

  it("reports a wrong --plugin-dir only in init.plugin_errors", async () => {
    const { root, project } = workspace()
    const mock = await mockWith({ script: [] })
    const run = await runClaude({ prompt: "hi", cwd: project, mock, pluginDir: join(root, "missing-plugin") })
    expect(run.code, describeRun(run)).toBe(0)
    expect(run.pluginErrors).toEqual([expect.objectContaining({ type: "path-not-found" })])
  })
})
