/**
 * A hook that cannot record leaves a trace: with another process holding the write lock, or on a full
 * disk (a real, small tmpfs), hooks exit 0 within their bounded wait, keep their events (privacy-filtered)
 * in the spill file, `status` and `doctor` count them, and the next process that can write records
 * them, once.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { spawnSync } from "node:child_process"
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { writeFigures } from "./support/figures.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { cli, holdTransaction, json, memoryFolder as folder, project } from "./support/memory-project.ts"

const figures: Record<string, number> = {}
afterAll(() => writeFigures("forget", figures))

const hook = (root: string, event: string, session: string, fields: Record<string, unknown> = {}) => {
  const started = Date.now()
  const run = runHookProcess(event, payload(event, session, root, fields), { cwd: root })
  expect(run.code).toBe(0)
  expect(run.stdout).toBe("")
  return Date.now() - started
}
const toolCall = (i: number, text: string) => ({
  tool_name: "Bash",
  tool_input: { command: `echo ${i}` },
  tool_use_id: `t${i}`,
  tool_response: { stdout: `${text} ${i} password=hunter2secret` }
})
const observed = (root: string) => json(root, "audit", "--type", "ObservationRecorded").length as number

describe("a hook that cannot record", () => {
  it("while another process holds the write lock: waits its bound, keeps its events, counted, recorded", async () => {
    const root = project()
    // What a hook process takes on this machine now, without waiting for a lock.
    const unlocked = hook(root, "SessionStart", "s1", { source: "startup" })
    const calls = 6
    const lock = await holdTransaction(join(folder(root), "memory.db"), "BEGIN IMMEDIATE")
    let longest = 0
    try {
      for (let i = 0; i < calls; i++) {
        longest = Math.max(longest, hook(root, "PostToolUse", "s1", toolCall(i, "LOCKED-OUT")))
      }
      // Counted while the lock is still held: nothing recorded, nothing hidden.
      const status = json(root, "status")
      expect(status.hooks).toMatchObject({ notYetRecorded: calls })
      expect(status.hooks.successRate).toBeLessThan(1)
      const doctor = cli(root, "doctor")
      expect(doctor.stdout).toMatch(new RegExp(`FAIL\\s+hooks that could not record: ${calls} hook call`))
      // Privacy-filtered before it is kept.
      const spilled = readFileSync(join(folder(root), "memory.db.spill"), "latin1")
      expect(spilled).toContain("LOCKED-OUT")
      expect(spilled).not.toContain("hunter2secret")
    } finally {
      await lock.release()
    }
    // Each hook waited its bound (2 s), not the 10 s it used to: generous, and beyond what a busy machine
    // adds to every process.
    expect(longest - unlocked).toBeLessThan(8000)
    figures["hooks locked out (write lock held)"] = calls
    const after = json(root, "status")
    expect(after.hooks).toMatchObject({ notYetRecorded: 0, failures: calls })
    expect(observed(root)).toBe(calls)
    // Folded once: another process finds nothing more to fold.
    hook(root, "PostToolUse", "s1", toolCall(99, "after"))
    expect(observed(root)).toBe(calls + 1)
    expect(json(root, "status").hooks).toMatchObject({ failures: calls, notYetRecorded: 0 })
    expect(readFileSync(join(folder(root), "memory.db.spill"), "latin1")).not.toContain("LOCKED-OUT")
    expect(readFileSync(join(folder(root), "hooks.log"), "utf8")).toMatch(/could not record/)
    figures["locked-out hook calls recorded later"] = observed(root) - 1
    expect(cli(root, "verify").code).toBe(0)
  }, 180_000)

  it(
    "while another process holds the database so it cannot even be opened: keeps what happened, recorded later",
    async () => {
      const root = project()
      hook(root, "SessionStart", "s1", { source: "startup" })
      const lock = await holdTransaction(join(folder(root), "memory.db"), "EXCLUSIVE")
      try {
        for (let i = 0; i < 2; i++) hook(root, "PostToolUse", "s1", toolCall(i, "UNOPENED"))
        hook(root, "UserPromptSubmit", "s1", { prompt: "why does UNOPENED-PROMPT fail? token=hunter2secret" })
        hook(root, "Stop", "s1", { last_assistant_message: "UNOPENED-REPLY" })
        hook(root, "PreCompact", "s1", { trigger: "manual" })
        hook(root, "SessionEnd", "s1", { reason: "logout" })
        hook(root, "SessionStart", "s2", { source: "startup" })
        // Kept without the memory, privacy-filtered: no hook could read it.
        const spilled = readFileSync(join(folder(root), "memory.db.spill"), "latin1")
        for (const text of ["UNOPENED 0", "UNOPENED 1", "UNOPENED-PROMPT", "UNOPENED-REPLY"]) {
          expect(spilled).toContain(text)
        }
        expect(spilled).not.toContain("hunter2secret")
      } finally {
        await lock.release()
      }
      expect(json(root, "status").hooks).toMatchObject({ notYetRecorded: 0, failures: 7 })
      const texts = (type: string) => JSON.stringify(json(root, "audit", "--type", type))
      expect(texts("SessionCompacted")).toContain("manual")
      expect(texts("SessionEnded")).toContain("logout")
      expect(json(root, "audit", "--type", "SessionStarted").length).toBe(2)
      expect(observed(root)).toBe(2)
      expect(texts("ObservationRecorded")).toMatch(/UNOPENED 0[\s\S]*UNOPENED 1|UNOPENED 1[\s\S]*UNOPENED 0/)
      expect(texts("PromptSubmitted")).toContain("UNOPENED-PROMPT")
      expect(texts("AssistantReplied")).toContain("UNOPENED-REPLY")
      // The same tool call, reported again (a retried hook): recorded once.
      hook(root, "PostToolUse", "s1", toolCall(1, "UNOPENED"))
      expect(observed(root)).toBe(2)
      expect(cli(root, "verify").code).toBe(0)
    },
    180_000
  )

  it(
    "when reading the memory fails before the hook decides (a read model dropped under it): keeps what happened",
    () => {
      const root = project()
      hook(root, "SessionStart", "s1", { source: "startup" })
      for (let i = 0; i < 3; i++) hook(root, "PostToolUse", "s1", toolCall(i, "payment gateway timeout"))
      // The database opens, and the prompt's search, which reads the word index, fails.
      const db = newSqliteDatabase(join(folder(root), "memory.db"))
      db.exec("DROP TABLE observations_fts")
      db.close()
      hook(root, "UserPromptSubmit", "s1", {
        prompt: "why does the BROKEN-INDEX gateway time out? token=hunter2secret"
      })
      expect(readFileSync(join(folder(root), "hooks.log"), "utf8")).toContain("no such table")
      const spilled = readFileSync(join(folder(root), "memory.db.spill"), "latin1")
      expect(spilled).toContain("BROKEN-INDEX")
      expect(spilled).not.toContain("hunter2secret")
      // The next process records it: a prompt needs no word index.
      hook(root, "Stop", "s1", { last_assistant_message: "AFTER-BREAK" })
      expect(json(root, "status").hooks).toMatchObject({ notYetRecorded: 0, failures: 1 })
      const prompts = JSON.stringify(json(root, "audit", "--type", "PromptSubmitted"))
      expect(prompts).toContain("BROKEN-INDEX")
      expect(prompts).not.toContain("hunter2secret")
      // doctor rebuilds the index from the log; the memory is whole again.
      expect(cli(root, "doctor", "--repair").stdout).toMatch(/observations_fts[^\n]*rebuilt from the log/)
      expect(cli(root, "search", "gateway").stdout).toContain("payment gateway timeout 2")
      expect(cli(root, "verify").code).toBe(0)
    },
    180_000
  )

  const mountable = spawnSync("mount", ["--version"]).status === 0 && process.getuid?.() === 0

  /** Runs `use` on a project in a fresh 8 MiB tmpfs, unmounted after. */
  const onSmallDisk = (use: (root: string, mountPoint: string) => void) => {
    const mountPoint = tempFolder()
    expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint]).status).toBe(0)
    try {
      use(project(join(mountPoint, "p")), mountPoint)
    } finally {
      spawnSync("umount", [mountPoint])
    }
  }

  /** Fills the disk; returns the filler file, whose removal makes room again. */
  const fillDisk = (mountPoint: string): string => {
    const filler = join(mountPoint, "filler")
    const fd = openSync(filler, "w")
    try {
      for (;;) writeSync(fd, Buffer.alloc(16 * 1024, 1))
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC")
    } finally {
      closeSync(fd)
    }
    return filler
  }

  it.skipIf(!mountable)(
    "on a full disk (an 8 MiB tmpfs): no hook lost without a trace, and all recorded once there is room",
    () => {
      onSmallDisk((root, mountPoint) => {
        hook(root, "SessionStart", "s1", { source: "startup" })
        expect(existsSync(join(folder(root), "memory.db.spill"))).toBe(true)
        const filler = fillDisk(mountPoint)
        const calls = 40
        for (let i = 0; i < calls; i++) hook(root, "PostToolUse", "s1", toolCall(i, "DISK-FULL"))
        const full = json(root, "status")
        expect(full.hooks.notYetRecorded).toBe(calls)
        figures["hooks on a full disk"] = calls
        // Room again: the next process records them.
        rmSync(filler)
        const after = json(root, "status")
        expect(after.hooks).toMatchObject({ notYetRecorded: 0, failures: calls })
        expect(observed(root)).toBe(32)
        figures["full-disk hook calls recorded later with their events"] = observed(root)
        figures["full-disk hook calls counted only (spill full)"] = calls - 32
        figures["hook calls lost without a trace"] = calls - after.hooks.failures
        expect(readFileSync(join(folder(root), "hooks.log"), "utf8")).toMatch(/the spill file was full/)
        expect(cli(root, "verify").code).toBe(0)
      })
    },
    180_000
  )

  it.skipIf(!mountable)(
    "on a full disk that keeps the database from opening: each failure is counted (doctor), then recorded",
    () => {
      onSmallDisk((root, mountPoint) => {
        hook(root, "SessionStart", "s1", { source: "startup" })
        // A command closes the database: its WAL is gone, and opening it again needs room.
        expect(cli(root, "status").code).toBe(0)
        const filler = fillDisk(mountPoint)
        for (let i = 0; i < 5; i++) hook(root, "PostToolUse", "s1", toolCall(i, "NO-OPEN"))
        const doctor = cli(root, "doctor")
        expect(doctor.stdout).toMatch(/FAIL\s+hooks that could not record: 5 hook call\(s\)/)
        rmSync(filler)
        expect(json(root, "status").hooks).toMatchObject({ notYetRecorded: 0, failures: 5 })
        // What each hook observed was kept too, decided without the memory it could not open.
        expect(observed(root)).toBe(5)
        expect(cli(root, "doctor").code).toBe(0)
      })
    },
    180_000
  )
})
