/**
 * A confirmed forget leaves no byte of the forgotten text anywhere under `.ralph-mem/` once no other
 * process reads the database: the log and read models, the WAL, backups, damaged copies, exports and
 * plans. Real hook processes write the memory; every file under the folder is searched for the bytes.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { spawnSync } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { writeFigures } from "./support/figures.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { cli, holdTransaction, json, memoryFolder as folder, project } from "./support/memory-project.ts"
import { maintenanceSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"

const PLANTED = "PANGOLIN-8842-ALBATROSS"

const hook = (root: string, event: string, session: string, fields: Record<string, unknown> = {}) => {
  const run = runHookProcess(event, payload(event, session, root, fields), { cwd: root })
  expect(run.code).toBe(0)
  return run
}

/** Every regular file under `.ralph-mem` that holds the bytes (as written, or as JSON escapes them). */
const filesHolding = (root: string, text: string): Array<string> => {
  const walk = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      const stat = lstatSync(path, { throwIfNoEntry: false })
      if (stat === undefined) return []
      return stat.isDirectory() ? walk(path) : stat.isFile() ? [path] : []
    })
  return walk(folder(root)).filter((path) => {
    try {
      return readFileSync(path).toString("latin1").includes(text)
    } catch {
      return false
    }
  })
}

/** The background maintenance a SessionEnd starts has taken its backup. */
const backupTaken = async (root: string) => {
  await maintenanceSettled(root)
  expect(readdirSync(join(folder(root), "backups")).length).toBeGreaterThan(0)
}

let scenarios = 0

afterAll(() => writeFigures("forget", { "forget scenarios": scenarios }))

describe("a confirmed forget", () => {
  it("takes a summary a later session's injection quoted (the injection records the summary's event)", {
    timeout: SETTLE_TEST_TIMEOUT_MS
  }, async () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "UserPromptSubmit", "s1", { prompt: `rename the ${PLANTED} module` })
    hook(root, "SessionEnd", "s1", { reason: "exit" })
    await backupTaken(root)
    // The next session is told the summary ("Goal: rename the ... module"), and its prompt finds it.
    expect(hook(root, "SessionStart", "s2", { source: "startup" }).stdout).toContain(PLANTED)
    hook(root, "UserPromptSubmit", "s2", { prompt: `what about ${PLANTED.toLowerCase()}` })
    const injected = json(root, "audit", "--type", "ContextInjected")
    const summaryId = json(root, "audit", "--type", "SessionSummarized")[0].eventId
    expect(injected.length).toBeGreaterThan(0)
    for (const injection of injected.filter((e: { payload: { text: string } }) => e.payload.text.includes(PLANTED))) {
      expect(injection.payload.sources).toContain(summaryId)
    }
    const promptId = json(root, "audit", "--type", "PromptSubmitted").find((e: { payload: { prompt: string } }) =>
      e.payload.prompt.includes("rename")
    ).eventId
    const forgot = json(root, "forget", promptId, "--confirm")
    expect(forgot.erasure).toMatchObject({ complete: true, backupsReplaced: true })
    expect(forgot.derived.map((d: { type: string }) =>
      d.type
    )).toEqual(
      expect.arrayContaining(["SessionSummarized", "ContextInjected"])
    )
    expect(filesHolding(root, PLANTED)).toEqual([])
    expect(cli(root, "verify").code).toBe(0)
  })

  it("by --query finds prompts, Claude's replies and observations recorded without a project", () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "UserPromptSubmit", "s1", { prompt: `the key is ${PLANTED}` })
    hook(root, "Stop", "s1", { last_assistant_message: `Noted: ${PLANTED} is the key.`, stop_hook_active: false })
    // A session whose start was never recorded: its observations have no project.
    hook(root, "PostToolUse", "orphan", {
      tool_name: "Bash",
      tool_input: { command: "cat notes" },
      tool_use_id: "t1",
      tool_response: { stdout: `seen ${PLANTED}` }
    })
    expect(filesHolding(root, PLANTED).length).toBeGreaterThan(0)
    const preview = json(root, "forget", "--query", PLANTED)
    expect(preview.chosen.map((c: { type: string }) => c.type).sort()).toEqual([
      "AssistantReplied",
      "ObservationRecorded",
      "PromptSubmitted"
    ])
    json(root, "forget", "--query", PLANTED, "--confirm")
    expect(filesHolding(root, PLANTED)).toEqual([])
    expect(cli(root, "verify").code).toBe(0)
  })

  it("of a failed command erases what its failure's row kept of the output: terms, digest and headline", () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "PostToolUseFailure", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test" },
      tool_use_id: "t1",
      error: `Exit code 1\n FAIL  src/${PLANTED}.test.ts > loads\nError: cannot open ${PLANTED}.db`
    })
    // The row keeps the headline as printed and the terms lowercased: both are looked for.
    const failureRows = () => {
      const db = newSqliteDatabase(join(folder(root), "memory.db"), { readonly: true })
      try {
        return db.prepare("SELECT terms, headline FROM failure_rows").all() as Array<
          { terms: string; headline: string }
        >
      } finally {
        db.close()
      }
    }
    const [row] = failureRows()
    expect(row?.headline).toContain(PLANTED)
    expect(JSON.parse(row!.terms)).toContain(`src/${PLANTED.toLowerCase()}.test.ts`)
    json(root, "forget", "--query", PLANTED, "--confirm")
    expect(failureRows()).toEqual([])
    expect(filesHolding(root, PLANTED)).toEqual([])
    expect(filesHolding(root, PLANTED.toLowerCase())).toEqual([])
    expect(cli(root, "verify").code).toBe(0)
  })

  it("deletes damaged copies (saying so) and scrubs exported files", () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "UserPromptSubmit", "s1", { prompt: `remember ${PLANTED}` })
    expect(cli(root, "decide", `Name the queue ${PLANTED}`, "--why", "it is unique").code).toBe(0)
    expect(cli(root, "export", "--format", "md").code).toBe(0)
    expect(cli(root, "export", "--format", "json", "--out", join(folder(root), "plans")).code).toBe(0)
    // A damaged copy, as a restore leaves it.
    mkdirSync(join(folder(root), "damaged"), { mode: 0o700 })
    writeFileSync(join(folder(root), "damaged", "memory-x.db"), readFileSync(join(folder(root), "memory.db")))
    writeFileSync(join(folder(root), "damaged", "memory-x.db-wal"), readFileSync(join(folder(root), "memory.db")))
    expect(filesHolding(root, PLANTED).length).toBeGreaterThanOrEqual(4)
    expect(cli(root, "forget", "--query", PLANTED).stdout).toMatch(/would also delete the 2 damaged database cop/)
    const forgot = cli(root, "forget", "--query", PLANTED, "--confirm")
    expect(forgot.stdout).toMatch(/Deleted 2 damaged database cop/)
    expect(forgot.stdout).toMatch(/\[forgotten\] in .*export/)
    expect(filesHolding(root, PLANTED)).toEqual([])
    expect(readdirSync(join(folder(root), "export")).length).toBeGreaterThan(0)
  })

  it("succeeds past files planted among the exports (huge, a FIFO, a link), scrubs the rest, names the others", () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "UserPromptSubmit", "s1", { prompt: `remember ${PLANTED}` })
    expect(cli(root, "export", "--format", "md").code).toBe(0)
    const exports = join(folder(root), "export")
    // What a cloned repository or an archive can bring in the folder: none of it costs disk.
    const huge = join(exports, "huge.bin")
    writeFileSync(huge, "")
    truncateSync(huge, 1024 * 1024 * 1024 + 1)
    // Under the limit, so read through; larger than one string can hold, so never read whole.
    const large = join(exports, "large.log")
    writeFileSync(large, "")
    truncateSync(large, 600 * 1024 * 1024)
    // Named with a terminal sequence (ESC [2J clears the screen), which the listing shows inert.
    const fifo = join(exports, "pipe\u001b[2J")
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
    symlinkSync("/dev/zero", join(exports, "zero"))
    // The text across the 1 MiB boundary the files are read in, and binary bytes that are not UTF-8 around it.
    const straddling = join(folder(root), "plans", "notes.bin")
    mkdirSync(join(folder(root), "plans"), { mode: 0o700 })
    const MiB = 1024 * 1024
    // What is forgotten is the prompt, as it was written.
    const prompt = `remember ${PLANTED}`
    const body = Buffer.alloc(2 * MiB + 100, 0xff)
    body.write(prompt, MiB - 5, "latin1")
    body.write(prompt, 2 * MiB + 40, "latin1")
    writeFileSync(straddling, body)
    const forgot = cli(root, "forget", "--query", PLANTED, "--confirm")
    expect(forgot.stderr).toBe("")
    expect(forgot.code).toBe(0)
    expect(forgot.stdout).toMatch(/^Forgot 1 event/m)
    expect(forgot.stdout).toContain(`not checked: ${huge} (${1024 * 1024 * 1024 + 1} bytes`)
    expect(forgot.stdout).toContain(`not checked: ${join(exports, "pipe\\x1b[2J")} (a FIFO`)
    expect(forgot.stdout).not.toMatch(/\u001b/)
    expect(forgot.stdout).toContain(`not checked: ${join(exports, "zero")} (a symbolic link`)
    expect(forgot.stdout).toContain(`[forgotten] in ${straddling}`)
    expect(forgot.stdout).not.toContain(`not checked: ${large}`)
    // Byte for byte, but for the text: the bytes around it are not turned into U+FFFD.
    const expected = Buffer.concat([
      Buffer.alloc(MiB - 5, 0xff),
      Buffer.from("[forgotten]"),
      Buffer.alloc(MiB + 45 - prompt.length, 0xff),
      Buffer.from("[forgotten]"),
      Buffer.alloc(60 - prompt.length, 0xff)
    ])
    expect(readFileSync(straddling).equals(expected)).toBe(true)
    expect(statSync(huge).size).toBe(1024 * 1024 * 1024 + 1)
    expect(statSync(large).size).toBe(600 * 1024 * 1024)
    expect(lstatSync(fifo).isFIFO()).toBe(true)
    // The same in --json, for a forget that finds more to take.
    hook(root, "UserPromptSubmit", "s1", { prompt: `and again ${PLANTED}` })
    writeFileSync(straddling, `and again ${PLANTED}`)
    const again = json(root, "forget", "--query", PLANTED, "--confirm")
    expect(again.erasure.filesNotChecked).toEqual(expect.arrayContaining([
      { file: huge, bytes: 1024 * 1024 * 1024 + 1, reason: expect.stringMatching(/larger than/) },
      { file: fifo, reason: expect.stringMatching(/FIFO/) },
      { file: join(exports, "zero"), reason: expect.stringMatching(/symbolic link/) }
    ]))
    expect(again.erasure.filesNotChecked).toHaveLength(3)
    expect(again.erasure.filesScrubbed).toEqual([straddling])
    // Read whole by the search below: the planted giants go first (they never held the text).
    rmSync(huge)
    rmSync(large)
    expect(filesHolding(root, PLANTED)).toEqual([])
    expect(cli(root, "verify").code).toBe(0)
  })

  it("while another process reads: the erasure is pending (status, doctor) and the next process ends it", async () => {
    scenarios++
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "UserPromptSubmit", "s1", { prompt: `remember ${PLANTED}` })
    for (let i = 0; i < 20; i++) {
      hook(root, "PostToolUse", "s1", {
        tool_name: "Bash",
        tool_input: { command: `echo ${i}` },
        tool_use_id: `t${i}`,
        tool_response: { stdout: `${i} ${PLANTED}` }
      })
    }
    const reader = await holdTransaction(join(folder(root), "memory.db"), "BEGIN")
    try {
      const forgot = cli(root, "forget", "--query", PLANTED, "--confirm")
      expect(forgot.code).toBe(0)
      expect(forgot.stdout).toMatch(/NOT YET ERASED FROM THE FILE/)
      // Honest: the text is still in the file while the reader holds its snapshot.
      expect(filesHolding(root, PLANTED).length).toBeGreaterThan(0)
      expect(json(root, "status").erasurePendingSince).toEqual(expect.any(String))
      expect(cli(root, "status").stdout).toMatch(/^forget\s+NOT YET ERASED/m)
      const doctor = cli(root, "doctor")
      expect(doctor.code).toBe(1)
      expect(doctor.stdout).toMatch(/FAIL\s+forget: the text forgotten at/)
      // A hook cannot finish it either while the reader is there.
      hook(root, "UserPromptSubmit", "s1", { prompt: "next" })
      expect(existsSync(join(folder(root), "memory.db.erasure-pending"))).toBe(true)
    } finally {
      await reader.release()
    }
    // The next process after the reader finishes the erasure.
    hook(root, "UserPromptSubmit", "s1", { prompt: "and the next" })
    expect(existsSync(join(folder(root), "memory.db.erasure-pending"))).toBe(false)
    expect(filesHolding(root, PLANTED)).toEqual([])
    expect(json(root, "status").erasurePendingSince).toBeNull()
    expect(cli(root, "doctor").code).toBe(0)
  })
})
