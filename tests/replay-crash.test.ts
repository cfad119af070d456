/**
 * Replay under fire: the real `ralph-mem replay` process is killed with SIGKILL part-way through,
 * while another connection keeps reading. Readers must never see a half-built state, and after each
 * kill the database must verify clean with nothing lost.
 */
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import type { RalphMemEvent } from "@ralph-mem/events"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { open } from "../packages/projections/test/spec.ts"
import { verify } from "../packages/projections/src/index.ts"
import { CLI } from "./support/cli.ts"

const OBSERVATIONS = 30_000

const build = () => {
  const path = join(tempFolder(), "memory.db")
  const memory = open(path)
  for (let batch = 0; batch < OBSERVATIONS / 1000; batch++) {
    const events: Array<RalphMemEvent> = Array.from({ length: 1000 }, (_, i) => ({
      _tag: "ObservationRecorded",
      sessionId: `s${batch}`,
      kind: i % 5 === 0 ? "error" : "tool_use",
      toolName: "Bash",
      content: `step ${batch}.${i}: ran ParserError check on src/file-${i}.ts`,
      files: [`src/file-${i}.ts`]
    }))
    Effect.runSync(memory.log.append(`session:s${batch}`, events, { expectedVersion: "any", writer: "test" }))
  }
  memory.db.close()
  return path
}

const snapshot = (reader: Database.Database) =>
  reader.prepare("SELECT (SELECT count(*) FROM observations) AS observations, (SELECT count(*) FROM events) AS events").get() as {
    observations: number
    events: number
  }

describe("replay killed with SIGKILL", () => {
  it("never shows readers a half-built state and leaves a database that verifies clean", async () => {
    const path = build()
    // Time one full run, then kill at points spread over its second half (past start-up, before the end).
    const timed = Date.now()
    await new Promise((resolve) => spawn(process.execPath, [CLI, "replay", "--db", path], { stdio: "ignore" }).on("exit", resolve))
    const fullRunMs = Date.now() - timed
    const reader = new Database(path, { readonly: true })
    const seen = new Set<string>()
    let kills = 0
    for (const fraction of [0.5, 0.6, 0.7, 0.8, 0.9]) {
      const delayMs = fullRunMs * fraction
      const child = spawn(process.execPath, [CLI, "replay", "--db", path], { stdio: "ignore" })
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_, signal) => resolve(signal)))
      const started = Date.now()
      while (Date.now() - started < delayMs) {
        seen.add(JSON.stringify(snapshot(reader)))
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      child.kill("SIGKILL")
      if ((await exited) === "SIGKILL") kills++
      seen.add(JSON.stringify(snapshot(reader)))
    }
    reader.close()
    expect(kills).toBeGreaterThanOrEqual(4)
    expect([...seen]).toEqual([JSON.stringify({ observations: OBSERVATIONS, events: OBSERVATIONS })])
    const memory = open(path)
    const report = Effect.runSync(verify(memory))
    expect(report.findings).toEqual([])
    expect(report.events).toBe(OBSERVATIONS)
  }, 120_000)
})
