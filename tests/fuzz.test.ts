/**
 * Fuzzing the hook entry and the CLI as Claude Code and users run them: real processes, generated
 * hostile input (malformed JSON, wrong types, missing fields, 10 MB outputs, invalid UTF-8, binary,
 * 10,000 levels of nesting, FTS syntax, path traversal), real databases.
 *
 * Hooks: every invocation exits 0 with nothing on stderr and nothing or valid hook JSON on stdout;
 * every refused input leaves exactly one logged reason and one HookFailed event; every accepted input
 * leaves its events, appended whole; the database verifies afterwards.
 * CLI: every argument vector exits 0 or 1 without a stack trace, and leaves the databases valid.
 *
 * Reproduce a run with RALPH_MEM_FUZZ_SEED=<seed> (printed in every failure).
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import type Database from "better-sqlite3"
import { spawn } from "node:child_process"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { CLI, HOOK, testRunState } from "./support/cli.ts"
import {
  type CliCase,
  type Expectation,
  expectationOf,
  generateCliCases,
  generateHookCases,
  type HookCase,
  HOOKS,
  ignoredHookCases,
  Rng
} from "./support/fuzz-payloads.ts"
import { removeWhenSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"

const SEED = Number(process.env["RALPH_MEM_FUZZ_SEED"] ?? 0x5eed2026) >>> 0
const PROJECTS = 4
const PER_PROJECT = 250
const CLI_CASES = 120
/** Concurrent processes: enough to keep two cores busy, and to make hooks of one project overlap. */
const WIDTH = 4

// ---------------------------------------------------------------------------------------------
// Processes.

interface Ran {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
  readonly spawnError?: string
}

const runProcess = (
  args: ReadonlyArray<string>,
  options: { cwd: string; env: Record<string, string>; stdin?: Buffer; timeoutMs: number }
) =>
  new Promise<Ran>((resolve) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(process.execPath, args, {
        cwd: options.cwd,
        env: options.env,
        stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"]
      })
    } catch (error) {
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, spawnError: String(error) })
      return
    }
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, options.timeoutMs)
    child.stdout!.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr!.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", (error) => {
      clearTimeout(timer)
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut, spawnError: String(error) })
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        timedOut
      })
    })
    if (options.stdin !== undefined) {
      child.stdin!.on("error", () => undefined) // a hook may stop reading early: that is its business
      child.stdin!.end(options.stdin)
    }
  })

const pool = async <T, R>(items: ReadonlyArray<T>, width: number, work: (item: T) => Promise<R>): Promise<Array<R>> => {
  const results: Array<R> = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker))
  return results
}

const shuffled = <T>(items: ReadonlyArray<T>, rng: Rng): Array<T> => {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text)
/** A Node or V8 stack frame, as an uncaught error prints it. */
const STACK_FRAME = /^\s+at .*(?:\(.*:\d+:\d+\)|:\d+:\d+\)?$|node:internal|<anonymous>)/m

// ---------------------------------------------------------------------------------------------
// Databases.

const dbOf = (project: string) => join(project, ".ralph-mem", "memory.db")

const withDb = <A>(path: string, use: (db: Database.Database) => A): A => {
  const db = newSqliteDatabase(path, { readonly: true, fileMustExist: true })
  try {
    return use(db)
  } finally {
    db.close()
  }
}

const counts = (rows: ReadonlyArray<unknown>): Record<string, number> =>
  Object.fromEntries((rows as Array<{ key: string | null; n: number }>).map((r) => [String(r.key), r.n]))

/**
 * Problems of a database: SQLite integrity, payloads that are not JSON, batches not appended whole, and
 * `ralph-mem verify`.
 */
const databaseProblems = async (path: string, env: Record<string, string>, cwd: string): Promise<Array<string>> => {
  const problems = withDb(path, (db) => {
    const found: Array<string> = []
    const integrity = (db.pragma("integrity_check") as Array<{ integrity_check: string }>).map((r) => r.integrity_check)
    if (integrity.join() !== "ok") found.push(`PRAGMA integrity_check: ${clip(integrity.join("; "))}`)
    const notJson = db.prepare("SELECT count(*) FROM events WHERE json_valid(payload) = 0 OR json_valid(metadata) = 0")
      .pluck().get() as number
    if (notJson > 0) found.push(`${notJson} event rows hold a payload or metadata that is not JSON`)
    const torn = db
      .prepare(
        `SELECT json_extract(metadata, '$.correlationId') AS c, count(DISTINCT stream_id) AS streams,
                max(stream_version) - min(stream_version) + 1 - count(*) AS gap
         FROM events WHERE json_extract(metadata, '$.correlationId') IS NOT NULL
         GROUP BY c HAVING streams != 1 OR gap != 0 LIMIT 5`
      )
      .all()
    if (torn.length > 0) {
      found.push(`invocations whose events are not one contiguous batch in one stream: ${JSON.stringify(torn)}`)
    }
    return found
  })
  const verify = await runProcess([CLI, "verify", "--json", "--db", path], { cwd, env, timeoutMs: 120_000 })
  try {
    const report = JSON.parse(verify.stdout) as {
      ok: boolean
      findings: ReadonlyArray<{ check: string; detail: string }>
    }
    if (!report.ok) {
      problems.push(`ralph-mem verify: ${report.findings.map((f) => `${f.check}: ${clip(f.detail, 400)}`).join(" | ")}`)
    }
    if ((verify.code === 0) !== report.ok) problems.push(`ralph-mem verify exited ${verify.code} with ok=${report.ok}`)
  } catch {
    problems.push(
      `ralph-mem verify --json printed no report (exit ${verify.code}): ${clip(verify.stderr || verify.stdout)}`
    )
  }
  return problems
}

// ---------------------------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), "ralph-mem-fuzz-"))
const projects = Array.from({ length: PROJECTS }, (_, i) => {
  const project = join(work, `project-${i}`)
  mkdirSync(join(project, ".git"), { recursive: true })
  return project
})
const hookHome = join(work, "hook-home")
const cliHome = join(work, "cli-home")
mkdirSync(hookHome)
mkdirSync(cliHome)
const baseEnv = { PATH: process.env["PATH"] ?? "", GIT_CEILING_DIRECTORIES: work, TZ: "UTC", ...testRunState() }

afterAll(async () => {
  if (process.env["RALPH_MEM_FUZZ_KEEP"] === "1") return console.log(`fuzz: kept ${work}`)
  // SessionEnd starts maintenance in the background, which may still be writing.
  await removeWhenSettled(work)
}, SETTLE_TEST_TIMEOUT_MS)

const header = (what: string) => `fuzz seed ${SEED} (rerun with RALPH_MEM_FUZZ_SEED=${SEED}): ${what}`
const list = (problems: ReadonlyArray<string>, max = 40) =>
  problems.length <= max ? [...problems] : [...problems.slice(0, max), `… and ${problems.length - max} more`]

describe("fuzzing the hook entry and the CLI", () => {
  it(
    `feeds ${
      PROJECTS * PER_PROJECT
    }+ generated payloads to every hook: exit 0, valid output, every refusal logged, valid databases`,
    async () => {
      const started = Date.now()
      const cases = generateHookCases({ seed: SEED, projects, perProject: PER_PROJECT })
      const expectations = new Map<HookCase, Expectation>()
      for (let p = 0; p < PROJECTS; p++) {
        const toolKeys = new Set<string>()
        for (const c of cases.filter((x) => x.project === p)) expectations.set(c, expectationOf(c, toolKeys))
      }
      expect(cases.length).toBeGreaterThanOrEqual(1000)
      for (const hook of HOOKS) expect(cases.filter((c) => c.hook === hook).length, hook).toBeGreaterThanOrEqual(100)

      const problems: Array<string> = []
      const note = (c: HookCase, what: string) =>
        problems.push(`#${c.id} project ${c.project} ${c.hook} [${c.category}] ${c.description}: ${what}`)
      const env = { ...baseEnv, HOME: hookHome }

      const order = shuffled(cases, new Rng(SEED ^ 0x51ed))
      const runs = await pool(
        order,
        WIDTH,
        (c) => runProcess([HOOK, c.hook], { cwd: projects[c.project]!, env, stdin: c.stdin, timeoutMs: 60_000 })
      )
      const ranFor = (Date.now() - started) / 1000
      order.forEach((c, i) => {
        const run = runs[i]!
        const expected = expectations.get(c)!
        if (run.spawnError !== undefined) {
          return note(c, `could not start: ${run.spawnError}`)
        }
        if (run.timedOut) return note(c, "timed out after 60 s")
        if (run.code !== 0 || run.signal !== null) note(c, `exit code ${run.code}, signal ${run.signal}`)
        if (run.stderr !== "") note(c, `printed to stderr: ${clip(run.stderr)}`)
        if (run.stdout === "") return
        if (expected.kind === "rejected") {
          return note(c, `refused input (${expected.why}) but printed ${clip(run.stdout)}`)
        }
        let output: unknown
        try {
          output = JSON.parse(run.stdout)
        } catch {
          return note(c, `stdout is not JSON: ${clip(run.stdout)}`)
        }
        const o = output as Record<string, unknown>
        const keys = typeof output === "object" && output !== null && !Array.isArray(output) ? Object.keys(o) : []
        const hso = o["hookSpecificOutput"] as Record<string, unknown> | undefined
        const validShape = keys.length > 0 &&
          keys.every((k) => ["hookSpecificOutput", "decision", "reason", "systemMessage"].includes(k)) &&
          (hso === undefined || (hso["hookEventName"] === c.hook && typeof hso["additionalContext"] === "string")) &&
          (o["decision"] === undefined || (o["decision"] === "block" && typeof o["reason"] === "string"))
        if (!validShape || run.stdout.trimEnd().includes("\n")) {
          note(c, `stdout is not one hook output object: ${clip(run.stdout)}`)
        }
      })

      // The unhandled event names: silent, and nothing created (checked one by one, so the culprit is named).
      const idle = join(work, "idle-project")
      mkdirSync(join(idle, ".git"), { recursive: true })
      for (const c of ignoredHookCases(idle)) {
        const run = await runProcess([HOOK, c.hook], { cwd: idle, env, stdin: c.stdin, timeoutMs: 30_000 })
        if (run.code !== 0 || run.signal !== null || run.stdout !== "" || run.stderr !== "") {
          problems.push(
            `${c.description}: exit ${run.code}, stdout ${clip(JSON.stringify(run.stdout))}, stderr ${
              clip(JSON.stringify(run.stderr))
            }`
          )
        }
        if (existsSync(join(idle, ".ralph-mem"))) {
          const log = existsSync(join(idle, ".ralph-mem", "hooks.log"))
            ? readFileSync(join(idle, ".ralph-mem", "hooks.log"), "utf8").trim()
            : ""
          problems.push(
            `${c.description} is not a hook ralph-mem handles, yet it created .ralph-mem/ (memory.db: ${
              existsSync(dbOf(idle))
            }; hooks.log: ${clip(log)})`
          )
          rmSync(join(idle, ".ralph-mem"), { recursive: true, force: true })
        }
      }

      // Nothing outside the projects: a payload's cwd or path names no folder for ralph-mem to create.
      const strays = readdirSync(work).filter((f) => !/^(project-\d+|hook-home|cli-home|idle-project)$/.test(f))
      if (strays.length > 0) {
        const created = strays.flatMap((f) =>
          readdirSync(join(work, f), { recursive: true, encoding: "utf8" }).filter((g) => g.endsWith("memory.db")).map((
            g
          ) => `<work>/${f}/${g}`)
        )
        const named = cases.filter((c) => c.category === "nonexistent-cwd").map((c) =>
          `#${c.id} ${c.hook}: ${c.description}`
        )
        problems.push(
          `hooks created folders and databases outside every project (${
            clip(created.join(", ") || strays.join(", "), 600)
          }), where these payloads' cwd named a folder that did not exist: ${named.join("; ")}`
        )
      }

      // The accounting, per project and hook.
      const tally: Record<string, number> = {}
      const bump = (key: string) => (tally[key] = (tally[key] ?? 0) + 1)
      for (let p = 0; p < PROJECTS; p++) {
        const project = projects[p]!
        const mine = cases.filter((c) => c.project === p)
        const logPath = join(project, ".ralph-mem", "hooks.log")
        const lines = existsSync(logPath) ? readFileSync(logPath, "utf8").split("\n").filter((l) => l !== "") : []
        const logged: Record<string, number> = {}
        const reasons = new Map<string, Map<string, number>>()
        for (const line of lines) {
          let entry: { time?: unknown; hook?: unknown; reason?: unknown }
          try {
            entry = JSON.parse(line) as typeof entry
          } catch {
            problems.push(`project ${p}: hooks.log line is not JSON: ${clip(line)}`)
            continue
          }
          if (
            typeof entry.reason !== "string" || entry.reason === "" || typeof entry.time !== "string" ||
            typeof entry.hook !== "string"
          ) {
            problems.push(`project ${p}: hooks.log line without a time, hook and reason: ${clip(line)}`)
            continue
          }
          logged[entry.hook] = (logged[entry.hook] ?? 0) + 1
          const reason = entry.reason.replace(/\d+/g, "N").slice(0, 160)
          const of = reasons.get(entry.hook) ?? new Map<string, number>()
          reasons.set(entry.hook, of.set(reason, (of.get(reason) ?? 0) + 1))
        }
        if (!existsSync(dbOf(project))) {
          problems.push(`project ${p}: no database after ${mine.length} hook invocations`)
          continue
        }
        const { written, failed, perType, perSession } = withDb(dbOf(project), (db) => ({
          written: counts(
            db.prepare(
              `SELECT json_extract(metadata, '$.writer') AS key,
                  count(DISTINCT json_extract(metadata, '$.correlationId')) AS n
           FROM events WHERE type != 'HookFailed' AND json_extract(metadata, '$.writer') LIKE 'hook:%' GROUP BY key`
            ).all()
          ),
          failed: counts(
            db.prepare(
              `SELECT json_extract(payload, '$.hook') AS key, count(*) AS n
               FROM events WHERE type = 'HookFailed' GROUP BY key`
            ).all()
          ),
          perType: counts(db.prepare("SELECT type AS key, count(*) AS n FROM events GROUP BY type").all()),
          perSession: counts(
            db.prepare(
              `SELECT json_extract(metadata, '$.writer') || ' ' || stream_id AS key,
                  count(DISTINCT json_extract(metadata, '$.correlationId')) AS n
           FROM events WHERE type != 'HookFailed' AND json_extract(metadata, '$.writer') LIKE 'hook:%' GROUP BY key`
            ).all()
          )
        }))
        /** The reasons logged for a hook, the unexpected ones (not a refused input) first. */
        const reasonsOf = (hook: string) => {
          const all = [...(reasons.get(hook) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1])
          const unexpected = all.filter(([r]) => !r.startsWith("malformed hook input")).map(([r, n]) =>
            `${n}× ${JSON.stringify(r)}`
          )
          return `unexpected reasons: ${clip(unexpected.join("; ") || "none", 600)}; all: ${
            clip(all.map(([r, n]) => `${n}× ${JSON.stringify(r)}`).join("; "), 300)
          }`
        }
        /** The sessions of a hook whose recorded invocations are outside what their inputs allow, with those inputs. */
        const suspects = (hook: string) => {
          const expected = new Map<string, Array<HookCase>>()
          for (const c of mine.filter((x) => x.hook === hook)) {
            const e = expectations.get(c)!
            if (e.kind === "rejected" || e.sessionId === undefined) continue
            const stream = `hook:${hook} session:${Buffer.from(e.sessionId, "utf8").toString("utf8")}`
            expected.set(stream, [...(expected.get(stream) ?? []), c])
          }
          const out: Array<string> = []
          for (const [stream, of] of expected) {
            const must = of.filter((c) => {
              const e = expectations.get(c)!
              return e.kind === "valid" && e.writes
            }).length
            const may = of.filter((c) => expectations.get(c)!.kind === "either").length
            const got = perSession[stream] ?? 0
            if (got < must || got > must + may) {
              out.push(
                `${clip(stream, 80)}: ${must} (+${may}) expected, ${got} recorded; inputs: ${
                  of.map((c) => `#${c.id} [${c.category}] ${c.description}`).join(" / ")
                }`
              )
            }
          }
          return out.join(" || ") || "no session differs"
        }
        for (const hook of HOOKS) {
          const of = mine.filter((c) => c.hook === hook)
          const kinds = of.map((c) => expectations.get(c)!)
          const rejected = kinds.filter((e) => e.kind === "rejected").length
          const either = kinds.filter((e) => e.kind === "either").length
          const writes = kinds.filter((e) => e.kind === "valid" && e.writes).length
          // A cwd naming a missing folder may have sent the invocation elsewhere: the stray check above reports that.
          const mayVanish = of.filter((c) => c.category === "nonexistent-cwd").length
          const logs = logged[hook] ?? 0
          const wrote = written[`hook:${hook}`] ?? 0
          const hookFailed = failed[hook] ?? 0
          const where = `project ${p}, ${hook}`
          if (logs < rejected || logs > rejected + either) {
            problems.push(
              `${where}: ${rejected} refused inputs (+${either} that may be refused) ` +
                `but ${logs} reasons in hooks.log [${reasonsOf(hook)}]`
            )
          }
          if (hookFailed !== logs) {
            problems.push(`${where}: ${logs} reasons in hooks.log but ${hookFailed} HookFailed events`)
          }
          const accounted = wrote + logs
          const total = writes + rejected + either
          if (accounted > total || accounted < total - mayVanish || wrote < writes || wrote > writes + either) {
            problems.push(
              `${where}: ${writes} accepted inputs that must record events (+${either} that may) ` +
                `but ${wrote} invocations recorded events, ${logs} logged [${reasonsOf(hook)}] ` +
                `[by session: ${clip(suspects(hook), 1500)}]`
            )
          }
        }
        for (const [key, n] of Object.entries(logged)) {
          if (!(HOOKS as ReadonlyArray<string>).includes(key)) {
            problems.push(`project ${p}: ${n} hooks.log lines for unknown hook ${key}`)
          }
        }
        for (const problem of await databaseProblems(dbOf(project), { ...baseEnv, HOME: cliHome }, project)) {
          problems.push(`project ${p}: ${problem}`)
        }
        for (const [type, n] of Object.entries(perType)) tally[`events.${type}`] = (tally[`events.${type}`] ?? 0) + n
      }

      for (const c of cases) {
        const e = expectations.get(c)!
        bump(`category.${c.category}`)
        bump(`hook.${c.hook}`)
        bump(`expect.${e.kind === "valid" ? (e.writes ? "valid" : "valid-no-events") : e.kind}`)
      }
      console.log(
        `fuzz hooks: seed ${SEED}, ${cases.length} invocations in ${ranFor.toFixed(1)} s (${WIDTH} at a time), + ${
          ignoredHookCases(idle).length
        } unhandled event names and the checks: ${((Date.now() - started) / 1000).toFixed(1)} s\n${
          JSON.stringify(tally)
        }`
      )
      expect(list(problems), header(`${problems.length} problem(s)`)).toEqual([])
    },
    300_000
  )

  it(
    `runs ${CLI_CASES} generated argument vectors through the CLI: exit 0 or 1, no stack trace, databases still valid`,
    async () => {
      const started = Date.now()
      const directory = join(work, "a-directory")
      mkdirSync(join(directory, "inside"), { recursive: true })
      const junk = {
        [join(work, "junk.txt")]: Buffer.from("definitely not sqlite\n".repeat(500)),
        [join(work, "junk.bin")]: new Rng(SEED).bytes(64 * 1024),
        [join(work, "fake.db")]: Buffer.concat([Buffer.from("SQLite format 3\u0000"), Buffer.alloc(8192, 0x5a)])
      }
      for (const [path, bytes] of Object.entries(junk)) {
        writeFileSync(path, bytes)
        chmodSync(path, 0o644)
      }
      const scratch = join(work, "scratch")
      const outside = join(work, "no-project")
      mkdirSync(scratch)
      mkdirSync(outside)
      const cases = generateCliCases(SEED, PROJECTS, { directory, junk: Object.keys(junk), scratch }, CLI_CASES)
      const env = { ...baseEnv, HOME: cliHome, NO_COLOR: "1", TERM: "dumb" }
      const problems: Array<string> = []
      const note = (c: CliCase, what: string) => problems.push(`#${c.id} ${c.description}: ${what}`)

      // What the hook fuzzing left behind is not the CLI's doing: a verify finding present before its runs is
      // reported there.
      const before = new Map<string, ReadonlyArray<string>>()
      for (const path of projects.map(dbOf)) {
        if (existsSync(path)) {
          before.set(path, await databaseProblems(path, env, work))
        }
      }

      const runs = await pool(
        cases,
        WIDTH,
        (c) => runProcess([CLI, ...c.args], { cwd: c.cwd === -1 ? outside : projects[c.cwd]!, env, timeoutMs: 60_000 })
      )
      const exits: Record<string, number> = {}
      cases.forEach((c, i) => {
        const run = runs[i]!
        exits[String(run.code)] = (exits[String(run.code)] ?? 0) + 1
        if (run.spawnError !== undefined) {
          return note(c, `could not start: ${run.spawnError}`)
        }
        if (run.timedOut) return note(c, "timed out after 60 s")
        if ((run.code !== 0 && run.code !== 1) || run.signal !== null) {
          note(c, `exit code ${run.code}, signal ${run.signal}; stderr: ${clip(run.stderr)}`)
        }
        const frame = STACK_FRAME.exec(run.stderr) ?? STACK_FRAME.exec(run.stdout)
        if (frame !== null) note(c, `printed a stack trace (${frame[0].trim()}): ${clip(run.stderr || run.stdout)}`)
        if (run.code === 1 && run.stderr.trim() === "") note(c, "exited 1 without saying why on stderr")
      })

      // A file that is not a database is never touched (contents, mode, no -wal/-shm beside it), except
      // by `doctor --repair`, which may set it aside intact (in damaged/) and put a new database in its place.
      const repairedJunk: Array<string> = []
      for (const [path, bytes] of Object.entries(junk)) {
        const targeting = cases.filter((c) => c.args.some((a) => a === path || a === `--db=${path}`))
        const repairs = targeting.filter((c) => c.args.includes("doctor") && c.args.includes("--repair"))
        const culprits = () => targeting.filter((c) => !repairs.includes(c)).map((c) => `#${c.id}`).join(", ")
        if (repairs.length === 0) {
          if (!readFileSync(path).equals(bytes)) {
            problems.push(
              `${path} is not a database, yet the CLI changed its contents (runs that named it: ${culprits()})`
            )
          }
          const mode = (statSync(path).mode & 0o777).toString(8)
          if (mode !== "644") {
            problems.push(
              `${path} is not a database, yet the CLI changed its mode from 644 to ${mode} ` +
                `(runs that named it: ${culprits()})`
            )
          }
          for (const suffix of ["-wal", "-shm", "-journal"]) {
            if (existsSync(path + suffix)) {
              problems.push(`the CLI left ${path}${suffix} beside a file that is not a database`)
            }
          }
        } else if (!readFileSync(path).equals(bytes)) {
          const aside = join(work, "damaged")
          const kept = existsSync(aside) && readdirSync(aside).some((f) => readFileSync(join(aside, f)).equals(bytes))
          if (!kept) problems.push(`doctor --repair replaced ${path} without keeping its original bytes in ${aside}`)
          repairedJunk.push(path)
        }
      }
      if (!statSync(directory).isDirectory() || readdirSync(directory).join() !== "inside") {
        problems.push(`--db ${directory} changed the directory: ${readdirSync(directory).join(", ")}`)
      }
      const databases = [
        ...projects.map(dbOf),
        ...(existsSync(dbOf(outside)) ? [dbOf(outside)] : []),
        ...repairedJunk,
        ...readdirSync(scratch, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith("memory.db")).map((f) =>
          join(scratch, f)
        )
      ]
      const preexisting: Array<string> = []
      for (const path of databases) {
        if (!existsSync(path)) {
          problems.push(`${path} is gone after the CLI runs`)
          continue
        }
        const excused = (before.get(path) ?? []).some((x) => x.startsWith("ralph-mem verify"))
        for (const problem of await databaseProblems(path, env, work)) {
          if (excused && problem.startsWith("ralph-mem verify")) preexisting.push(`${path}: ${clip(problem, 200)}`)
          else problems.push(`${path}: ${problem}`)
        }
      }
      if (preexisting.length > 0) {
        console.log(
          `fuzz CLI: databases that failed verify before the CLI ran (see the hook fuzzing):\n${preexisting.join("\n")}`
        )
      }
      console.log(
        `fuzz CLI: seed ${SEED}, ${cases.length} argument vectors in ${
          ((Date.now() - started) / 1000).toFixed(1)
        } s; exit codes ${JSON.stringify(exits)}; ${databases.length} databases verified`
      )
      expect(list(problems), header(`${problems.length} problem(s)`)).toEqual([])
    },
    240_000
  )
})
