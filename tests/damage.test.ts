/**
 * Committed events are not lost on damage without a word: a restore reads back every event of the
 * damaged file past the backup that SQLite can still reach, and reports what it could not; a WAL cut
 * short or with a flipped byte (which SQLite drops silently) is found through the head mark, and
 * `verify` and `doctor` say events are missing until the user acknowledges it. Real files, real damage.
 */
import { newSqliteDatabase, readHeadMark } from "@ralph-mem/events"
import { closeSync, mkdirSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { writeFigures } from "./support/figures.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { cli, json, project } from "./support/memory-project.ts"

const figures: Record<string, number> = {}
let scenarios = 0
afterAll(() => writeFigures("forget", { ...figures, "damage scenarios": scenarios }))

const dbOf = (root: string) => join(root, ".ralph-mem", "memory.db")
const hook = (root: string, event: string, session: string, fields: Record<string, unknown> = {}) => {
  const run = runHookProcess(event, payload(event, session, root, fields), { cwd: root })
  expect([run.code, run.stderr]).toEqual([0, ""])
  return run
}
const toolCall = (root: string, session: string, i: number) =>
  hook(root, "PostToolUse", session, {
    tool_name: "Bash",
    tool_input: { command: `echo ${i}` },
    tool_use_id: `t${i}`,
    tool_response: { stdout: `marker-${i}` }
  })
const markersIn = (root: string) =>
  (json(root, "audit", "--type", "ObservationRecorded") as Array<{ payload: { content?: string } }>).filter((e) =>
    /marker-\d+/.test(e.payload.content ?? "")
  ).length
const head = (root: string) => json(root, "status").headPosition as number

/** Overwrites pages of the file with 0x5a bytes. */
const overwritePages = (path: string, pages: ReadonlyArray<number>) => {
  const fd = openSync(path, "r+")
  for (const page of pages) writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, (page - 1) * 4096)
  closeSync(fd)
}

/** The b-tree pages of the database (dbstat), by table or index name. */
const btreePages = (path: string, name?: string): Array<number> => {
  const db = newSqliteDatabase(path, { readonly: true })
  try {
    return db
      .prepare(
        `SELECT pageno FROM dbstat WHERE pageno > 1 ${name === undefined ? "" : "AND name = ? AND pagetype = 'leaf'"}
         ORDER BY pageno`
      )
      .pluck()
      .all(...(name === undefined ? [] : [name])) as Array<number>
  } finally {
    db.close()
  }
}

/** The leaf of a table's b-tree that holds its last rows (dbstat's paths sort in b-tree order), and how many. */
const lastLeaf = (path: string, name: string): { readonly pageno: number; readonly rows: number } => {
  const db = newSqliteDatabase(path, { readonly: true })
  try {
    return db
      .prepare(
        `SELECT pageno, ncell AS rows FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path DESC LIMIT 1`
      )
      .get(name) as { pageno: number; rows: number }
  } finally {
    db.close()
  }
}

/** A backup of one session, then `later` tool calls after it, written back into the database file. */
const memoryWithEventsAfterBackup = (later: number) => {
  const root = project()
  hook(root, "SessionStart", "s1", { source: "startup" })
  hook(root, "UserPromptSubmit", "s1", { prompt: "build the thing" })
  expect(cli(root, "backup").code).toBe(0)
  const backupHead = head(root)
  for (let i = 0; i < later; i++) toolCall(root, "s1", i)
  // A command writes the WAL back into the file when it closes: the damage lands on the data.
  const total = head(root)
  return { root, backupHead, after: total - backupHead }
}

/** Restored by the next SessionStart; what the DatabaseRestored event says. */
const restore = (root: string) => {
  expect(hook(root, "SessionStart", "s2", { source: "startup" }).stdout).toMatch(/the memory database was damaged/)
  const [restored] = json(root, "audit", "--type", "DatabaseRestored")
  return restored.payload as { salvaged: number; unreadable: number; reason: string }
}

describe("a restore", () => {
  it("reads back the events written after the backup when pages of the file are overwritten", () => {
    scenarios++
    const { root, after } = memoryWithEventsAfterBackup(20)
    // Pages spread over the file (every fifth b-tree page, from the 3rd): not the log's own rows.
    const pages = btreePages(dbOf(root)).filter((_, i) => i % 5 === 2)
    const logLeaves = new Set(btreePages(dbOf(root), "event_rows"))
    overwritePages(
      dbOf(root),
      pages.filter((p) => !logLeaves.has(p))
    )
    const restored = restore(root)
    expect(restored.reason).not.toBe("")
    expect(restored.salvaged + restored.unreadable).toBe(after)
    expect(restored.salvaged).toBe(after)
    expect(markersIn(root)).toBe(20)
    figures["random pages overwritten: events after the backup"] = after
    figures["random pages overwritten: events salvaged"] = restored.salvaged
    expect(cli(root, "verify").code).toBe(0)
  })

  it("reads back what it can when a page of the log itself is overwritten, and reports the rest as missing", () => {
    scenarios++
    const { root, after } = memoryWithEventsAfterBackup(40)
    const leaves = btreePages(dbOf(root), "event_rows")
    overwritePages(dbOf(root), [leaves.at(-2)!])
    const restored = restore(root)
    expect(restored.unreadable).toBeGreaterThan(0)
    expect(restored.salvaged).toBeGreaterThan(0)
    expect(restored.salvaged + restored.unreadable).toBe(after)
    figures["log page overwritten: events after the backup"] = after
    figures["log page overwritten: events salvaged"] = restored.salvaged
    figures["log page overwritten: events lost (reported)"] = restored.unreadable
    const verified = cli(root, "verify")
    expect(verified.code).toBe(1)
    expect(verified.stdout + verified.stderr).toMatch(
      new RegExp(`${restored.unreadable} committed event\\(s\\) missing`)
    )
    expect(cli(root, "doctor").stdout).toMatch(/FAIL\s+lost events/)
    expect(cli(root, "doctor", "--repair").code).toBe(0)
    expect(cli(root, "verify").code).toBe(0)
  })
})

describe("a restore without a backup", () => {
  it("counts the events the damaged file lost at its end up to its own head mark, past those it read back", () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    for (let i = 0; i < 40; i++) toolCall(root, "s1", i)
    const total = head(root)
    expect(readHeadMark(dbOf(root))).toMatchObject({ position: total, memory: expect.stringMatching(/^[0-9a-f]{32}$/) })
    // The leaf that holds the log's newest events: nothing in the file says they were there, but the mark.
    const leaf = lastLeaf(dbOf(root), "event_rows")
    overwritePages(dbOf(root), [leaf.pageno])
    const restored = restore(root)
    expect(restored).not.toHaveProperty("backup")
    expect(restored).toMatchObject({ salvaged: total - leaf.rows, unreadable: leaf.rows })
    expect(markersIn(root)).toBe(40 - leaf.rows)
    const [loss] = json(root, "audit", "--type", "EventsLost")
    expect(loss.payload.count).toBe(leaf.rows)
    expect(loss.payload.detail).toMatch(
      new RegExp(
        `could not be read at positions ${leaf.rows === 1 ? total : `${total - leaf.rows + 1}\\.\\.${total}`}$`
      )
    )
    figures["no backup, log's last leaf overwritten: events lost (reported through the head mark)"] = leaf.rows
    const verified = cli(root, "verify")
    expect(verified.code).toBe(1)
    expect(verified.stdout + verified.stderr).toMatch(new RegExp(`${leaf.rows} committed event\\(s\\) missing`))
    expect(cli(root, "doctor", "--repair").code).toBe(0)
    expect(cli(root, "verify").code).toBe(0)
  })
})

describe("a WAL damaged after commits", () => {
  /** A session whose last 15 tool calls are committed in the WAL only (hooks leave the WAL). */
  const committedInWal = () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    expect(cli(root, "status").code).toBe(0)
    for (let i = 0; i < 15; i++) toolCall(root, "s1", i)
    return root
  }

  const lossIsReported = (root: string, label: string) => {
    // The next hook finds the loss before it appends.
    hook(root, "UserPromptSubmit", "s1", { prompt: "go on" })
    const lost = 15 - markersIn(root)
    expect(lost).toBeGreaterThan(0)
    figures[`${label}: committed events lost`] = lost
    const verified = cli(root, "verify")
    expect(verified.code).toBe(1)
    expect(verified.stdout + verified.stderr).toMatch(/committed event\(s\) missing.*the WAL lost/)
    expect(cli(root, "doctor").stdout).toMatch(/FAIL\s+lost events: \d+ committed event/)
    const [loss] = json(root, "audit", "--type", "EventsLost")
    expect(loss.payload.count).toBeGreaterThanOrEqual(lost)
    figures[`${label}: losses reported`] = loss.payload.count
    expect(cli(root, "doctor", "--repair").code).toBe(0)
    expect(cli(root, "verify").code).toBe(0)
  }

  it("cut in half: the lost commits are reported", () => {
    scenarios++
    const root = committedInWal()
    const wal = `${dbOf(root)}-wal`
    truncateSync(wal, Math.floor(statSync(wal).size / 2))
    lossIsReported(root, "WAL cut in half")
  })

  it("with one flipped byte: the lost commits are reported", () => {
    scenarios++
    const root = committedInWal()
    const wal = `${dbOf(root)}-wal`
    const bytes = readFileSync(wal)
    // A byte inside a frame three quarters of the way in: that frame and every later one fail their checksum.
    const frame = 24 + 4096
    const at = 32 + Math.floor(((bytes.length - 32) / frame) * 0.75) * frame + 24 + 100
    const fd = openSync(wal, "r+")
    writeSync(fd, Buffer.from([bytes[at]! ^ 0xff]), 0, 1, at)
    closeSync(fd)
    lossIsReported(root, "one flipped WAL byte")
  })
})

describe("a head mark that came with the project", () => {
  /** What an archive or a repository can hold: a mark naming events far past any this memory has. */
  const plantMark = (root: string, memory?: string) => {
    mkdirSync(join(root, ".ralph-mem"), { recursive: true, mode: 0o700 })
    const mark = {
      position: 999_999,
      eventId: "01M8GPE506VTAN35R2111S2T0C",
      ...(memory === undefined ? {} : { memory })
    }
    writeFileSync(`${dbOf(root)}.head`, JSON.stringify(mark).padEnd(128, " "))
  }
  const noLossReported = (root: string) => {
    expect(json(root, "audit", "--type", "EventsLost")).toEqual([])
    const verified = cli(root, "verify")
    expect(verified.stdout + verified.stderr).not.toMatch(/committed event\(s\) missing/)
    expect(verified.code).toBe(0)
    const doctor = cli(root, "doctor")
    expect(doctor.stdout).not.toMatch(/lost events/)
    expect(doctor.code).toBe(0)
  }

  it("before the memory is made: reports no lost events, and is replaced by the first append", () => {
    scenarios++
    const root = project()
    plantMark(root)
    hook(root, "SessionStart", "s1", { source: "startup" })
    toolCall(root, "s1", 1)
    expect(readFileSync(`${dbOf(root)}.head`, "utf8")).not.toContain("999999")
    noLossReported(root)
  })

  it("when the damaged memory is restored from its backup: counts nothing past the log as lost", () => {
    scenarios++
    const { root, after } = memoryWithEventsAfterBackup(10)
    plantMark(root, "fedcba9876543210fedcba9876543210")
    const pages = btreePages(dbOf(root)).filter((_, i) => i % 5 === 2)
    const logLeaves = new Set(btreePages(dbOf(root), "event_rows"))
    overwritePages(dbOf(root), pages.filter((p) => !logLeaves.has(p)))
    const restored = restore(root)
    expect(restored).toMatchObject({ salvaged: after, unreadable: 0 })
    noLossReported(root)
  })

  it("when the damaged memory has no backup: counts nothing past the log as lost", () => {
    // Another memory's id, or none: neither is this memory's, whose new id the restore makes.
    for (const memory of ["fedcba9876543210fedcba9876543210", undefined]) {
      scenarios++
      const root = project()
      hook(root, "SessionStart", "s1", { source: "startup" })
      for (let i = 0; i < 10; i++) toolCall(root, "s1", i)
      const total = head(root)
      plantMark(root, memory)
      // Neither the log's rows nor the memory's id (which shows the damaged file was the user's memory) are hit.
      const spared = new Set([...btreePages(dbOf(root), "event_rows"), ...btreePages(dbOf(root), "memory_identity")])
      overwritePages(dbOf(root), btreePages(dbOf(root)).filter((p, i) => i % 5 === 2 && !spared.has(p)))
      const restored = restore(root)
      expect(restored).not.toHaveProperty("backup")
      expect(restored).toMatchObject({ salvaged: total, unreadable: 0 })
      expect(markersIn(root)).toBe(10)
      noLossReported(root)
    }
  })

  it("when the damaged memory has no backup and lost its log's last leaf: reads back every event before it", () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    for (let i = 0; i < 40; i++) toolCall(root, "s1", i)
    const total = head(root)
    plantMark(root, "fedcba9876543210fedcba9876543210")
    // SQLite cannot say which event is the newest: the last leaf is where it looks. What it held, only the memory's
    // own mark would have told.
    const leaf = lastLeaf(dbOf(root), "event_rows")
    overwritePages(dbOf(root), [leaf.pageno])
    const restored = restore(root)
    expect(restored).toMatchObject({ salvaged: total - leaf.rows, unreadable: 0 })
    expect(markersIn(root)).toBe(40 - leaf.rows)
    noLossReported(root)
  })

  it("over a memory's own mark: doctor notes it and reports no lost events; a WAL cut later still is", () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    expect(cli(root, "status").code).toBe(0)
    // A checkout that brought the project's mark over this memory's: another memory's id, or none.
    for (const memory of ["fedcba9876543210fedcba9876543210", undefined]) {
      plantMark(root, memory)
      const doctor = cli(root, "doctor")
      expect(doctor.stdout).toMatch(
        new RegExp(
          `NOTE\\s+head mark: .*memory\\.db\\.head names ${memory === undefined ? "no memory" : `memory ${memory}`}`
        )
      )
      expect(doctor.stdout).not.toMatch(/lost events/)
      expect(doctor.code).toBe(0)
      expect(json(root, "status").headPosition).toBeLessThan(100)
      toolCall(root, "s1", 1)
      noLossReported(root)
    }
    // The memory's own marks are read as before: commits the WAL then loses are reported.
    for (let i = 2; i < 17; i++) toolCall(root, "s1", i)
    const wal = `${dbOf(root)}-wal`
    truncateSync(wal, Math.floor(statSync(wal).size / 2))
    hook(root, "UserPromptSubmit", "s1", { prompt: "go on" })
    const verified = cli(root, "verify")
    expect(verified.code).toBe(1)
    expect(verified.stdout + verified.stderr).toMatch(/committed event\(s\) missing.*the WAL lost/)
  })
})
