/**
 * Working memory end to end: the real Claude Code CLI with this repository as its plugin, against a mock
 * Messages API. In a first session the user records a belief with `/ralph-mem:belief` (the slash command's
 * shell step runs the CLI) and the model records a task, its plan and a handoff note by running the CLI
 * through its Bash tool. Resumed, the session's SessionStart hook tells the model where it stopped: the
 * request body carries the belief and the handoff note. A fresh session is told the belief, not the brief.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeWhenSettled } from "../support/remove.ts"
import {
  type ClaudeRun,
  createSandbox,
  describeRun,
  findClaudeBinary,
  hookResponses,
  MISSING_CLAUDE_MESSAGE,
  runClaude,
  type Sandbox
} from "./claude.ts"
import { bodyContains, type MockAnthropic, type Reply, startMockAnthropic } from "./mock-anthropic.ts"

const claudeBin = findClaudeBinary()
if (claudeBin === undefined) console.warn(`tests/e2e/working skipped: ${MISSING_CLAUDE_MESSAGE}`)
const suiteName = claudeBin === undefined
  ? `working memory end to end (skipped: ${MISSING_CLAUDE_MESSAGE})`
  : "working memory end to end"

const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const CLI = join(REPO_ROOT, "dist", "ralph-mem.mjs")
const RUN_TIMEOUT_MS = 120_000
const SCENARIO_TIMEOUT_MS = 600_000

const BELIEF = "TypeScript on Node 24 and vitest, marker PELICAN-STACK-41"
const HANDOFF = "refreshSession multiplies by 1000 twice; fix src/auth.ts then run the tests (OSPREY-HANDOFF-77)"
const MEMORY_HEADER = "# ralph-mem: what this project's memory holds"

const cleanups: Array<() => void | Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const session = async (
  options: { project: string; sandbox: Sandbox; prompt: string; replies: ReadonlyArray<Reply>; resume?: string }
) => {
  const mock: MockAnthropic = await startMockAnthropic({ script: options.replies })
  cleanups.push(() => mock.close())
  const run: ClaudeRun = await runClaude({
    prompt: options.prompt,
    cwd: options.project,
    mock,
    pluginDir: REPO_ROOT,
    sandbox: options.sandbox,
    maxTurns: 10,
    timeoutMs: RUN_TIMEOUT_MS,
    ...(options.resume === undefined ? {} : { resume: options.resume })
  })
  expect(run.code, describeRun(run)).toBe(0)
  expect(run.pluginErrors).toEqual([])
  expect(mock.scriptErrors).toEqual([])
  for (const response of hookResponses(run, "SessionStart")) expect(response.exit_code, response.stderr ?? "").toBe(0)
  return { run, mock }
}

/** The model's turn: one Bash call running the ralph-mem CLI in the project. */
const recordTask: Reply = {
  toolUses: [{
    name: "Bash",
    input: {
      command: [
        `node "${CLI}" task start "Fix the login timeout"`,
        `node "${CLI}" task plan "Reproduce the timeout" "Patch refreshSession()" "Run the tests"`,
        `node "${CLI}" task step 1 done`,
        `node "${CLI}" task step 2 in_progress`,
        `node "${CLI}" task handoff "${HANDOFF}"`
      ].join(" && "),
      description: "Record the task in ralph-mem"
    }
  }]
}

describe.skipIf(claudeBin === undefined)(suiteName, () => {
  let project: string
  let sandbox: Sandbox
  let first: Awaited<ReturnType<typeof session>>
  let resumed: Awaited<ReturnType<typeof session>>
  let fresh: Awaited<ReturnType<typeof session>>

  beforeAll(async () => {
    project = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-e2e-working-")))
    cleanups.push(() => removeWhenSettled(project))
    execFileSync("git", ["init", "-q", project])
    sandbox = createSandbox()
    cleanups.push(() => sandbox.cleanup())
    first = await session({
      project,
      sandbox,
      prompt: `/ralph-mem:belief set stack ${BELIEF}`,
      replies: [recordTask, "Recorded the belief and the task."]
    })
    const sessionId = first.run.sessionId
    if (sessionId === undefined) throw new Error(`no session id: ${describeRun(first.run)}`)
    resumed = await session({
      project,
      sandbox,
      prompt: "Where was I?",
      replies: ["You were patching refreshSession()."],
      resume: sessionId
    })
    fresh = await session({ project, sandbox, prompt: "What is this project's stack?", replies: ["TypeScript."] })
  }, SCENARIO_TIMEOUT_MS)

  it("records the belief through the slash command and the task through the model's Bash call", () => {
    const cli = (...args: Array<string>) =>
      JSON.parse(
        execFileSync(process.execPath, [CLI, ...args, "--json"], {
          cwd: project,
          encoding: "utf8",
          env: { ...process.env, RALPH_MEM_DB: "" }
        })
      )
    expect(cli("belief", "list")).toEqual([expect.objectContaining({ key: "stack", value: BELIEF })])
    expect(cli("task", "show")).toMatchObject({
      taskId: "fix-the-login-timeout",
      currentStep: { step: 2, text: "Patch refreshSession()", status: "in_progress" },
      handoff: { note: HANDOFF }
    })
    // The slash command's output reached the model; the Bash call's result did too.
    expect(bodyContains(first.mock.mainRequests()[0]?.body, `stack: ${BELIEF}`)).toBe(true)
    expect(bodyContains(first.mock.mainRequests()[1]?.body, "handoff note saved")).toBe(true)
  })

  it("tells the resumed session where it stopped: the task, its step, the handoff note, and the belief", () => {
    expect(resumed.run.sessionId).toBe(first.run.sessionId)
    const [request] = resumed.mock.mainRequests()
    expect(bodyContains(request?.body, "## Where the last session stopped")).toBe(true)
    expect(
      bodyContains(
        request?.body,
        "- task `fix-the-login-timeout`: Fix the login timeout; step 2 of 3, in progress: Patch refreshSession()"
      )
    ).toBe(true)
    expect(bodyContains(request?.body, HANDOFF)).toBe(true)
    expect(bodyContains(request?.body, `- stack: ${BELIEF}`)).toBe(true)
  })

  it("tells a fresh session the belief, without the resume brief", () => {
    const [request] = fresh.mock.mainRequests()
    expect(bodyContains(request?.body, MEMORY_HEADER)).toBe(true)
    expect(bodyContains(request?.body, `- stack: ${BELIEF}`)).toBe(true)
    expect(bodyContains(request?.body, "## Where the last session stopped")).toBe(false)
  })
})
