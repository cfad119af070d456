/**
 * Packing settled sessions, end to end: real hook processes record two sessions, `ralph-mem compact`
 * and `ralph-mem maintain` pack them, and everything a user sees (search, show, verify, the injection at
 * the next prompt) is the same before and after. A forget reaches packed content too.
 */
import { MAINTENANCE_UNPACKED_STREAMS, newSqliteDatabase, type RalphMemEvent } from "@ralph-mem/events"
import { openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { maintenanceSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"

const PLANTED = "KESTREL-9043-QUILL"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}
const dbOf = (root: string) => join(root, ".ralph-mem", "memory.db")
const hook = (root: string, event: string, session: string, fields: Record<string, unknown> = {}) =>
  runHookProcess(event, payload(event, session, root, fields), { cwd: root })
const cli = (root: string, ...args: Array<string>) =>
  runCli(args, { cwd: root, env: { RALPH_MEM_DB: "", HOME: root, XDG_CONFIG_HOME: join(root, ".config") } })
const json = (root: string, ...args: Array<string>) => {
  const result = cli(root, ...args, "--json")
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout)
}

/** Two sessions of test runs; the second holds PLANTED in a tool's output. */
const twoSessions = (root: string) => {
  for (const session of ["s1", "s2"]) {
    hook(root, "SessionStart", session, { source: "startup" })
    hook(root, "UserPromptSubmit", session, { prompt: "make the payment gateway tests pass" })
    for (let i = 0; i < 6; i++) {
      const stdout = `FAIL src/payment/gateway.test.ts > retries ${i}\nGatewayTimeoutError: no answer in 30s${
        session === "s2" && i === 3 ? ` ${PLANTED}` : ""
      }`
      hook(root, "PostToolUse", session, {
        tool_name: "Bash",
        tool_input: { command: "npm test" },
        tool_use_id: `${session}-${i}`,
        tool_response: { stdout }
      })
    }
    hook(root, "SessionEnd", session, { reason: "exit" })
  }
}

const packedEvents = (root: string) => {
  const db = newSqliteDatabase(dbOf(root), { readonly: true })
  try {
    return db.prepare("SELECT count(*) FROM event_rows WHERE block_id IS NOT NULL").pluck().get() as number
  } finally {
    db.close()
  }
}

describe("ralph-mem compact", () => {
  it("packs settled sessions; search, show, verify and the next injection are unchanged", () => {
    const root = project()
    twoSessions(root)
    // The hits and their order; scores move with the clock (their recency part).
    const search = () => {
      const { hits, ...rest } = json(root, "search", "gateway timeout")
      return { ...rest, hits: hits.map(({ score: _, ...hit }: { score: number }) => hit) }
    }
    // Each in a session of its own: a session is not told the same memory twice.
    const injection = (session: string) =>
      hook(root, "UserPromptSubmit", session, { prompt: "why does the gateway time out?" }).stdout

    // Just recorded: nothing has been idle for 10 minutes.
    expect(json(root, "compact", "--idle", "10m")).toMatchObject({ events: 0, blocks: 0 })
    const injected = injection("s3")
    expect(injected).toContain("GatewayTimeoutError")
    const before = { search: search(), show: json(root, "show", String(search().hits[0].id)) }

    const report = json(root, "compact")
    // s1, s2, and s3 of the prompt just above, small enough to share one block.
    expect(report).toMatchObject({ streams: 3, blocks: 1, vacuumed: false })
    expect(report.blockBytes).toBeLessThan(report.payloadBytes)
    expect(packedEvents(root)).toBe(report.events)
    expect(search()).toEqual(before.search)
    expect(json(root, "show", String(before.search.hits[0].id))).toEqual(before.show)
    expect(injection("s4")).toBe(injected)
    expect(json(root, "verify")).toMatchObject({ ok: true, findings: [] })
    expect(cli(root, "compact").stdout).toMatch(/Packed \d+ events of 1 streams|Nothing to pack/)
  })

  it("refuses a malformed --idle with a message naming it, and --help says what it does", () => {
    const root = project()
    const bad = cli(root, "compact", "--idle", "soon")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/--idle "soon" is not a duration/)
    expect(cli(root, "compact", "--help").stdout).toMatch(/Pack the payloads of settled streams/)
  })

  it("runs as maintain after a session ends: a backup in the background, then nothing left to do", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    twoSessions(root)
    // The SessionEnd hook started `ralph-mem maintain` in the background, which took the first backup.
    const backups = join(root, ".ralph-mem", "backups")
    await maintenanceSettled(root)
    expect(readdirSync(backups).length).toBeGreaterThan(0)
    // Sessions that ended a moment ago are left for a later run (10 minutes idle), and the backup is recent.
    // Both sessions were summarised by the current summariser when they ended: nothing to summarise again.
    expect(json(root, "maintain")).toEqual({
      summaries: expect.objectContaining({ summarized: 0 }),
      compaction: { streams: 0, events: 0, blocks: 0, payloadBytes: 0, blockBytes: 0 },
      indexes: { steps: 0, merged: [] },
      backup: null,
      abandonedBuilds: 0
    })
    // Once one is due, maintain takes it.
    expect(cli(root, "config", "backup.interval", "1ms").code).toBe(0)
    expect(json(root, "maintain").backup).toMatch(/backups/)
    // A new database a process died building is removed, with its WAL.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid
    for (const end of ["", "-wal"]) writeFileSync(join(root, ".ralph-mem", `memory.db.new-${dead}-q7${end}`), "")
    expect(cli(root, "maintain").stdout).toMatch(/Removed 2 file\(s\) of a new database left half-built/)
    expect(readdirSync(join(root, ".ralph-mem")).filter((f) => f.includes(".new-"))).toEqual([])
  })

  it("a forget reaches packed content: gone from the blocks, the search and the file", () => {
    const root = project()
    twoSessions(root)
    expect(json(root, "compact").events).toBeGreaterThan(0)
    expect(json(root, "search", PLANTED).hits.length).toBeGreaterThan(0)
    expect(cli(root, "forget", "--query", PLANTED, "--confirm").code).toBe(0)
    expect(json(root, "search", PLANTED).hits).toEqual([])
    expect(json(root, "verify")).toMatchObject({ ok: true })
    const db = newSqliteDatabase(dbOf(root), { readonly: true })
    const payloads = db.prepare("SELECT payload FROM events").pluck().all() as Array<string>
    db.close()
    expect(payloads.join("\n")).not.toContain(PLANTED)
    expect(payloads.join("\n")).toContain("GatewayTimeoutError")
    expect(readFileSync(dbOf(root)).includes(PLANTED)).toBe(false)
  })

  it("maintain leaves the sessions appended to last unpacked, however long idle: what hooks read most", () => {
    const root = project()
    const memory = Effect.runSync(openMemory({ path: dbOf(root) }))
    const hourAgo = Date.now() - 3_600_000
    const sessions = MAINTENANCE_UNPACKED_STREAMS + 2
    for (let s = 0; s < sessions; s++) {
      const sessionId = `old-${s}`
      Effect.runSync(memory.log.append(`session:${sessionId}`, [
        { _tag: "SessionStarted", sessionId, projectPath: root, source: "startup" },
        ...Array.from({ length: 5 }, (_, i): RalphMemEvent => ({
          _tag: "ObservationRecorded",
          sessionId,
          kind: "tool_use",
          toolName: "Bash",
          inputSummary: "npm test",
          content: `PASS src/payment/gateway.test.ts > retries ${s}.${i}`,
          files: []
        }))
      ], { expectedVersion: "any", writer: "test", occurredAt: hourAgo + s }))
    }
    memory.db.close()
    // Every session has been idle an hour: only the two oldest are packed. Each append left a segment in the word
    // index: maintain merges them.
    const maintained = json(root, "maintain")
    expect(maintained.compaction).toMatchObject({ streams: 2, events: 12 })
    expect(maintained.indexes.merged).toContain("observations_fts")
    const db = newSqliteDatabase(dbOf(root), { readonly: true })
    const packed = db.prepare(
      "SELECT DISTINCT s.name FROM event_rows r JOIN streams s ON s.id = r.stream WHERE r.block_id IS NOT NULL"
    ).pluck().all()
    db.close()
    expect(packed.sort()).toEqual(["session:old-0", "session:old-1"])
    // By hand, compact packs every settled stream.
    expect(json(root, "compact").streams).toBe(MAINTENANCE_UNPACKED_STREAMS)
  })

  it("maintain, which runs with nowhere to print, writes a failure to hooks.log, where doctor reports it", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    // The backups' folder cannot be made: a file stands in its place.
    writeFileSync(join(root, ".ralph-mem", "backups"), "")
    const failed = cli(root, "maintain")
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/back up the database failed/)
    const logged = readFileSync(join(root, ".ralph-mem", "hooks.log"), "utf8").trim().split("\n").map((line) =>
      JSON.parse(line)
    )
    expect(logged).toEqual([
      expect.objectContaining({ hook: "maintain", reason: expect.stringMatching(/back up the database failed/) })
    ])
    // Doctor reports both: the failure in the log, and the backups it cannot read (a finding, not a crash).
    const doctor = cli(root, "doctor", "--json")
    expect(doctor.code).toBe(1)
    expect(JSON.parse(doctor.stdout).checks).toEqual(
      expect.arrayContaining([
        {
          check: "hook failures (24 h)",
          ok: true,
          detail: expect.stringMatching(/^1 \(see .*hooks\.log\), last: back up the database failed/)
        },
        { check: "backups", ok: false, detail: expect.stringMatching(/^cannot read the backups: ENOTDIR/) }
      ])
    )
  })

  it("a damaged block is a finding of verify and a clear error, not a crash (after a --vacuum)", () => {
    const root = project()
    twoSessions(root)
    expect(json(root, "compact", "--vacuum")).toMatchObject({ vacuumed: true, streams: 2, blocks: 1 })
    expect(json(root, "verify")).toMatchObject({ ok: true })
    // Damage one block behind the triggers' back (a disk, or a hand with the sqlite3 shell).
    const db = newSqliteDatabase(dbOf(root))
    db.exec(
      "DROP TRIGGER payload_blocks_never_change; " +
        "UPDATE payload_blocks SET data = x'00112233' WHERE id = (SELECT min(id) FROM payload_blocks)"
    )
    db.close()
    const verify = cli(root, "verify", "--json")
    expect(verify.code).toBe(1)
    expect(JSON.stringify(JSON.parse(verify.stdout).findings)).toMatch(/payload/)
    const audit = cli(root, "audit", "--json")
    expect(audit.code).toBe(1)
    expect(audit.stderr).toMatch(/payload block \d+ is damaged/)
    expect(audit.stderr).not.toMatch(/    at /)
  })
})
