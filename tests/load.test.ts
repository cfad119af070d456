/**
 * Load: many hook writers appending to one database at once. Every event must be there exactly once,
 * no hook may fail, the log must stay gap-free and the projections must equal a fresh replay.
 *
 * 16 x 200 real `node dist/hook.mjs` processes would take minutes on a 2-core machine, so the main test
 * runs 16 OS processes that each run the real hook runner 200 times in-process (the same code path as
 * the hook entry: decode, privacy, open the memory, append with projections, close). A smaller test
 * proves the real hook entry under the same contention.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, HOOK } from "./support/cli.ts"
import { payload } from "./support/hook.ts"

const WRITER = join(import.meta.dirname, "support", "hook-load-writer.ts")
/** Each run's figures (not committed: a test run must leave the tree as it found it). */
const RESULTS = join(import.meta.dirname, "..", "test-results", "load.json")

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const dbOf = (root: string) => join(root, ".ralph-mem", "memory.db")

/** A clean environment: no RALPH_MEM_DB or user config from the machine running the tests. */
const cleanEnv = (root: string, extra: Record<string, string> = {}) => ({
  PATH: process.env["PATH"] ?? "",
  HOME: root,
  ...extra
})

interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const collect = (child: ChildProcess): Promise<Exited> => {
  let stdout = ""
  let stderr = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

const untilLine = (child: ChildProcess, line: string) =>
  new Promise<void>((resolve, reject) => {
    let seen = ""
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      if (seen.split("\n").includes(line)) {
        child.stdout!.off("data", onData)
        resolve()
      }
    }
    child.stdout!.on("data", onData)
    child.on("close", () => reject(new Error(`the writer exited before printing ${line}: ${seen}`)))
  })

const query = <T>(root: string, sql: string): Array<T> => {
  const db = newSqliteDatabase(dbOf(root), { readonly: true })
  try {
    return db.prepare(sql).all() as Array<T>
  } finally {
    db.close()
  }
}

const verifyCli = (root: string) =>
  collect(
    spawn(process.execPath, [CLI, "verify", "--json", "--db", dbOf(root)], {
      cwd: root,
      env: cleanEnv(root),
      stdio: ["ignore", "pipe", "pipe"]
    })
  )

/** What every load test asserts once its writers are done. */
const expectEveryEventOnce = async (root: string, expectedToolUseIds: ReadonlyArray<string>) => {
  const total = expectedToolUseIds.length
  // No hook failed: nothing in hooks.log (shown when there is: it says why), no HookFailed event.
  const log = join(root, ".ralph-mem", "hooks.log")
  expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("")
  expect(query(root, "SELECT type, count(*) AS n FROM events GROUP BY type")).toEqual([{
    type: "ObservationRecorded",
    n: total
  }])
  // Every tool call is there exactly once, under its idempotency key.
  const ids = query<{ id: string; key: string }>(
    root,
    "SELECT json_extract(payload, '$.toolUseId') AS id, idempotency_key AS key FROM events ORDER BY id"
  )
  expect(ids.map((r) => r.id)).toEqual([...expectedToolUseIds].sort())
  expect(new Set(ids.map((r) => r.key)).size).toBe(total)
  expect(query(root, "SELECT count(*) AS n, count(DISTINCT event_id) AS events FROM observations")).toEqual([{
    n: total,
    events: total
  }])
  // Positions 1..n with no gap; each stream's versions 1..m.
  expect(query(root, "SELECT count(*) AS n, min(position) AS low, max(position) AS high FROM events")).toEqual([{
    n: total,
    low: 1,
    high: total
  }])
  expect(
    query(
      root,
      "SELECT stream_id FROM events GROUP BY stream_id"
        + " HAVING count(*) != max(stream_version) OR min(stream_version) != 1"
    )
  ).toEqual([])
  // The CLI's verify: integrity, log invariants, FTS, and projections equal to a fresh replay.
  const verified = await verifyCli(root)
  expect(verified.code, verified.stdout + verified.stderr).toBe(0)
  const report = JSON.parse(verified.stdout)
  expect(report.findings).toEqual([])
  expect(report).toMatchObject({ ok: true, events: total })
}

describe("hook writers under load", () => {
  it(
    "16 hook processes append 200 events each to one database: each event once, no failure, projections equal a replay",
    async () => {
      const WRITERS = 16
      const EVENTS = 200
      const root = project()
      // Other work on the machine slows the writers down: the result records how busy it was.
      const loadAverage1m = Number(loadavg()[0]!.toFixed(2))
      const env = cleanEnv(root, { NODE_COMPILE_CACHE: join(tempFolder(), "compile-cache") })
      const writers = Array.from(
        { length: WRITERS },
        (_, w) =>
          spawn(process.execPath, [WRITER, root, String(w), String(EVENTS)], {
            cwd: root,
            env,
            stdio: ["pipe", "pipe", "pipe"]
          })
      )
      const exits = writers.map(collect)
      // Start-up (imports) is not part of the rate: every writer waits, loaded, for the same go.
      await Promise.all(writers.map((child) => untilLine(child, "ready")))
      for (const child of writers) child.stdin!.end("go\n")
      // The WAL, watched while they write: with a reader always in it, it used to grow without end.
      let largestWalBytes = 0
      const watch = setInterval(() => {
        const size = statSync(`${dbOf(root)}-wal`, { throwIfNoEntry: false })?.size ?? 0
        largestWalBytes = Math.max(largestWalBytes, size)
      }, 20)
      const results = await Promise.all(exits).finally(() => clearInterval(watch))

      for (const result of results) {
        expect(result.stderr).toBe("")
        expect(result.code).toBe(0)
      }
      const reports = results.map((r) =>
        JSON.parse(r.stdout.trim().split("\n").at(-1)!) as {
          count: number
          ms: number
          slowestMs: number
          outputs: number
          startedAt: number
          finishedAt: number
        }
      )
      expect(reports.map((r) => r.count)).toEqual(Array(WRITERS).fill(EVENTS))
      // PostToolUse injects nothing: a hook that printed something went a wrong way.
      expect(reports.map((r) => r.outputs)).toEqual(Array(WRITERS).fill(0))

      const expected = Array.from(
        { length: WRITERS },
        (_, w) => Array.from({ length: EVENTS }, (_, i) => `toolu_${w}_${i}`)
      ).flat()
      await expectEveryEventOnce(root, expected)
      // Checkpointed as it goes (`checkpointLargeWal`): a few times the 4 MiB past which it is truncated, for the
      // growth while a checkpoint waits for readers on a busy machine, not the 250 MB it reached without.
      expect(largestWalBytes).toBeLessThan(64 * 1024 * 1024)

      // Sustained: from the first writer's first append to the last writer's last one, all writers together.
      const seconds = (Math.max(...reports.map((r) => r.finishedAt)) - Math.min(...reports.map((r) => r.startedAt))) /
        1000
      const eventsPerSecond = Math.round((WRITERS * EVENTS) / seconds)
      const result = {
        writers: WRITERS,
        eventsPerWriter: EVENTS,
        seconds: Number(seconds.toFixed(2)),
        eventsPerSecond,
        slowestInvocationMs: Math.round(Math.max(...reports.map((r) => r.slowestMs))),
        largestWalBytes,
        date: new Date().toISOString(),
        node: process.versions.node,
        machine: { cores: availableParallelism(), loadAverage1mAtStart: loadAverage1m },
        note:
          "each event is one full PostToolUse hook invocation (open memory, decode, privacy, append with projections,"
          + " close), 16 OS processes on one database"
      }
      console.log(
        `load: ${WRITERS} writers x ${EVENTS} hook invocations in ${result.seconds} s = ${eventsPerSecond} events/s`
          + ` sustained (slowest writer ${Math.round(Math.max(...reports.map((r) => r.ms)))} ms, slowest invocation`
          + ` ${result.slowestInvocationMs} ms, largest WAL ${(largestWalBytes / 1024 / 1024).toFixed(1)} MiB)`
      )
      mkdirSync(join(RESULTS, ".."), { recursive: true })
      writeFileSync(`${RESULTS}.${process.pid}.tmp`, `${JSON.stringify(result, null, 2)}\n`)
      renameSync(`${RESULTS}.${process.pid}.tmp`, RESULTS)
    },
    180_000
  )

  it(
    "the real hook entry under contention: 8 concurrent lanes x 15 `node dist/hook.mjs PostToolUse` processes",
    async () => {
      const LANES = 8
      const RUNS = 15
      const root = project()
      const hookRun = (lane: number, i: number) => {
        const child = spawn(process.execPath, [HOOK, "PostToolUse"], {
          cwd: root,
          env: cleanEnv(root),
          stdio: ["pipe", "pipe", "pipe"]
        })
        child.stdin!.end(payload("PostToolUse", `real-${lane % 3}`, root, {
          tool_name: "Bash",
          tool_input: { command: `npm run lint -- lane-${lane}/${i}` },
          tool_response: { stdout: `lane ${lane} run ${i}: no problems`, stderr: "", interrupted: false },
          tool_use_id: `toolu_${lane}_${i}`
        }))
        return collect(child)
      }
      const lanes = Array.from({ length: LANES }, async (_, lane) => {
        const runs: Array<Exited> = []
        for (let i = 0; i < RUNS; i++) runs.push(await hookRun(lane, i))
        return runs
      })
      const runs = (await Promise.all(lanes)).flat()
      expect(runs.map((r) => [r.code, r.signal, r.stdout, r.stderr])).toEqual(
        Array(LANES * RUNS).fill([0, null, "", ""])
      )
      const expected = Array.from(
        { length: LANES },
        (_, lane) => Array.from({ length: RUNS }, (_, i) => `toolu_${lane}_${i}`)
      ).flat()
      await expectEveryEventOnce(root, expected)
    },
    120_000
  )
})
