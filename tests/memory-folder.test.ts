/**
 * The memory folder as the real hooks and CLI leave it: everything ralph-mem writes under .ralph-mem is
 * 0700 folders and 0600 files; and a memory folder made read-only still answers every read command.
 */
import Database from "better-sqlite3"
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  chownSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  statSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, HOOK, runCli } from "./support/cli.ts"
import { writeFigures } from "./support/figures.ts"
import { payload, runHookProcess } from "./support/hook.ts"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const hook = (root: string, event: string, fields: Record<string, unknown>) => {
  const run = runHookProcess(event, payload(event, "s1", root, fields), { cwd: root })
  expect([run.code, run.stderr]).toEqual([0, ""])
  return run
}

/** A session with a note, an observation and a summary. */
const session = (root: string) => {
  hook(root, "SessionStart", { source: "startup" })
  const output = { stdout: "TokenExpiredError in refreshSession", stderr: "" }
  hook(root, "PostToolUse", { tool_name: "Bash", tool_input: { command: "npm test" }, tool_response: output })
  expect(runCli(["inject", "use pnpm, never npm"], { cwd: root }).code).toBe(0)
}

/** Every folder and file below `root` with its mode, never following a link. */
const modes = (root: string): Array<readonly [string, number, boolean]> =>
  readdirSync(root).flatMap((name) => {
    const path = join(root, name)
    const stats = lstatSync(path)
    const here = [path, stats.mode & 0o777, stats.isDirectory()] as const
    return stats.isDirectory() ? [here, ...modes(path)] : [here]
  })

describe("everything ralph-mem writes under .ralph-mem", () => {
  it("is 0700 folders and 0600 files: database, WAL, log, backups, damaged copies, exports, .gitignore", () => {
    const root = project()
    // A memory folder that came with a clone is 0755 (the umask of the checkout) with a readable config.
    mkdirSync(join(root, ".ralph-mem"), { mode: 0o755 })
    chmodSync(join(root, ".ralph-mem"), 0o755)
    writeFileSync(join(root, ".ralph-mem", "config.yaml"), "memory:\n  context_window: 200000\n")
    session(root)
    runHookProcess("UserPromptSubmit", "{ not json", { cwd: root })
    expect(runCli(["backup"], { cwd: root }).code).toBe(0)
    expect(runCli(["export"], { cwd: root }).code).toBe(0)
    expect(runCli(["export", "--format", "json"], { cwd: root }).code).toBe(0)
    // Damage: the next SessionStart sets the file aside in damaged/ and restores the backup.
    writeFileSync(join(root, ".ralph-mem", "memory.db"), "not a database any more ".repeat(300))
    hook(root, "SessionStart", { source: "startup" })
    const all = modes(join(root, ".ralph-mem")).filter(([path]) => !path.endsWith("config.yaml"))
    const names = all.map(([path]) => path.slice(root.length + 1))
    const written = ["memory.db", "memory.db-wal", "hooks.log", ".gitignore", "backups", "damaged", "export"]
    for (const expected of [...written, "export/beliefs.md", "export/beliefs.json"]) {
      expect(names).toContain(`.ralph-mem/${expected}`)
    }
    expect(names.some((name) => name.startsWith(".ralph-mem/backups/memory-"))).toBe(true)
    expect(names.some((name) => name.startsWith(".ralph-mem/damaged/memory-"))).toBe(true)
    expect(statSync(join(root, ".ralph-mem")).mode & 0o777).toBe(0o700)
    expect(all.filter(([, mode, folder]) => mode !== (folder ? 0o700 : 0o600))).toEqual([])
    writeFigures("fs", { "paths under .ralph-mem checked for 0700/0600": all.length + 1 })
  })
})

/**
 * Root ignores permissions: as root, the read-only check runs as `nobody`, with a hard link to this Node
 * (the one on PATH may sit in a folder only root can enter).
 */
const isRoot = process.getuid?.() === 0
const NOBODY = 65534

/**
 * The reader's own state home, where this machine records the memory as theirs (memory-origin.ts): as `nobody`,
 * the test run's state home (root's, 0700) cannot be read.
 */
const readerState = (root: string): string => {
  const db = new Database(join(root, ".ralph-mem", "memory.db"), { readonly: true })
  const id = (db.prepare("SELECT id FROM memory_identity").get() as { id: string }).id
  db.close()
  const state = tempFolder()
  mkdirSync(join(state, "ralph-mem", "memories"), { recursive: true })
  writeFileSync(join(state, "ralph-mem", "memories", id), "")
  for (const folder of [state, join(state, "ralph-mem"), join(state, "ralph-mem", "memories")]) chmodSync(folder, 0o755)
  return state
}

const asReader = (root: string) => {
  const state = readerState(root)
  let node = process.execPath
  if (isRoot) {
    const bin = tempFolder()
    chmodSync(bin, 0o755)
    node = join(bin, "node")
    try {
      linkSync(process.execPath, node)
    } catch {
      copyFileSync(process.execPath, node)
      chmodSync(node, 0o755)
    }
  }
  const spawn = (args: ReadonlyArray<string>, input?: string) => {
    const result = spawnSync(node, args, {
      cwd: root,
      input,
      env: { PATH: process.env["PATH"] ?? "", XDG_STATE_HOME: state, HOME: root, NO_COLOR: "1" },
      encoding: "utf8",
      ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {})
    })
    return { code: result.status, stdout: result.stdout, stderr: result.stderr }
  }
  return {
    cli: (...args: Array<string>) => spawn([CLI, ...args]),
    hook: (event: string, stdin: string) => spawn([HOOK, event], stdin)
  }
}

/** Makes the project the reader's (as root: nobody's), then the memory folder 0500 and its files 0400. */
const makeReadOnly = (root: string) => {
  if (isRoot) {
    const own = (path: string): void => {
      chownSync(path, NOBODY, NOBODY)
      if (lstatSync(path).isDirectory()) { for (const name of readdirSync(path)) own(join(path, name)) }
    }
    own(root)
  }
  const memory = join(root, ".ralph-mem")
  for (const name of readdirSync(memory)) if (name.startsWith("memory.db")) chmodSync(join(memory, name), 0o400)
  chmodSync(memory, 0o500)
}

describe("a read-only memory folder (0500, database 0400)", () => {
  const states = [["closed cleanly (no WAL)", false], ["with a hook's WAL beside it", true]] as const
  for (const [label, leaveWal] of states) {
    it(`${label}: status, search, timeline, doctor and verify work; writes fail clearly; nothing is chmodded`, () => {
      const root = project()
      session(root)
      if (leaveWal) hook(root, "UserPromptSubmit", { prompt: "what about the refresh token", prompt_id: "p2" })
      makeReadOnly(root)
      const reader = asReader(root)

      const status = reader.cli("status", "--json")
      expect([status.code, status.stderr]).toEqual([0, ""])
      expect(JSON.parse(status.stdout).events).toBeGreaterThanOrEqual(3)
      const search = reader.cli("search", "pnpm", "--json")
      expect([search.code, search.stderr]).toEqual([0, ""])
      expect(search.stdout).toContain("use pnpm, never npm")
      expect(reader.cli("search", "TokenExpiredError").stdout).toContain("refreshSession")
      expect(reader.cli("timeline").code).toBe(0)
      const doctor = reader.cli("doctor")
      expect(doctor.stdout).toContain("ok    database: integrity check passed")
      expect(doctor.stdout).toMatch(/FAIL {2}write access: .* read-only: status, search and the other read commands/)
      // FTS5's own index check writes: verify says it skipped it, and finds nothing wrong.
      const verified = reader.cli("verify")
      expect([verified.code, verified.stderr]).toEqual([0, ""])
      expect(verified.stdout).toMatch(/^skip {2}full-text indexes consistent\n {6}needs write access/m)
      expect(verified.stdout).not.toContain("FAIL")
      expect(JSON.parse(reader.cli("verify", "--json").stdout)).toMatchObject({
        ok: true,
        findings: [],
        skipped: [{ check: "full-text indexes consistent" }]
      })

      const write = reader.cli("inject", "one more note")
      expect(write.code).not.toBe(0)
      expect(write.stderr).toMatch(/readonly database/)
      const fields = { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "x" } }
      const failed = reader.hook("PostToolUse", payload("PostToolUse", "s2", root, fields))
      expect([failed.code, failed.stdout]).toEqual([0, ""])

      expect(statSync(join(root, ".ralph-mem")).mode & 0o777).toBe(0o500)
      expect(statSync(join(root, ".ralph-mem", "memory.db")).mode & 0o777).toBe(0o400)
    })
  }
})
