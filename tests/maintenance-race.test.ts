/**
 * Two sessions that end in quick succession start two `ralph-mem maintain` processes on one database (each
 * SessionEnd hook starts one, detached). They run at once: both pack, both may take a backup. Neither may
 * fail, and a backup the folder lists must always be a whole one: a restore after damage takes the newest
 * listed backup that SQLite's check passes, and an empty or half-written file passes it or hides a good one.
 */
import { type RalphMemEvent, readOnlyConnection } from "@ralph-mem/events"
import { listBackups } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { open } from "../packages/projections/test/spec.ts"
import { CLI, testRunState } from "./support/cli.ts"
import { cli, memoryFolder, project } from "./support/memory-project.ts"

/** Enough that copying the database into a backup takes a while, so the runs overlap in it. */
const OBSERVATIONS = 20_000

/** A project whose memory holds OBSERVATIONS observations, a backup due at every maintenance, `keep` kept. */
const busyProject = (keep: number) => {
  const root = project()
  const memory = open(join(memoryFolder(root), "memory.db"))
  for (let batch = 0; batch < OBSERVATIONS / 1000; batch++) {
    const events = Array.from({ length: 1000 }, (_, i): RalphMemEvent => ({
      _tag: "ObservationRecorded",
      sessionId: `s${batch}`,
      kind: "tool_use",
      toolName: "Bash",
      content: `step ${batch}.${i}: ran the checks on src/file-${i}.ts`,
      files: [`src/file-${i}.ts`]
    }))
    Effect.runSync(memory.log.append(`session:s${batch}`, events, { expectedVersion: "any", writer: "test" }))
  }
  memory.db.close()
  for (const [key, value] of [["backup.interval", "1ms"], ["backup.keep", String(keep)]]) {
    expect(cli(root, "config", key!, value!).code).toBe(0)
  }
  return root
}

/** `ralph-mem maintain` as the SessionEnd hook starts it: its own process, on the project's database. */
const maintain = (root: string) => {
  const args = [CLI, "maintain", "--json", "--db", join(memoryFolder(root), "memory.db")]
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env["PATH"] ?? "",
      ...testRunState(),
      HOME: root,
      XDG_CONFIG_HOME: join(root, ".config"),
      NO_COLOR: "1"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
  type Exit = { code: number | null; signal: NodeJS.Signals | null; output: string }
  const exited = new Promise<Exit>((resolve, reject) => {
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, output }))
  })
  return { child: child as ChildProcess, exited }
}

/** What is wrong with a listed backup, if anything: it must be a database holding every event. */
const backupProblem = (path: string): string | undefined => {
  try {
    const db = readOnlyConnection(path)
    try {
      const events = db.prepare("SELECT count(*) FROM events").pluck().get()
      return events === OBSERVATIONS ? undefined : `${path} holds ${events} events of ${OBSERVATIONS}`
    } finally {
      db.close()
    }
  } catch (error) {
    // Rotated away by the other run between the listing and the opening: not listed any more.
    if (!existsSync(path)) return undefined
    return `${path} (${statSync(path).size} bytes) is no whole backup: ${(error as Error).message}`
  }
}

/** Looks at the listed backups over and over until `done` resolves; returns every problem seen. */
const watchBackups = async (databasePath: string, done: Promise<unknown>): Promise<Array<string>> => {
  let finished = false
  void done.finally(() => (finished = true))
  const problems = new Set<string>()
  while (!finished) {
    for (const backup of listBackups(databasePath)) {
      const problem = backupProblem(backup.path)
      if (problem !== undefined) problems.add(problem)
    }
    await sleep(1)
  }
  return [...problems]
}

/** The end state: only whole backups, 0600, at most `keep`, nothing else left in the folder, no failure logged. */
const expectSettled = (root: string, keep: number) => {
  const databasePath = join(memoryFolder(root), "memory.db")
  const backups = listBackups(databasePath)
  expect(backups.length).toBeGreaterThan(0)
  expect(backups.length).toBeLessThanOrEqual(keep)
  for (const backup of backups) {
    expect(backupProblem(backup.path)).toBeUndefined()
    expect(statSync(backup.path).mode & 0o777).toBe(0o600)
  }
  const names = backups.map((backup) => backup.path.split("/").at(-1))
  expect(readdirSync(join(memoryFolder(root), "backups")).sort()).toEqual(names.sort())
  const log = join(memoryFolder(root), "hooks.log")
  expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("")
  const verify = cli(root, "verify", "--json")
  expect(verify.code, verify.stdout + verify.stderr).toBe(0)
}

describe("two maintenance runs on one database at once", () => {
  it("both succeed, and the backups folder only ever lists whole backups", { timeout: 600_000 }, async () => {
    const keep = 2
    const root = busyProject(keep)
    const databasePath = join(memoryFolder(root), "memory.db")
    for (let round = 0; round < 3; round++) {
      const runs = [maintain(root), maintain(root)]
      const all = Promise.all(runs.map((run) => run.exited))
      const [problems, exits] = await Promise.all([watchBackups(databasePath, all), all])
      for (const exit of exits) {
        expect(exit.code, exit.output).toBe(0)
        // A backup the other run took a moment ago can make one not due yet.
        const { backup } = JSON.parse(exit.output)
        if (backup !== null) expect(backup).toMatch(/backups\/memory-.*\.db$/)
      }
      expect(problems, `round ${round}`).toEqual([])
    }
    expectSettled(root, keep)
  })

  it("a run killed while it takes its backup leaves no half backup listed", { timeout: 600_000 }, async () => {
    const keep = 3
    const root = busyProject(keep)
    const databasePath = join(memoryFolder(root), "memory.db")
    const backups = join(memoryFolder(root), "backups")
    // One whole backup first, so a kill that lands early still leaves something to restore from.
    expect((await maintain(root).exited).code).toBe(0)
    let killedMidway = 0
    for (let attempt = 0; killedMidway < 3 && attempt < 20; attempt++) {
      const before = new Set(readdirSync(backups))
      const run = maintain(root)
      let ended = false
      void run.exited.then(() => (ended = true))
      // Killed as soon as its backup's file appears, whatever the file is called: the copy is under way.
      while (!ended && readdirSync(backups).every((name) => before.has(name))) await sleep(1)
      run.child.kill("SIGKILL")
      if ((await run.exited).signal === "SIGKILL") killedMidway++
      const problems = listBackups(databasePath).flatMap((backup) => backupProblem(backup.path) ?? [])
      expect(problems, `attempt ${attempt}`).toEqual([])
    }
    expect(killedMidway).toBe(3)
    // The next run takes a whole backup and clears what the killed ones left.
    expect((await maintain(root).exited).code).toBe(0)
    expectSettled(root, keep)
  })
})
