/**
 * Replay under fire: the real `ralph-mem replay` process is killed with SIGKILL while it holds its
 * rebuild transaction, while another connection keeps reading. Readers must never see a half-built
 * state, and after each kill the database must verify clean with nothing lost.
 *
 * The kills are placed by what the replay is doing, not by the clock: a probe connection sees the
 * write lock the rebuild holds, and the process is killed at spread-out points while it holds it.
 */
import { newSqliteDatabase, type RalphMemEvent } from "@ralph-mem/events"
import type Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { verify } from "../packages/projections/src/index.ts"
import { open } from "../packages/projections/test/spec.ts"
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
  JSON.stringify(
    reader.prepare(
      "SELECT (SELECT count(*) FROM observations) AS observations, (SELECT count(*) FROM events) AS events"
    ).get()
  )

/** Whether another connection holds the write lock (the replay's transaction): taking it fails at once. */
const writeLocked = (probe: Database.Database): boolean => {
  try {
    probe.exec("BEGIN IMMEDIATE")
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_BUSY") return true
    throw error
  }
  probe.exec("ROLLBACK")
  return false
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A replay process, and its exit signal once it ends. */
const startReplay = (
  path: string
): { child: ChildProcess; exited: Promise<NodeJS.Signals | null>; ended: () => boolean } => {
  const child = spawn(process.execPath, [CLI, "replay", "--db", path], { stdio: "ignore" })
  let ended = false
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_, signal) => ((ended = true), resolve(signal)))
  )
  return { child, exited, ended: () => ended }
}

describe("replay killed with SIGKILL", () => {
  it("never shows readers a half-built state and leaves a database that verifies clean", async () => {
    const path = build()
    const reader = newSqliteDatabase(path, { readonly: true })
    const probe = newSqliteDatabase(path, { timeout: 0 })
    const seen = new Set<string>()
    /** Reads what readers see until `done` says stop, a few milliseconds apart. */
    const watch = async (done: () => boolean) => {
      while (!done()) {
        seen.add(snapshot(reader))
        await pause(2)
      }
    }
    // One full run: how long the replay holds its transaction.
    const timing = startReplay(path)
    await watch(() => timing.ended() || writeLocked(probe))
    const lockedAt = Date.now()
    await watch(() => timing.ended() || !writeLocked(probe))
    let heldMs = Date.now() - lockedAt
    await timing.exited
    expect(heldMs).toBeGreaterThan(20)

    // Kills at spread-out points of the transaction; a replay that committed before its kill point (a
    // faster run than the timed one) is let finish, and the next ones aim at half the time.
    const fractions = [0.1, 0.3, 0.5, 0.7, 0.9]
    let kills = 0
    for (let attempt = 0; kills < fractions.length && attempt < 3 * fractions.length; attempt++) {
      const replay = startReplay(path)
      await watch(() => replay.ended() || writeLocked(probe))
      const locked = Date.now()
      await watch(() => replay.ended() || Date.now() - locked >= heldMs * fractions[kills]!)
      // Killed only while the transaction is still open.
      if (!replay.ended() && writeLocked(probe)) replay.child.kill("SIGKILL")
      if ((await replay.exited) === "SIGKILL") kills++
      else heldMs /= 2
      seen.add(snapshot(reader))
    }
    reader.close()
    probe.close()
    expect(kills).toBe(fractions.length)
    expect([...seen]).toEqual([JSON.stringify({ observations: OBSERVATIONS, events: OBSERVATIONS })])
    const memory = open(path)
    const report = Effect.runSync(verify(memory))
    expect(report.findings).toEqual([])
    expect(report.events).toBe(OBSERVATIONS)
  }, 600_000) // builds 30,000 events, then up to 16 replays: minutes on a loaded 2-core machine
})
