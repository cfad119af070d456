/**
 * Progress of long work: the line itself, then replay, compact --vacuum and a schema migration as real
 * processes writing plain lines (stderr is not a terminal here; RALPH_MEM_PROGRESS_INTERVAL makes them
 * frequent enough to see on a small memory).
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { newSqliteDatabase } from "../../../packages/events/src/index.ts"
import { migrations } from "../../../packages/events/src/migrations.ts"
import { run, tempFolder } from "../../../packages/events/test/helpers.ts"
import { openMemory } from "../../../packages/projections/src/index.ts"
import { runCli } from "../../../tests/support/cli.ts"
import { progress, renderProgress } from "../src/progress.ts"

const sink = (isTTY: boolean) => {
  const written: Array<string> = []
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } }
}

describe("a progress line", () => {
  it("says what is done, the share, the rate and the time left, then how long it took", () => {
    expect(renderProgress("replaying", "events", 25_000, 100_000, 5_000, false)).toBe(
      "replaying 25,000/100,000 events (25%), 5,000 events/s, 15s left\n"
    )
    expect(renderProgress("replaying", "events", 100_000, 100_000, 125_000, false)).toBe(
      "replaying 100,000/100,000 events (100%), 800 events/s, done in 2m 5s\n"
    )
    expect(renderProgress("vacuuming", "MB", 0, 10, 0, false)).toMatch(/\? left/)
  })

  it("is a bar redrawn in place on a terminal", () => {
    const line = renderProgress("packing", "streams", 3, 12, 1_000, true)
    expect(line).toBe("\r\u001b[2K[######                  ] packing 3/12 streams (25%), 3 streams/s, 3s left")
  })

  it("writes a plain line at most once an interval off a terminal, nothing for short work, and a last line", () => {
    let now = 0
    const { written, stream } = sink(false)
    const bar = progress({ label: "replaying", unit: "events", stream, lineEveryMs: 1_000, now: () => now })
    for (let done = 1; done <= 30; done++) {
      now += 100
      bar.update(done * 10, 300)
    }
    bar.finish()
    expect(written).toEqual([
      "replaying 100/300 events (33%), 100 events/s, 2s left\n",
      "replaying 200/300 events (66%), 100 events/s, 1s left\n",
      "replaying 300/300 events (100%), 100 events/s, done in 3s\n"
    ])
    const quiet = sink(false)
    const short = progress({ label: "x", unit: "y", stream: quiet.stream, lineEveryMs: 1_000, now: () => 0 })
    short.update(1, 1)
    short.finish()
    expect(quiet.written).toEqual([])
  })
})

/** A memory of `sessions` sessions of 20 observations each, appended through the real log. */
const memoryWith = (sessions: number) => {
  const path = join(tempFolder(), "memory.db")
  const memory = run(openMemory({ path }))
  for (let s = 0; s < sessions; s++) {
    const events = Array.from({ length: 20 }, (_, i) => ({
      _tag: "ObservationRecorded" as const,
      sessionId: `s${s}`,
      kind: "tool_use" as const,
      toolName: "Bash",
      inputSummary: `npm test ${i}`,
      content: `run ${s}.${i}: ${"output ".repeat(20)}`,
      files: [`src/file${i}.ts`]
    }))
    Effect.runSync(
      memory.log.append(`session:s${s}`, events, {
        expectedVersion: "any",
        writer: "test",
        occurredAt: Date.now() - 3_600_000
      })
    )
  }
  memory.db.close()
  return path
}

const FAST = { RALPH_MEM_PROGRESS_INTERVAL: "1" }

describe("long work shows its progress", () => {
  it("replay: events done, the rate and the time left, ending with how long it took", () => {
    const path = memoryWith(500)
    const result = runCli(["replay", "--db", path], { env: FAST })
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stderr.trim().split("\n")
    expect(lines.length).toBeGreaterThanOrEqual(2)
    for (const line of lines) {
      expect(line).toMatch(/^replaying [\d,]+\/10,000 events \(\d+%\), [\d,]+ events\/s, (\S+ left|done in \S+)$/)
    }
    expect(lines.at(-1)).toMatch(/^replaying 10,000\/10,000 events \(100%\), .* done in/)
    // Without the setting, a short replay off a terminal prints nothing but its report.
    expect(runCli(["replay", "--db", path]).stderr).toBe("")
  })

  it("verify and doctor: the checks done of all, ending with how long they took", () => {
    const path = memoryWith(500)
    for (const command of ["verify", "doctor"]) {
      const result = runCli([command, "--db", path], { env: FAST })
      expect(result.code, result.stderr).toBe(0)
      const lines = result.stderr.trim().split("\n")
      expect(lines.length, result.stderr).toBeGreaterThanOrEqual(2)
      for (const line of lines) {
        expect(line).toMatch(/^verifying \d\/8 checks \(\d+%\), [\d,]+ checks\/s, (\S+ left|done in \S+)$/)
      }
      expect(lines.at(-1)).toMatch(/^verifying 8\/8 checks \(100%\), .* done in/)
      expect(result.stdout).toMatch(command === "verify" ? /10000 events checked, 0 problem/ : /10000 events verified/)
      // Without the setting, a short check off a terminal prints nothing but its report.
      expect(runCli([command, "--db", path]).stderr).toBe("")
    }
  })

  it("compact --vacuum: the streams packed, then the vacuum by the pages it writes", () => {
    const path = memoryWith(500)
    const result = runCli(["compact", "--db", path, "--vacuum"], { env: FAST })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/^packing [\d,]+\/500 streams \(\d+%\)/m)
    expect(result.stderr).toMatch(/^packing 500\/500 streams \(100%\), .* done in/m)
    expect(result.stderr).toMatch(/^vacuuming [\d.]+\/[\d.]+ MB \(100%\), .* done in/m)
    expect(result.stdout).toMatch(/Packed 10000 events of 500 streams/)
  })

  it("a schema migration: the first command to open an old memory says how far the copy is", () => {
    const path = join(tempFolder(), "v1.db")
    const old = newSqliteDatabase(path)
    old.exec(migrations[0]!.sql)
    old.pragma("application_id = 0x524d454d")
    old.pragma("user_version = 1")
    const insert = old.prepare(
      "INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, payload, metadata, occurred_at)"
        + " VALUES (?, ?, ?, 'ObservationRecorded', 1, ?, '{\"writer\":\"test\",\"version\":\"0\"}', ?)"
    )
    old.transaction(() => {
      for (let i = 0; i < 60_000; i++) {
        const payload = JSON.stringify({
          sessionId: `s${i % 300}`,
          kind: "tool_use",
          content: `step ${i} ${"output ".repeat(10)}`,
          files: []
        })
        insert.run(`id${i}`, `session:s${i % 300}`, Math.floor(i / 300) + 1, payload, 1000 + i)
      }
    })()
    old.close()
    const result = runCli(["status", "--db", path, "--json"], { env: FAST })
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ events: 60_000 })
    expect(result.stderr).toMatch(/^migrating the memory to schema \d+ [\d.]+\/[\d.]+ MB \(100%\), .* done in/m)
    // Migrated: the next command has nothing to say.
    expect(runCli(["status", "--db", path, "--json"], { env: FAST }).stderr).toBe("")
  })
})
