/**
 * Crash safety: real processes killed with SIGKILL at random points during appends, replays and loop
 * iterations. After each kill `ralph-mem verify` must be clean and nothing committed may be lost.
 *
 * Randomness is seeded (RALPH_MEM_CRASH_SEED to replay a run; kill timing still depends on the machine).
 * A failure names the seed, the category and the iteration.
 *
 * The three categories run concurrently (each on its own databases) to keep the file fast on 2 cores;
 * the last test checks that at least 200 kills were actually delivered.
 */
import { type Criterion, monotonicUlid, newSqliteDatabase, type RalphMemEvent } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { execute, loopConfig, parseCriterion } from "../packages/loop/src/index.ts"
import { closeIteration } from "../packages/loop/src/iteration.ts"
import { openMemory } from "../packages/projections/src/index.ts"
import { loadSettings } from "../packages/settings/src/index.ts"
import { CLI, testRunState } from "./support/cli.ts"

const SEED = Number(process.env["RALPH_MEM_CRASH_SEED"] ?? Math.floor(Math.random() * 2 ** 32))
console.log(`crash.test.ts: seed ${SEED} (set RALPH_MEM_CRASH_SEED=${SEED} to repeat)`)

/** mulberry32: a small, good-enough seeded PRNG. */
const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const between = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1))

/** Every delivered kill (the child's exit was by our SIGKILL), by category. */
const kills = { appends: 0, replays: 0, loops: 0 }

// Our own temporary folders: the shared helper's afterEach would remove them under concurrent tests.
const folders: Array<string> = []
const tempFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), "ralph-mem-crash-"))
  folders.push(folder)
  return folder
}
afterAll(() => {
  for (const folder of folders.splice(0)) {
    rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  }
})

/**
 * Each category runs a fixed number of kills, each a few processes: minutes on a loaded 2-core machine, where
 * the three run beside each other and beside other suites.
 */
const CATEGORY_TIMEOUT_MS = 900_000

/** Runs one iteration; a failure says which seed, category and iteration it was. */
const step = async <A>(category: string, iteration: number, body: () => Promise<A>): Promise<A> => {
  try {
    return await body()
  } catch (error) {
    if (error instanceof Error) error.message = `[seed ${SEED}, ${category} iteration ${iteration}] ${error.message}`
    throw error
  }
}

interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** A started child with its output collected. */
const started = (child: ChildProcess) => {
  let stdout = ""
  let stderr = ""
  const listeners: Array<() => void> = []
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    for (const listener of listeners) listener()
  })
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<Exited>((resolve, reject) => {
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  /** Resolves once stdout has a line `matches` accepts (false if the child exited first). */
  const printedLine = (matches: (line: string) => boolean) =>
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (stdout.split("\n").some(matches)) resolve(true)
      }
      listeners.push(check)
      check()
      void exited.then(() => resolve(stdout.split("\n").some(matches)))
    })
  /** Resolves once stdout holds `line` (false if the child exited first). */
  const printed = (line: string) => printedLine((printedOne) => printedOne === line)
  return { child, exited, printed, printedLine }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const cli = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  started(spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", ...testRunState(), HOME: cwd, NO_COLOR: "1", RALPH_MEM_DB: "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })).exited

/** `ralph-mem verify --json`: must exit 0 with no findings; returns the report. */
const expectVerifyClean = async (dbPath: string, cwd: string) => {
  const result = await cli(["verify", "--json", "--db", dbPath], cwd)
  let report: { ok: boolean; events: number; findings: ReadonlyArray<unknown> } | undefined
  try {
    report = JSON.parse(result.stdout)
  } catch {
    report = undefined
  }
  expect(report?.findings, `verify printed: ${result.stdout}${result.stderr}`).toEqual([])
  expect(result.code, result.stdout + result.stderr).toBe(0)
  return report!
}

/**
 * The cheap check after every kill: the file is sound and positions run 1..n with no gap. A fresh
 * read-only connection each time: it leaves a crashed writer's WAL for the next writer to recover (it
 * cannot checkpoint), and SQLite's FTS5 integrity check on a long-lived connection can read a stale
 * cached index structure after other processes wrote and report corruption that is not there.
 */
const expectSound = (path: string) => {
  const db = newSqliteDatabase(path, { readonly: true, fileMustExist: true })
  try {
    expect(db.pragma("quick_check", { simple: true })).toBe("ok")
    const { n, low, high } = db.prepare(
      "SELECT count(*) AS n, coalesce(min(position), 1) AS low, coalesce(max(position), 0) AS high FROM events"
    ).get() as {
      n: number
      low: number
      high: number
    }
    expect({ low, high }).toEqual({ low: 1, high: n })
    return db.prepare("SELECT count(*) FROM events").pluck().get() as number
  } finally {
    db.close()
  }
}

/**
 * A git project for loops: check.js passes once `fixed` exists; agent.js changes a file (progress) and
 * works a little, so kills land mid-iteration too; fixer.js makes the check pass.
 */
const loopProject = () => {
  const root = tempFolder()
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, stdio: "ignore" })
  git("init", "-q")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "dev")
  writeFileSync(join(root, ".gitignore"), "pids\n")
  writeFileSync(join(root, "work.txt"), "original\n")
  writeFileSync(
    join(root, "check.js"),
    `if (!require("fs").existsSync("fixed")) { console.error("FAIL check > the thing is fixed"); process.exit(1) }`
  )
  writeFileSync(
    join(root, "agent.js"),
    `const fs = require("fs"); fs.appendFileSync("pids", process.pid + "\\n")
     fs.appendFileSync("work.txt", "agent " + process.pid + "\\n")
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.floor(Math.random() * 70))
     console.log("agent done")`
  )
  writeFileSync(join(root, "fixer.js"), `require("fs").writeFileSync("fixed", "yes"); console.log("fixed it")`)
  git("add", "-A")
  git("commit", "-qm", "init")
  return root
}

describe.concurrent("processes killed with SIGKILL at random points", () => {
  it(
    "appends: every number a writer printed (a committed append) is in the log, once, in order; verify stays clean",
    async () => {
      const random = prng(SEED ^ 0xa99e4d)
      const WRITER = join(import.meta.dirname, "support", "crash-writer.ts")
      const DATABASES = 5
      const ROUNDS_PER_DATABASE = 15 // 2 writers killed per round: 150 kills
      const VERIFY_EVERY = 5 // rounds, i.e. every 10 kills, and at each database's end
      const env = { PATH: process.env["PATH"] ?? "", NODE_COMPILE_CACHE: join(tempFolder(), "compile-cache") }
      let iteration = 0
      for (let d = 0; d < DATABASES; d++) {
        const folder = tempFolder()
        const path = join(folder, "memory.db")
        for (let round = 0; round < ROUNDS_PER_DATABASE; round++) {
          await step("appends", iteration++, async () => {
            // Two writers at once, each killed 5-60 ms after it is ready: kills land mid-transaction,
            // mid-projection, while waiting for the other's lock, and during checkpoints.
            const writers = [0, 1].map((k) => {
              const name = `d${d}r${round}w${k}`
              const delay = between(random, 5, 60)
              const run = started(
                spawn(process.execPath, [WRITER, path, name], { cwd: folder, env, stdio: ["ignore", "pipe", "pipe"] })
              )
              const killed = run.printed("ready").then(async (ready) => {
                expect(ready, `writer ${name} died before it was ready`).toBe(true)
                await sleep(delay)
                run.child.kill("SIGKILL")
                return run.exited
              })
              // Settled at once, so a writer that fails first never leaves the other's rejection unhandled.
              return { name, delay, run, killed: killed.then((exit) => ({ exit }), (error: unknown) => ({ error })) }
            })
            try {
              await Promise.all(writers.map((writer) => writer.killed))
            } finally {
              // On any failure, no writer may go on appending after this round.
              for (const writer of writers) writer.run.child.kill("SIGKILL")
            }
            for (const writer of writers) {
              const outcome = await writer.killed
              if ("error" in outcome) throw outcome.error
              const exit = outcome.exit
              // The writer never stops by itself: anything but our SIGKILL is a failure (an error on stderr).
              expect(exit.signal, `writer ${writer.name} exited ${exit.code}: ${exit.stderr}`).toBe("SIGKILL")
              kills.appends++
              const lines = exit.stdout.split("\n").filter((line) => line !== "")
              expect(lines[0]).toBe("ready")
              const printed = lines.slice(1).map(Number)
              expect(printed).toEqual(printed.map((_, n) => n))
              const stream = `session:${writer.name}`
              const reader = newSqliteDatabase(path, { readonly: true, fileMustExist: true })
              let contents: Array<{ version: number; content: string }>
              let projected: unknown
              try {
                contents = reader
                  .prepare(
                    `SELECT stream_version AS version, json_extract(payload, '$.content') AS content
                     FROM events WHERE stream_id = ? ORDER BY position`
                  )
                  .all(stream) as typeof contents
                projected = reader.prepare("SELECT count(*) FROM observations WHERE stream_id = ?").pluck().get(stream)
              } finally {
                reader.close()
              }
              // Committed = printed, plus at most the one append whose commit the kill beat to the print.
              expect(
                contents.length,
                `writer ${writer.name} printed ${printed.length} committed appends ` +
                  `(killed ${writer.delay} ms after ready)`
              )
                .toBeGreaterThanOrEqual(printed.length)
              expect(contents.length).toBeLessThanOrEqual(printed.length + 1)
              contents.forEach((row, n) => {
                expect(row.version).toBe(n + 1)
                expect(row.content.startsWith(`${writer.name} ${n}: `)).toBe(true)
              })
              // The read model committed with the log, in the same transaction.
              expect(projected).toBe(contents.length)
            }
            const events = expectSound(path)
            if (round % VERIFY_EVERY === VERIFY_EVERY - 1) {
              expect((await expectVerifyClean(path, folder)).events).toBe(events)
            }
          })
        }
      }
      expect(kills.appends).toBeGreaterThanOrEqual(150)
    },
    CATEGORY_TIMEOUT_MS
  )

  it(
    "replays: a killed replay never shows readers a half-built state, and leaves a database that verifies clean",
    async () => {
      const random = prng(SEED ^ 0x4e91a7)
      const folder = tempFolder()
      const path = join(folder, "memory.db")
      const SESSIONS = 40
      const PER_SESSION = 200
      const memory = Effect.runSync(openMemory({ path }))
      for (let s = 0; s < SESSIONS; s++) {
        const events: Array<RalphMemEvent> = [
          { _tag: "SessionStarted", sessionId: `s${s}`, projectPath: folder, source: "startup" },
          ...Array.from({ length: PER_SESSION - 1 }, (_, i): RalphMemEvent => ({
            _tag: "ObservationRecorded",
            sessionId: `s${s}`,
            kind: i % 5 === 0 ? "error" : "tool_use",
            toolName: "Bash",
            content: `session ${s} step ${i}: TypeError in src/module-${i % 30}.ts`,
            files: [`src/module-${i % 30}.ts`]
          }))
        ]
        Effect.runSync(memory.log.append(`session:s${s}`, events, { expectedVersion: "any", writer: "test" }))
      }
      memory.db.close()
      const EVENTS = SESSIONS * PER_SESSION
      const expected = JSON.stringify({
        events: EVENTS,
        observations: SESSIONS * (PER_SESSION - 1),
        sessions: SESSIONS
      })
      const reader = newSqliteDatabase(path, { fileMustExist: true })
      const snapshot = () =>
        JSON.stringify(
          reader.prepare(
            `SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM observations) AS observations,
                    (SELECT count(*) FROM sessions) AS sessions`
          ).get()
        )

      // One full run, to spread the kills over the whole of one (start-up included).
      const timed = performance.now()
      expect((await cli(["replay", "--db", path], folder)).code).toBe(0)
      let fullRunMs = performance.now() - timed

      // A replay that finishes before its kill is not counted: try until 30 kills landed.
      const KILLS = 30
      for (let i = 0; kills.replays < KILLS && i < 2 * KILLS; i++) {
        await step("replays", i, async () => {
          const delay = Math.round(fullRunMs * (0.05 + 0.85 * random()))
          const run = started(
            spawn(process.execPath, [CLI, "replay", "--db", path], {
              cwd: folder,
              env: { PATH: process.env["PATH"] ?? "", ...testRunState() },
              stdio: ["ignore", "pipe", "pipe"]
            })
          )
          const seen = new Set<string>()
          const until = performance.now() + delay
          while (performance.now() < until) {
            seen.add(snapshot())
            await sleep(5)
          }
          run.child.kill("SIGKILL")
          const exit = await run.exited
          if (exit.signal === "SIGKILL") kills.replays++
          else {
            expect(exit.code, `replay exited by itself: ${exit.stderr}`).toBe(0)
            // Faster than the timed run (the machine is less busy now): the next kills aim within less.
            fullRunMs /= 2
          }
          seen.add(snapshot())
          expect([...seen], `killed ${delay} ms after start`).toEqual([expected])
          expectSound(path)
          expect((await expectVerifyClean(path, folder)).events).toBe(EVENTS)
        })
      }
      reader.close()
      expect(kills.replays).toBeGreaterThanOrEqual(25)
    },
    CATEGORY_TIMEOUT_MS
  )

  it(
    "loop iterations: a killed ralph run leaves a loop status can load, verify clean, and resume can finish",
    async () => {
      const random = prng(SEED ^ 0x1009b5)
      const root = loopProject()
      const dbPath = join(root, ".ralph-mem", "memory.db")
      const ralph = (...args: Array<string>) => cli(["ralph", ...args], root)
      const loopRow = (loopId: string) => {
        const db = newSqliteDatabase(dbPath, { readonly: true, fileMustExist: true })
        try {
          return db.prepare("SELECT status, iterations FROM loop_runs WHERE loop_id = ?").get(loopId) as {
            status: string
            iterations: number
          } | undefined
        } finally {
          db.close()
        }
      }

      // A short loop that ends before its kill is not counted: runs go on until 30 kills landed.
      const KILLS = 30
      let resumes = 0
      let loopsCommitted = 0
      for (let i = 0; kills.loops < KILLS && i < 2 * KILLS; i++) {
        await step("loops", i, async () => {
          const delay = between(random, 20, 1_200)
          // Every fifth run is taken over by a new driver after its kill: a long loop, killed once it started.
          const takenOver = i % 5 === 4
          // Mostly long loops; some short ones, so kills also land around a loop's last iteration and its end.
          const maxIterations = takenOver ? 50 : [2, 3, 50, 50, 50][between(random, 0, 4)]!
          // Most delays count from the loop's start, so they land in its iterations however slowly this
          // machine starts a process; the others from the process's start, so some land in its start-up.
          const fromLoopStart = takenOver || random() < 0.75
          const run = started(
            spawn(process.execPath, [
              CLI,
              "ralph",
              "run",
              `crash loop ${i}`,
              "--agent",
              "node agent.js",
              "--criteria",
              "custom=node check.js",
              "--max-iterations",
              String(maxIterations)
            ], {
              cwd: root,
              env: { PATH: process.env["PATH"] ?? "", ...testRunState(), HOME: root, NO_COLOR: "1", RALPH_MEM_DB: "" },
              stdio: ["ignore", "pipe", "pipe"]
            })
          )
          if (fromLoopStart) await run.printedLine((line) => /^Ralph loop \w+:/.test(line))
          await Promise.race([sleep(delay), run.exited])
          run.child.kill("SIGKILL")
          const exit = await run.exited
          const delivered = exit.signal === "SIGKILL"
          // Killed, or else it ended by itself, and failed: its check never passes.
          if (delivered) kills.loops++
          else expect(exit.code, `ralph run exited by itself: ${exit.stdout}${exit.stderr}`).toBe(1)

          const context = `killed ${delay} ms after ${fromLoopStart ? "the loop's" : "the process's"} start ` +
            `(max ${maxIterations} iterations); it printed:\n${exit.stdout}${exit.stderr}`
          // What the run printed, it had committed first: its loop, and each iteration it reported.
          const loopId = exit.stdout.match(/^Ralph loop (\w+):/m)?.[1]
          const reported = [...exit.stdout.matchAll(/^iteration (\d+): (passed|failed)/gm)].map((m) => Number(m[1]))
          expect(loopId !== undefined || reported.length === 0, context).toBe(true)
          if (loopId === undefined) {
            // Killed before it said anything: there may be a loop or not, but status must load either way.
            const status = await ralph("status", "--json")
            if (loopsCommitted === 0 && status.code !== 0) {
              expect(status.stderr, context).toMatch(/there is no loop in this project/)
            } else expect(status.code, context + status.stderr).toBe(0)
            if (status.code === 0) loopsCommitted++
          } else {
            loopsCommitted++
            const status = await ralph("status", "--loop", loopId, "--json")
            expect(status.code, context + status.stderr).toBe(0)
            const state = JSON.parse(status.stdout)
            expect(state.loopId).toBe(loopId)
            expect(["running", "failed"], context).toContain(state.status)
            expect(state.iteration, context).toBeGreaterThanOrEqual(Math.max(0, ...reported))
            if (reported.length > 0) {
              expect(state.lastResults, context).toEqual([expect.objectContaining({ kind: "custom", passed: false })])
            }
            // The read model says the same as the log.
            expect(loopRow(loopId), context).toMatchObject({ status: state.status })
            // Every fifth kill: a new driver must be able to take the loop over and finish it.
            if (takenOver) {
              expect(state.status, context).toBe("running")
              const resumed = await ralph("resume", "--loop", loopId, "--agent", "node fixer.js", "--json")
              expect(
                resumed.code,
                `${context}\nresume of a loop at iteration ${state.iteration}/${maxIterations}: ` +
                  `${resumed.stdout}${resumed.stderr}`
              ).toBe(0)
              const ended = JSON.parse(resumed.stdout)
              // The fixer makes the check pass: success, unless no iteration was left, then a failure that says so.
              if (ended.status !== "success") {
                expect(ended, context).toMatchObject({
                  status: "failed",
                  endReason: expect.stringMatching(/max iterations/)
                })
              }
              expect(loopRow(loopId), context).toMatchObject({ status: ended.status })
              unlinkSync(join(root, "fixed"))
              resumes++
            }
          }
          await expectVerifyClean(dbPath, root)
        })
      }
      expect(kills.loops).toBeGreaterThanOrEqual(25)
      expect(resumes).toBeGreaterThanOrEqual(KILLS / 5)
      // The agents orphaned by the kills finish on their own soon after: wait, so the folder can go.
      const pids = existsSync(join(root, "pids"))
        ? readFileSync(join(root, "pids"), "utf8").split("\n").filter(Boolean).map(Number)
        : []
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      }
      for (let waited = 0; waited < 60_000 && pids.some(alive); waited += 50) await sleep(50)
    },
    CATEGORY_TIMEOUT_MS
  )
})

/**
 * Every append is atomic, so a kill can only land between two of them. Between a run's last permitted
 * iteration being recorded and the loop's LoopFailed / LoopSucceeded there is no outside event to kill
 * on reliably, so this builds that state with the driver's own steps (the same code `ralph run` runs),
 * stopping where the kill would: then a new driver must be able to end the loop.
 */
describe("a run killed after recording its last permitted iteration, before ending the loop", () => {
  it.each([
    { last: "failed", expected: { status: "failed", endReason: "max iterations (2) reached" } },
    { last: "passed", expected: { status: "success", endReason: null } }
  ])("ralph resume ends it when the last iteration $last", async ({ last, expected }) => {
    const root = loopProject()
    const memory = Effect.runSync(openMemory({ path: join(root, ".ralph-mem", "memory.db") }))
    const loopId = monotonicUlid()()
    const config = loopConfig(loadSettings({ projectRoot: root, env: { HOME: root } }).settings, {
      maxIterations: 2,
      criteria: [parseCriterion("custom=node check.js") as Criterion]
    })
    const writer = "cli:ralph-run"
    try {
      Effect.runSync(
        execute(memory, loopId, {
          _tag: "Start",
          loopId,
          goal: "end me",
          projectPath: root,
          driver: "external",
          config
        }, writer)
      )
      for (const iteration of [1, 2]) {
        const loop = Effect.runSync(execute(memory, loopId, { _tag: "BeginIteration" }, writer))
        if (iteration === 2 && last === "passed") writeFileSync(join(root, "fixed"), "yes")
        const closed = await Effect.runPromise(closeIteration(memory, loop, { writer }))
        expect(closed.passed).toBe(iteration === 2 && last === "passed")
      }
      // Here `ralph run` would append LoopFailed / LoopSucceeded: the kill lands first.
    } finally {
      memory.db.close()
    }
    const status = await cli(["ralph", "status", "--loop", loopId, "--json"], root)
    expect(JSON.parse(status.stdout)).toMatchObject({ status: "running", iteration: 2 })
    await expectVerifyClean(join(root, ".ralph-mem", "memory.db"), root)

    const resumed = await cli(["ralph", "resume", "--loop", loopId, "--agent", "node agent.js", "--json"], root)
    expect(resumed.stderr).toBe("")
    expect(resumed.code).toBe(0)
    expect(JSON.parse(resumed.stdout)).toMatchObject({ ...expected, iteration: 2 })
    await expectVerifyClean(join(root, ".ralph-mem", "memory.db"), root)
  })
})

describe("all categories", () => {
  it("delivered at least 200 SIGKILLs", () => {
    console.log(
      `crash.test.ts: seed ${SEED}; SIGKILLs delivered: ${JSON.stringify(kills)}, total ${
        kills.appends + kills.replays + kills.loops
      }`
    )
    expect(kills.appends + kills.replays + kills.loops).toBeGreaterThanOrEqual(200)
  })
})
