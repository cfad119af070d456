import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { LATEST_SCHEMA_VERSION, newSqliteDatabase, readEvents } from "../src/index.ts"
import { freshLog, run, tempFolder } from "./helpers.ts"

const fixture = join(import.meta.dirname, "fixtures", "appender.ts")

const start = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [fixture, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let err = ""
  child.stdout!.on("data", (chunk) => (out += chunk))
  child.stderr!.on("data", (chunk) => (err += chunk))
  const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, out, err }))
  )
  const saw = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (out.includes(line) ? resolve() : undefined)
      child.stdout!.on("data", check)
      child.on("exit", () => reject(new Error(`exited before "${line}": ${err}`)))
      check()
    })
  return { child: child as ChildProcess, exited, saw }
}

describe("two OS processes on one database", () => {
  it("race to append at the same expected version: one wins, one gets the conflict, nothing is lost", async () => {
    const { log, path } = freshLog()
    run(
      log.append("loop:1", [{ _tag: "LoopIterationStarted", loopId: "1", iteration: 1 }], {
        expectedVersion: "any",
        writer: "setup"
      })
    )
    const go = join(tempFolder(), "go")
    const racers = [start(["race", path, "loop:1", go, "p1"]), start(["race", path, "loop:1", go, "p2"])]
    await Promise.all(racers.map((r) => r.saw("ready")))
    writeFileSync(go, "")
    const results = await Promise.all(racers.map((r) => r.exited))
    expect(results.map((r) => r.code)).toEqual([0, 0])
    expect(results.map((r) => r.out.trim().split("\n").at(-1)).sort()).toEqual(["WrongExpectedVersion", "ok"])
    const stored = Effect.runSync(Stream.runCollect(readEvents(log, { streamId: "loop:1" })))
    expect(stored.map((e) => e.streamVersion)).toEqual([1, 2])
  })

  it("twelve processes open a database that does not exist yet, at once: each appends, one schema", async () => {
    const folder = tempFolder()
    const path = join(folder, "memory.db")
    const go = join(tempFolder(), "go")
    const creators = Array.from({ length: 12 }, (_, i) => start(["create", path, "shared", go, `c${i}`]))
    await Promise.all(creators.map((c) => c.saw("ready")))
    writeFileSync(go, "")
    const results = await Promise.all(creators.map((c) => c.exited))
    expect(results.map((r) => [r.code, r.out.trim().split("\n").at(-1), r.err])).toEqual(
      Array(12).fill([0, "ok", ""])
    )
    const db = newSqliteDatabase(path, { readonly: true })
    expect(db.prepare("SELECT count(*) FROM events").pluck().get()).toBe(12)
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION)
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal")
    db.close()
    expect(statSync(path).mode & 0o777).toBe(0o600)
    // The databases the others built aside were thrown away, with their WAL and shared memory.
    expect(readdirSync(folder).filter((name) => name.includes(".new-"))).toEqual([])
  })

  it("four writers, 150 appends each, to shared and own streams: every event once, positions gap-free", async () => {
    const { log, path } = freshLog()
    const writers = ["w1", "w2", "w3", "w4"].map((w, i) =>
      start(["many", path, i % 2 === 0 ? "shared" : `own:${w}`, "150", w])
    )
    const results = await Promise.all(writers.map((w) => w.exited))
    expect(results.map((r) => [r.code, r.err])).toEqual(Array(4).fill([0, ""]))
    const all = Effect.runSync(Stream.runCollect(readEvents(log)))
    expect(all.map((e) => e.position)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1))
    for (const w of ["w1", "w2", "w3", "w4"]) {
      const contents = all.filter((e) => e.metadata.writer === w).map((e) => (e.payload as { content: string }).content)
      expect(contents).toEqual(Array.from({ length: 150 }, (_, n) => `${w} ${n}`))
    }
    const shared = all.filter((e) => e.streamId === "shared").map((e) => e.streamVersion)
    expect(shared).toEqual(Array.from({ length: 300 }, (_, i) => i + 1))
  })
})
