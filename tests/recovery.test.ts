/**
 * Backups and recovery: the database damaged in the ways a disk or a user damages it; the next hook
 * keeps the damaged file aside, restores the newest good backup, replays, records it, tells the user
 * once, and Claude Code carries on. `ralph-mem doctor` reports and repairs the same by hand.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync
} from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { maintenanceSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"

const PLANTED = "OKAPI-4417-HERON"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}
const folder = (root: string) => join(root, ".ralph-mem")
const dbOf = (root: string) => join(folder(root), "memory.db")
const hook = (root: string, event: string, session: string, fields: Record<string, unknown> = {}) =>
  runHookProcess(event, payload(event, session, root, fields), { cwd: root })
const cli = (root: string, ...args: Array<string>) =>
  runCli(args, { cwd: root, env: { RALPH_MEM_DB: "", HOME: root, XDG_CONFIG_HOME: join(root, ".config") } })
const contextOf = (
  stdout: string
) => (stdout === "" ? "" : (JSON.parse(stdout).hookSpecificOutput.additionalContext as string))

/**
 * A session whose memory holds PLANTED, then a backup of it. The maintenance its end started has finished:
 * it would otherwise checkpoint, back up or open the database while a test damages it.
 */
const sessionWithBackup = async (root: string) => {
  hook(root, "SessionStart", "s1", { source: "startup" })
  hook(root, "UserPromptSubmit", "s1", { prompt: `remember ${PLANTED}` })
  hook(root, "PostToolUse", "s1", {
    tool_name: "Bash",
    tool_input: { command: "npm test" },
    tool_use_id: "t1",
    tool_response: { stdout: `PASS ${PLANTED}` }
  })
  hook(root, "SessionEnd", "s1", { reason: "exit" })
  await maintenanceSettled(root)
  const backup = cli(root, "backup")
  expect(backup.code, backup.stderr).toBe(0)
}

const damage: ReadonlyArray<readonly [string, (path: string) => void]> = [
  ["random bytes over pages", (path) => {
    const fd = openSync(path, "r+")
    const size = statSync(path).size
    for (let page = 1; page * 4096 < size; page += 2) writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, page * 4096)
    closeSync(fd)
  }],
  ["a truncated file", (path) => truncateSync(path, Math.floor(statSync(path).size / 3))],
  ["a file that is not SQLite", (path) => {
    rmSync(path)
    const fd = openSync(path, "w")
    writeSync(fd, "this is not a database at all\n".repeat(300))
    closeSync(fd)
  }]
]

describe("backups", () => {
  it("are taken after a session ends (in the background), 0600 in a 0700 folder, at most once per interval", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "SessionEnd", "s1", { reason: "exit" })
    await maintenanceSettled(root)
    const backups = join(folder(root), "backups")
    const [first] = readdirSync(backups)
    expect(statSync(backups).mode & 0o777).toBe(0o700)
    expect(statSync(join(backups, first!)).mode & 0o777).toBe(0o600)
    expect(JSON.parse(cli(root, "backup", "--if-due", "--json").stdout)).toEqual({ taken: false, reason: "not due" })
    expect(JSON.parse(cli(root, "status", "--json").stdout).lastBackup).toMatch(/^\d{4}-/)
  })

  it("are rotated, keeping the configured number", () => {
    const root = project()
    expect(cli(root, "config", "backup.keep", "2").code).toBe(0)
    for (let i = 0; i < 4; i++) expect(cli(root, "backup").code).toBe(0)
    expect(readdirSync(join(folder(root), "backups"))).toHaveLength(2)
  })

  it("lose what a forget removed: older backups are replaced after a confirmed forget", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    await sessionWithBackup(root)
    const bytes = () =>
      readdirSync(join(folder(root), "backups")).map((f) =>
        readFileSync(join(folder(root), "backups", f)).toString("latin1")
      ).join("")
    expect(bytes()).toContain(PLANTED)
    expect(cli(root, "forget", "--session", "s1", "--confirm").code).toBe(0)
    expect(bytes()).not.toContain(PLANTED)
    expect(readdirSync(join(folder(root), "backups"))).toHaveLength(1)
  })
})

describe.each(damage)("a database damaged by %s", (_, harm) => {
  it("is set aside by the next hook, which restores the backup, tells the user once, and carries on", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    await sessionWithBackup(root)
    harm(dbOf(root))
    const damagedBytes = readFileSync(dbOf(root))
    const first = hook(root, "SessionStart", "s2", { source: "startup" })
    expect([first.code, first.stderr]).toEqual([0, ""])
    expect(contextOf(first.stdout)).toMatch(
      /## ralph-mem notice\n- .*the memory database was damaged .*the newest good backup was restored .*Tell the user\./
    )
    // the memory from before the damage is back
    expect(contextOf(first.stdout)).toContain(PLANTED)
    const [kept] = readdirSync(join(folder(root), "damaged"))
    expect(readFileSync(join(folder(root), "damaged", kept!)).equals(damagedBytes)).toBe(true)
    const db = newSqliteDatabase(dbOf(root), { readonly: true })
    expect(db.prepare("SELECT count(*) FROM events WHERE type = 'DatabaseRestored'").pluck().get()).toBe(1)
    db.close()
    expect(cli(root, "verify").code).toBe(0)
    // once: the next session is not told again
    expect(contextOf(hook(root, "SessionStart", "s3", { source: "startup" }).stdout)).not.toContain("ralph-mem notice")
  })

  it("is reported by doctor, and repaired by doctor --repair", { timeout: SETTLE_TEST_TIMEOUT_MS }, async () => {
    const root = project()
    await sessionWithBackup(root)
    harm(dbOf(root))
    const report = cli(root, "doctor", "--json")
    expect(report.code).toBe(1)
    expect(JSON.parse(report.stdout).checks).toContainEqual(expect.objectContaining({ check: "database", ok: false }))
    const repair = cli(root, "doctor", "--repair")
    expect(repair.code, repair.stdout + repair.stderr).toBe(0)
    expect(repair.stdout).toMatch(/FIXED\s+database: .* -> restored .*backups/)
    expect(cli(root, "doctor").code).toBe(0)
    expect(JSON.parse(cli(root, "search", PLANTED, "--json").stdout).hits.length).toBeGreaterThan(0)
  })
})

describe("without a backup", () => {
  it("the hook starts a new database, keeps the damaged one, and says so", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    // Hooks leave the WAL to the next process; a command writes it back when it closes, so the
    // damage lands on the pages that hold the data (in the WAL, they would be written over at the
    // next checkpoint).
    expect(cli(root, "status").code).toBe(0)
    damage[0]![1](dbOf(root))
    const run = hook(root, "UserPromptSubmit", "s1", { prompt: "still here?" })
    expect([run.code, run.stderr]).toEqual([0, ""])
    expect(readdirSync(join(folder(root), "damaged"))).toHaveLength(1)
    expect(contextOf(hook(root, "SessionStart", "s2", { source: "startup" }).stdout)).toMatch(
      /no backup existed, so memory starts afresh/
    )
    // What the damaged file still held was read back; what it did not is reported until acknowledged.
    const verified = cli(root, "verify")
    if (verified.code !== 0) {
      expect(verified.stdout + verified.stderr).toMatch(/committed event\(s\) missing/)
      expect(cli(root, "doctor", "--repair").stdout).toMatch(/FIXED\s+lost events: .* -> acknowledged/)
    }
    expect(cli(root, "verify").code).toBe(0)
  })
})

describe("a WAL deleted mid-session", () => {
  it("loses only what it had not written back, and the next hook carries on with a sound database", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    const root = project()
    await sessionWithBackup(root)
    // A writer that died without checkpointing leaves committed transactions only in the WAL.
    const writer = newSqliteDatabase(dbOf(root))
    writer.pragma("wal_autocheckpoint = 0")
    hook(root, "PostToolUse", "s1", {
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "t9",
      tool_response: { stdout: "late" }
    })
    rmSync(`${dbOf(root)}-wal`, { force: true })
    rmSync(`${dbOf(root)}-shm`, { force: true })
    const run = hook(root, "SessionStart", "s2", { source: "startup" })
    expect([run.code, run.stderr]).toEqual([0, ""])
    // The committed event the WAL held is gone, and the head mark says so.
    const verified = cli(root, "verify")
    expect(verified.code).toBe(1)
    expect(verified.stdout + verified.stderr).toMatch(/1 committed event\(s\) missing/)
    expect(cli(root, "doctor").stdout).toMatch(/FAIL\s+lost events: 1 committed event/)
    expect(cli(root, "doctor", "--repair").code).toBe(0)
    expect(cli(root, "verify").code).toBe(0)
    writer.close()
  })
})

describe("permissions", () => {
  it("doctor tightens a database that others could read", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    chmodSync(dbOf(root), 0o644)
    expect(cli(root, "doctor", "--repair").stdout).toMatch(/FIXED\s+database file: mode 644 -> set to 600/)
    expect(statSync(dbOf(root)).mode & 0o777).toBe(0o600)
  })
})

describe("a file that is no memory, named by a mistyped path", () => {
  it("is left as it is by doctor --repair and by the hooks, which say why", () => {
    const root = project()
    const notes = join(root, "notes.txt")
    const text = "my important notes\n".repeat(50)
    writeFileSync(notes, text)
    chmodSync(notes, 0o644)
    const before = readdirSync(root)
    const repair = cli(root, "doctor", "--repair", "--db", notes)
    expect(repair.code).toBe(1)
    expect(repair.stdout).toMatch(
      /FAIL\s+database: .*notes\.txt is not an SQLite file, and nothing beside it shows it was/
    )
    expect(repair.stdout).not.toMatch(/FIXED/)
    const run = runHookProcess("UserPromptSubmit", payload("UserPromptSubmit", "s1", root, { prompt: "hello" }), {
      cwd: root,
      env: { RALPH_MEM_DB: notes }
    })
    expect([run.code, run.stdout]).toEqual([0, ""])
    expect(readFileSync(notes, "utf8")).toBe(text)
    expect(statSync(notes).mode & 0o777).toBe(0o644)
    // Beside it: the hook's trace, and what it could not record, kept for a hook that can.
    expect(readdirSync(root).filter((name) => !before.includes(name))).toEqual(["hooks.log", "notes.txt.spill"])
    expect(readFileSync(join(root, "hooks.log"), "utf8")).toMatch(/notes\.txt is not an SQLite file/)
  })
})
