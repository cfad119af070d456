import { catalog, makeEventLog, newSqliteDatabase } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { spawn, spawnSync } from "node:child_process"
import { closeSync, openSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../../packages/events/test/helpers.ts"
import { config, ended, observation, prompt, started } from "../../../packages/projections/test/events.ts"
import { append, at, open } from "../../../packages/projections/test/spec.ts"
import { CLI, runCli } from "../../../tests/support/cli.ts"

/** A database with two sessions and a loop, written through the real store; closed before the CLI runs. */
const seeded = () => {
  const path = join(tempFolder(), "memory.db")
  const memory = open(path)
  append(memory, [
    ["session:a", started("a")],
    ["session:a", prompt("a", "fix login")],
    ["session:a", observation("a", "TokenExpiredError: jwt expired", { kind: "error", inputSummary: "npm test" })],
    ["loop:l1", {
      _tag: "LoopStarted",
      loopId: "l1",
      goal: "green tests",
      projectPath: "/work/app",
      driver: "session",
      sessionId: "a",
      config
    }],
    ["loop:l1", { _tag: "LoopIterationStarted", loopId: "l1", iteration: 1 }],
    ["loop:l1", { _tag: "LoopIterationCompleted", loopId: "l1", iteration: 1, passed: true, filesChanged: [] }],
    ["loop:l1", { _tag: "LoopSucceeded", loopId: "l1", iteration: 1 }],
    ["session:a", ended("a")],
    ["session:b", started("b")]
  ])
  memory.db.close()
  return path
}

/**
 * A memory longer than a listing shows unless asked: sessions a, b and c side by side, each started, 30
 * observations and ended one second apart from the same start (every second holds a moment of each: they tie), and
 * a loop of two iterations in session b. 102 events, and as many timeline entries.
 */
const busy = () => {
  const path = join(tempFolder(), "memory.db")
  const memory = open(path)
  for (const s of ["a", "b", "c"]) {
    append(memory, [
      [`session:${s}`, started(s)],
      ...Array.from({ length: 30 }, (_, i) => [`session:${s}`, observation(s, `${s} step ${i}`)] as const),
      [`session:${s}`, ended(s)]
    ])
  }
  append(memory, [
    ["loop:l1", {
      _tag: "LoopStarted",
      loopId: "l1",
      goal: "green tests",
      projectPath: "/work/app",
      driver: "session",
      sessionId: "b",
      config
    }],
    ["loop:l1", { _tag: "LoopIterationStarted", loopId: "l1", iteration: 1 }],
    ["loop:l1", { _tag: "LoopIterationCompleted", loopId: "l1", iteration: 1, passed: false, filesChanged: [] }],
    ["loop:l1", { _tag: "LoopIterationStarted", loopId: "l1", iteration: 2 }],
    ["loop:l1", { _tag: "LoopIterationCompleted", loopId: "l1", iteration: 2, passed: true, filesChanged: [] }],
    ["loop:l1", { _tag: "LoopSucceeded", loopId: "l1", iteration: 2 }]
  ], at(10))
  memory.db.close()
  return path
}

const lines = (args: ReadonlyArray<string>): Array<string> => {
  const result = runCli(args)
  expect(result.stderr, args.join(" ")).toBe("")
  expect(result.code, args.join(" ")).toBe(0)
  return result.stdout.trim().split("\n")
}

const more = (shown: number, total: number, noun: string, which = "newest") =>
  `The ${which} ${shown} of ${total} ${noun}. More: --limit N (the ${which} N), --all (every one).`

describe("ralph-mem audit", () => {
  it("lists every event oldest first with --reverse, one line each", () => {
    const result = runCli(["audit", "--db", seeded(), "--reverse"])
    expect(result.code).toBe(0)
    const lines = result.stdout.trim().split("\n")
    expect(lines).toHaveLength(9)
    expect(lines[0]).toMatch(/^#1  2026-11-20 09:00:00Z  session:a v1  SessionStarted  spec  \{"sessionId":"a"/)
    expect(lines[8]).toMatch(/^#9 .* session:b v1  SessionStarted/)
  })

  it("filters by stream, type, time and limit, and prints full events with --json", () => {
    const path = seeded()
    const byStream = JSON.parse(runCli(["audit", "--db", path, "--stream", "loop:l1", "--reverse", "--json"]).stdout)
    expect(byStream.map((e: { type: string }) => e.type)).toEqual([
      "LoopStarted",
      "LoopIterationStarted",
      "LoopIterationCompleted",
      "LoopSucceeded"
    ])
    expect(byStream[0]).toMatchObject({
      position: 4,
      streamVersion: 1,
      metadata: { writer: "spec" },
      payload: { goal: "green tests" }
    })
    const byType = JSON.parse(runCli(["audit", "--db", path, "--type", "SessionStarted,SessionEnded", "--json"]).stdout)
    expect(byType.map((e: { position: number }) => e.position)).toEqual([9, 8, 1])
    const byTime = JSON.parse(
      runCli(["audit", "--db", path, "--since", "2026-11-20T09:00:02Z", "--until", "2026-11-20T09:00:04Z", "--json"])
        .stdout
    )
    expect(byTime.map((e: { position: number }) => e.position)).toEqual([4, 3])
    expect(JSON.parse(runCli(["audit", "--db", path, "--limit", "2", "--json"]).stdout)).toHaveLength(2)
    expect(JSON.parse(runCli(["audit", "--db", path, "--stream", "nothing", "--json"]).stdout)).toEqual([])
  })

  it("explains bad input: an unknown type, a malformed date, a zero limit", () => {
    const path = seeded()
    const badType = runCli(["audit", "--db", path, "--type", "SessionStrated"])
    expect(badType.code).toBe(1)
    expect(badType.stderr).toMatch(/unknown event type SessionStrated; known types: SessionStarted,/)
    const badDate = runCli(["audit", "--db", path, "--since", "yesterday-ish"])
    expect(badDate.code).toBe(1)
    expect(badDate.stderr).toMatch(/--since "yesterday-ish" is not a date/)
    expect(runCli(["audit", "--db", path, "--limit", "0"]).stderr).toMatch(/--limit must be a positive whole number/)
  })

  it("lists the newest 50 events unless asked, and says how many more there are and how to see them", () => {
    const path = busy()
    const all = lines(["audit", "--db", path, "--all"])
    expect(all).toHaveLength(102)
    expect(all[0]).toMatch(/^#102 .* LoopSucceeded/)
    expect(all.at(-1)).toMatch(/^#1 .* SessionStarted/)
    expect(lines(["audit", "--db", path])).toEqual([...all.slice(0, 50), more(50, 102, "events")])
    expect(lines(["audit", "--db", path, "--limit", "7"])).toEqual([...all.slice(0, 7), more(7, 102, "events")])
    expect(lines(["audit", "--db", path, "--limit", "102"])).toEqual(all)
    expect(lines(["audit", "--db", path, "--limit", "500"])).toEqual(all)
    // Oldest first, the oldest are kept, as --reverse says.
    const oldest = [...all].reverse()
    expect(lines(["audit", "--db", path, "--reverse"])).toEqual([
      ...oldest.slice(0, 50),
      more(50, 102, "events", "oldest")
    ])
    expect(lines(["audit", "--db", path, "--reverse", "--all"])).toEqual(oldest)
  })

  it("gives programs every event with --json, unless --limit says how many", () => {
    const path = busy()
    const events = JSON.parse(runCli(["audit", "--db", path, "--json"]).stdout) as Array<{ position: number }>
    expect(events.map((e) => e.position)).toEqual(Array.from({ length: 102 }, (_, i) => 102 - i))
    expect(JSON.parse(runCli(["audit", "--db", path, "--all", "--json"]).stdout)).toEqual(events)
    expect(JSON.parse(runCli(["audit", "--db", path, "--limit", "3", "--json"]).stdout)).toEqual(events.slice(0, 3))
  })

  it("cuts what the filters keep, and counts only those", () => {
    const path = busy()
    const observations = lines(["audit", "--db", path, "--type", "ObservationRecorded", "--all"])
    expect(observations).toHaveLength(90)
    expect(lines(["audit", "--db", path, "--type", "ObservationRecorded"])).toEqual([
      ...observations.slice(0, 50),
      more(50, 90, "events")
    ])
    const sessionA = lines(["audit", "--db", path, "--stream", "session:a", "--all"])
    expect(sessionA).toHaveLength(32)
    expect(lines(["audit", "--db", path, "--stream", "session:a"])).toEqual(sessionA)
    expect(lines(["audit", "--db", path, "--stream", "session:a", "--limit", "10"])).toEqual([
      ...sessionA.slice(0, 10),
      more(10, 32, "events")
    ])
    // From second 20 to before second 25: five observations of each session.
    const window = ["--since", new Date(at(20)).toISOString(), "--until", new Date(at(25)).toISOString()]
    const inWindow = lines(["audit", "--db", path, ...window, "--all"])
    expect(inWindow).toHaveLength(15)
    expect(lines(["audit", "--db", path, ...window, "--limit", "4", "--reverse"])).toEqual([
      ...[...inWindow].reverse().slice(0, 4),
      more(4, 15, "events", "oldest")
    ])
  })

  it("says nothing more of an empty memory, nor of a listing that holds every event", () => {
    const empty = join(tempFolder(), "memory.db")
    open(empty).db.close()
    for (const args of [[], ["--all"], ["--limit", "1"], ["--reverse"]]) {
      expect(runCli(["audit", "--db", empty, ...args]).stdout, args.join(" ")).toBe("")
    }
    expect(lines(["audit", "--db", seeded()])).toHaveLength(9)
  })

  it("refuses --limit with --all: one says how many, the other every one", () => {
    const both = runCli(["audit", "--db", seeded(), "--all", "--limit", "5"])
    expect(both.code).toBe(1)
    expect(both.stderr).toContain("--limit and --all do not go together")
  })

  it("refuses a day its month does not have, rather than rolling it into the next month", () => {
    const path = seeded()
    for (const day of ["2026-02-30", "2026-02-29", "2026-04-31T09:00:00Z", "2100-02-29"]) {
      const impossible = runCli(["audit", "--db", path, "--until", day])
      expect(impossible.code).toBe(1)
      expect(impossible.stderr).toContain(`--until ${JSON.stringify(day)} is not a date`)
    }
    for (const day of ["2028-02-29", "2000-02-29", "2026-04-30T09:00:00Z", "2026-12-31"]) {
      expect(runCli(["audit", "--db", path, "--until", day, "--json"]).code).toBe(0)
    }
  })
})

describe("ralph-mem timeline", () => {
  it("shows sessions, observations and loop iterations in time order", () => {
    const result = runCli(["timeline", "--db", seeded()])
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split("\n")).toEqual([
      "2026-11-20 09:00:00Z  a  session started (startup) in /work/app",
      "2026-11-20 09:00:02Z  a  [error] Bash npm test: TokenExpiredError: jwt expired",
      "2026-11-20 09:00:03Z  a  loop l1 started: green tests",
      "2026-11-20 09:00:04Z  a  loop l1 iteration 1 started",
      "2026-11-20 09:00:05Z  a  loop l1 iteration 1 passed",
      "2026-11-20 09:00:06Z  a  loop success",
      "2026-11-20 09:00:07Z  a  session ended (exit)",
      "2026-11-20 09:00:08Z  b  session started (startup) in /work/app"
    ])
  })

  it("narrows to one session, a start time and a limit; --json for scripts", () => {
    const path = seeded()
    const entries = JSON.parse(runCli(["timeline", "--db", path, "--session", "b", "--json"]).stdout)
    expect(entries).toEqual([{
      at: Date.parse("2026-11-20T09:00:08Z"),
      kind: "session started",
      sessionId: "b",
      detail: { source: "startup", project: "/work/app" }
    }])
    const later = JSON.parse(
      runCli(["timeline", "--db", path, "--since", "2026-11-20T09:00:05Z", "--limit", "2", "--json"]).stdout
    )
    expect(later.map((e: { kind: string }) => e.kind)).toEqual(["session ended", "session started"])
  })

  it("shows the newest 50 entries unless asked, in time order, and says how many more there are", () => {
    const path = busy()
    const all = lines(["timeline", "--db", path, "--all"])
    expect(all).toHaveLength(102)
    expect(all[0]).toBe("2026-11-20 09:00:00Z  a  session started (startup) in /work/app")
    expect(all.slice(-3)).toEqual([
      "2026-11-20 09:00:31Z  a  session ended (exit)",
      "2026-11-20 09:00:31Z  b  session ended (exit)",
      "2026-11-20 09:00:31Z  c  session ended (exit)"
    ])
    expect(lines(["timeline", "--db", path])).toEqual([...all.slice(-50), more(50, 102, "entries")])
    // Any cut is the end of the whole timeline, ties and loops included.
    for (const n of [1, 2, 3, 4, 37, 89, 101]) {
      expect(lines(["timeline", "--db", path, "--limit", String(n)]), String(n)).toEqual([
        ...all.slice(-n),
        more(n, 102, "entries")
      ])
    }
    expect(lines(["timeline", "--db", path, "--limit", "102"])).toEqual(all)
    expect(lines(["timeline", "--db", path, "--limit", "500"])).toEqual(all)
  })

  it("gives programs every entry with --json, unless --limit says how many", () => {
    const path = busy()
    const entries = JSON.parse(runCli(["timeline", "--db", path, "--json"]).stdout) as Array<{ at: number }>
    expect(entries).toHaveLength(102)
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort((x, y) => x - y))
    expect(JSON.parse(runCli(["timeline", "--db", path, "--all", "--json"]).stdout)).toEqual(entries)
    expect(JSON.parse(runCli(["timeline", "--db", path, "--limit", "3", "--json"]).stdout)).toEqual(entries.slice(-3))
  })

  it("prints a timeline too large to hold in memory, one entry at a time", () => {
    // 20,000 observations of 400 characters: their entries, held at once as before, outgrow a 24 MB heap.
    const path = join(tempFolder(), "memory.db")
    const memory = open(path)
    const words = "the build failed because the cache was stale and the worker restarted ".repeat(6).slice(0, 400)
    append(memory, [
      ["session:a", started("a")],
      ...Array.from({ length: 20_000 }, (_, i) => ["session:a", observation("a", `${i} ${words}`)] as const)
    ])
    memory.db.close()
    const output = join(tempFolder(), "timeline.json")
    const stdout = openSync(output, "w")
    const result = spawnSync(process.execPath, ["--max-old-space-size=24", CLI, "timeline", "--db", path, "--json"], {
      stdio: ["ignore", stdout, "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
      encoding: "utf8"
    })
    closeSync(stdout)
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
    const entries = JSON.parse(readFileSync(output, "utf8")) as Array<{ kind: string; detail: { content?: string } }>
    expect(entries).toHaveLength(20_001)
    expect(entries[0]!.kind).toBe("session started")
    expect(entries.at(-1)!.detail.content).toBe(`19999 ${words}`.slice(0, 400))
  })

  it("ends quietly when what reads its listing stops reading (| head)", async () => {
    // More than a pipe holds (64 KiB): the CLI is still writing when the reader closes its end.
    const path = join(tempFolder(), "memory.db")
    const memory = open(path)
    const words = "the build failed because the cache was stale and the worker restarted ".repeat(6).slice(0, 400)
    append(memory, Array.from({ length: 2_000 }, (_, i) => ["session:a", observation("a", `${i} ${words}`)] as const))
    memory.db.close()
    for (const args of [["timeline", "--all"], ["timeline", "--json"], ["audit", "--all"], ["audit", "--json"]]) {
      const child = spawn(process.execPath, [CLI, ...args, "--db", path], { stdio: ["ignore", "pipe", "pipe"] })
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.stdout.once("data", () => child.stdout.destroy())
      const code = await new Promise<number | null>((done) => child.on("close", done))
      expect(stderr, args.join(" ")).toBe("")
      expect(code, args.join(" ")).toBe(0)
    }
  })

  it("cuts what --session and --since keep, and counts only those", () => {
    const path = busy()
    const sessionB = lines(["timeline", "--db", path, "--session", "b", "--all"])
    expect(sessionB).toHaveLength(38)
    expect(sessionB.filter((l) => l.includes("  b  loop "))).toHaveLength(6)
    expect(lines(["timeline", "--db", path, "--session", "b"])).toEqual(sessionB)
    expect(lines(["timeline", "--db", path, "--session", "b", "--limit", "5"])).toEqual([
      ...sessionB.slice(-5),
      more(5, 38, "entries")
    ])
    // From second 20 on: 11 observations and the end of each session.
    const since = ["--since", new Date(at(20)).toISOString()]
    const later = lines(["timeline", "--db", path, ...since, "--all"])
    expect(later).toHaveLength(36)
    expect(lines(["timeline", "--db", path, ...since, "--limit", "4"])).toEqual([
      ...later.slice(-4),
      more(4, 36, "entries")
    ])
    expect(lines(["timeline", "--db", path, ...since, "--session", "c", "--limit", "12"])).toEqual(
      later.filter((l) => l.includes("  c  "))
    )
  })

  it("refuses --limit with --all, and a limit that is not positive", () => {
    const path = seeded()
    const both = runCli(["timeline", "--db", path, "--limit", "5", "--all"])
    expect(both.code).toBe(1)
    expect(both.stderr).toContain("--limit and --all do not go together")
    expect(runCli(["timeline", "--db", path, "--limit", "0"]).stderr).toMatch(/--limit must be a positive whole number/)
  })

  it("says so when nothing is recorded, or nothing the filters keep, and no more", () => {
    expect(runCli(["timeline", "--db", join(tempFolder(), "empty.db")]).stdout.trim()).toBe("Nothing recorded yet.")
    const empty = join(tempFolder(), "memory.db")
    open(empty).db.close()
    for (const args of [[], ["--all"], ["--limit", "1"], ["--session", "x"]]) {
      expect(runCli(["timeline", "--db", empty, ...args]).stdout, args.join(" ")).toBe("Nothing recorded yet.\n")
    }
    expect(runCli(["timeline", "--db", busy(), "--session", "x"]).stdout).toBe("Nothing recorded yet.\n")
    expect(runCli(["timeline", "--db", empty, "--json"]).stdout.trim()).toBe("[]")
  })
})

describe("ralph-mem replay and verify", () => {
  it("replays every projection and reports the throughput", () => {
    const path = seeded()
    const result = runCli(["replay", "--db", path, "--json"])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      projections: ["sessions", "observations", "loop_runs", "failures", "decisions", "beliefs", "tasks"],
      events: 9
    })
    expect(runCli(["replay", "--db", path]).stdout).toMatch(
      new RegExp(
        /^Replayed 9 events into sessions, observations, loop_runs, failures, decisions, beliefs, tasks /.source
          + /in \d+ ms \(\d+ events\/s\)\.$/.source,
        "m"
      )
    )
  })

  it("replays a long log on two threads with the bundled worker, to the same read models", () => {
    const path = join(tempFolder(), "memory.db")
    const memory = open(path)
    const bare = makeEventLog(memory.db, catalog)
    for (let s = 0; s < 260; s++) {
      const events = [
        started(`s${s}`),
        ...Array.from({ length: 200 }, (_, i) => observation(`s${s}`, `step ${i}: RefreshTokenError`)),
        ended(`s${s}`)
      ]
      Effect.runSync(bare.append(`session:s${s}`, events, { expectedVersion: "any", writer: "spec" }))
    }
    memory.db.close()
    const result = runCli(["replay", "--db", path, "--json"])
    expect(result.stderr).toBe("")
    expect(JSON.parse(result.stdout)).toMatchObject({ events: 260 * 202, threads: 2, peakRssMb: expect.any(Number) })
    expect(runCli(["replay", "--db", path]).stdout).toMatch(
      /^Replayed 52520 events into .* \(\d+ events\/s, on two threads\)\.$/m
    )
    const verified = runCli(["verify", "--db", path])
    expect(verified.stdout).toMatch(/^ok    projections equal a replay$/m)
    expect(verified.code).toBe(0)
  })

  it("replays one projection, and names the known ones when asked for another", () => {
    const path = seeded()
    expect(JSON.parse(runCli(["replay", "--db", path, "--projection", "loop_runs", "--json"]).stdout).projections)
      .toEqual(["loop_runs"])
    const unknown = runCli(["replay", "--db", path, "--projection", "sessoins"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/no projection named "sessoins"; known: sessions, observations, loop_runs/)
  })

  it("verifies a healthy database with exit 0", () => {
    const result = runCli(["verify", "--db", seeded()])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^ok    projections equal a replay$/m)
    expect(result.stdout).toMatch(/9 events checked, 0 problem\(s\) found\./)
  })

  it("fails with exit 1 and a clear report when a read model was tampered with; replay repairs it", () => {
    const path = seeded()
    const raw = newSqliteDatabase(path)
    raw.prepare("UPDATE loop_runs SET status = 'failed'").run()
    raw.close()
    const result = runCli(["verify", "--db", path])
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^FAIL  projections equal a replay\n\s+projection loop_runs, table loop_runs: row 1 differs/m
    )
    expect(result.stderr).toMatch(/verify found 1 problem/)
    const json = runCli(["verify", "--db", path, "--json"])
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, findings: [{ check: "projections equal a replay" }] })
    expect(runCli(["replay", "--db", path]).code).toBe(0)
    expect(runCli(["verify", "--db", path]).code).toBe(0)
  })
})
