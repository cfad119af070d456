/**
 * Summaries v2 with the real Claude Code CLI: a session that only ran `/ralph-mem:mem-status` is marked
 * memory-only (the command never becomes what was asked), and a session of real work is summarised with
 * its prompt and Claude's reply, whatever the slash command's expansion looked like to the hooks.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { execFileSync } from "node:child_process"
import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeWhenSettled } from "../support/remove.ts"
import {
  createSandbox,
  describeRun,
  findClaudeBinary,
  MISSING_CLAUDE_MESSAGE,
  runClaude,
  type Sandbox
} from "./claude.ts"
import { startMockAnthropic } from "./mock-anthropic.ts"

const claudeBin = findClaudeBinary()
const suiteName = claudeBin === undefined
  ? `summaries end to end (skipped: ${MISSING_CLAUDE_MESSAGE})`
  : "summaries end to end"
const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const SCENARIO_TIMEOUT_MS = 600_000

const cleanups: Array<() => void | Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const session = async (project: string, sandbox: Sandbox, prompt: string, reply: string) => {
  const mock = await startMockAnthropic({ script: [reply] })
  cleanups.push(() => mock.close())
  const run = await runClaude({
    prompt,
    cwd: project,
    mock,
    maxTurns: 5,
    timeoutMs: 120_000,
    pluginDir: REPO_ROOT,
    sandbox
  })
  expect(run.code, describeRun(run)).toBe(0)
  if (run.sessionId === undefined) throw new Error(`no session id: ${describeRun(run)}`)
  return run.sessionId
}

/** SessionEnd runs after the stream ends: wait for its row rather than for a time. */
const sessionRow = async (project: string, sessionId: string) => {
  for (let attempt = 0; attempt < 600; attempt++) {
    const db = newSqliteDatabase(join(project, ".ralph-mem", "memory.db"), { readonly: true })
    try {
      const row = db.prepare(
        `SELECT summary, memory_only AS memoryOnly, ended_at AS endedAt FROM sessions WHERE session_id = ?`
      )
        .get(sessionId) as { summary: string | null; memoryOnly: number; endedAt: number | null } | undefined
      if (row?.endedAt !== undefined && row.endedAt !== null) return row
    } finally {
      db.close()
    }
    await new Promise((done) => setTimeout(done, 100))
  }
  throw new Error(`session ${sessionId} never ended`)
}

describe.skipIf(claudeBin === undefined)(suiteName, () => {
  let project: string
  let memoryOnly: string
  let worked: string

  beforeAll(async () => {
    project = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-e2e-summaries-")))
    cleanups.push(() => removeWhenSettled(project))
    execFileSync("git", ["init", "-q", project])
    const sandbox = createSandbox()
    cleanups.push(() => sandbox.cleanup())
    memoryOnly = await session(project, sandbox, "/ralph-mem:mem-status", "Memory is empty so far.")
    worked = await session(project, sandbox, "Explain what the heron module does", "The heron module parses bird logs.")
  }, SCENARIO_TIMEOUT_MS)

  it("marks a session that only ran a memory command, without taking the command for what was asked", async () => {
    expect(await sessionRow(project, memoryOnly)).toMatchObject({
      summary: "Only ran ralph-mem's memory commands.",
      memoryOnly: 1
    })
  })

  it("summarises a session of work with what was asked and how it ended", async () => {
    expect(await sessionRow(project, worked)).toMatchObject({
      summary: "Asked: Explain what the heron module does. Outcome: The heron module parses bird logs.",
      memoryOnly: 0
    })
  })
})
