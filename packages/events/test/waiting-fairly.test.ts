/**
 * `waitingFairly`: a write lock another process holds is waited for in short steps, until nothing has been
 * committed for the connection's busy timeout, or the wait's end; so it is when an open brings the schema up
 * to date. The other process is a real one holding BEGIN
 * IMMEDIATE on the same file, or taking it again and again.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  APPLICATION_ID,
  givesUp,
  LATEST_SCHEMA_VERSION,
  newSqliteDatabase,
  openDatabase,
  QUEUE_WAIT_MS,
  waitingFairly
} from "../src/index.ts"
import { migrations } from "../src/migrations.ts"
import { BETTER_SQLITE3, run, tempFolder } from "./helpers.ts"

/** Another process that takes the write lock, says so, and lets it go when told to (or when its stdin closes). */
const holdLock = async (path: string) => {
  const child = spawn(process.execPath, [
    "-e",
    `const db = new (require(${JSON.stringify(BETTER_SQLITE3)}))(${JSON.stringify(path)});
     db.exec("BEGIN IMMEDIATE"); process.stdout.write("held\\n");
     process.stdin.once("data", () => { db.exec("COMMIT"); process.exit(0) });
     process.stdin.once("end", () => process.exit(0))`
  ], { stdio: ["pipe", "pipe", "inherit"] })
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
  return { release: () => child.stdin.end("go\n"), exited: new Promise((resolve) => child.once("exit", resolve)) }
}

/** Another process that takes the write lock `times` times, holding it `holdMs` each time and committing a row. */
const keepCommitting = async (path: string, times: number, holdMs: number) => {
  const child = spawn(process.execPath, [
    "-e",
    `const db = new (require(${JSON.stringify(BETTER_SQLITE3)}))(${JSON.stringify(path)});
     const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
     for (let i = 0; i < ${times}; i++) {
       db.exec("BEGIN IMMEDIATE");
       if (i === 0) process.stdout.write("held\\n");
       db.prepare("INSERT INTO t VALUES (?)").run(-1 - i);
       sleep(${holdMs});
       db.exec("COMMIT");
     }`
  ], { stdio: ["ignore", "pipe", "inherit"] })
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
  return { exited: new Promise((resolve) => child.once("exit", resolve)) }
}

const database = () => {
  const path = join(tempFolder(), "lock.db")
  const db = newSqliteDatabase(path)
  db.pragma("journal_mode = WAL")
  db.exec("CREATE TABLE t (x)")
  return { db, path }
}

describe("waiting fairly for the write lock", () => {
  it("gives up with SQLITE_BUSY once the busy timeout has gone by, and keeps the timeout as it was", async () => {
    const { db, path } = database()
    const holder = await holdLock(path)
    db.pragma("busy_timeout = 150")
    const started = Date.now()
    const write = db.transaction(() => db.prepare("INSERT INTO t VALUES (1)").run())
    expect(() => waitingFairly(db, () => write.immediate())).toThrow(expect.objectContaining({ code: "SQLITE_BUSY" }))
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
    expect(db.pragma("busy_timeout", { simple: true })).toBe(150)
    holder.release()
    await holder.exited
    db.close()
  })

  it("gets the lock once the other process lets it go within the timeout", async () => {
    const { db, path } = database()
    const holder = await holdLock(path)
    db.pragma("busy_timeout = 20000")
    const write = db.transaction(() => db.prepare("INSERT INTO t VALUES (1)").run())
    // The holder lets go only after this process has tried and found the lock taken at least once.
    let tries = 0
    const written = waitingFairly(db, () => {
      if (++tries === 2) holder.release()
      return write.immediate()
    })
    expect(written.changes).toBe(1)
    expect(tries).toBeGreaterThanOrEqual(2)
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(1)
    await holder.exited
    db.close()
  })

  it("waits past its busy timeout while another process keeps committing, and gets the lock at the end", async () => {
    const { db, path } = database()
    // Eight transactions of 200 ms: 1.6 s in all, more than three times the 500 ms this connection waits with
    // nothing committed. Each commit shows the lock is moving.
    const { exited } = await keepCommitting(path, 8, 200)
    db.pragma("busy_timeout = 500")
    const write = db.transaction(() => db.prepare("INSERT INTO t VALUES (1)").run())
    expect(waitingFairly(db, () => write.immediate()).changes).toBe(1)
    await exited
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(9)
    db.close()
  })

  it("brings an older database up to date while another process keeps committing", async () => {
    // A database of the schema before the latest, as an earlier ralph-mem left it.
    const path = join(tempFolder(), "memory.db")
    const old = newSqliteDatabase(path)
    old.pragma("journal_mode = WAL")
    for (const migration of migrations.filter((m) => m.version < LATEST_SCHEMA_VERSION)) old.exec(migration.sql)
    old.pragma(`application_id = ${APPLICATION_ID}`)
    old.pragma(`user_version = ${LATEST_SCHEMA_VERSION - 1}`)
    old.exec("CREATE TABLE t (x)")
    old.close()
    const { exited } = await keepCommitting(path, 8, 200)
    const db = run(openDatabase(path, { busyTimeoutMs: 500 }))
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION)
    await exited
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(8)
    db.close()
  })

  it("ends a wait at the time the connection was opened with, however long its busy timeout", async () => {
    const path = join(tempFolder(), "memory.db")
    const created = run(openDatabase(path))
    created.exec("CREATE TABLE t (x)")
    created.close()
    const holder = await holdLock(path)
    const started = Date.now()
    const db = run(openDatabase(path, { busyTimeoutMs: 20_000, waitsEndBy: started + 300 }))
    const write = db.transaction(() => db.prepare("INSERT INTO t VALUES (1)").run())
    expect(() => waitingFairly(db, () => write.immediate())).toThrow(expect.objectContaining({ code: "SQLITE_BUSY" }))
    // At its end, not after the 20 s busy timeout nor the 10 s a queue may take: the bound leaves room for a
    // busy machine.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(Date.now() - started).toBeLessThan(5000)
    holder.release()
    await holder.exited
    db.close()
  })

  it("gives up when nothing is committed for the busy timeout, or at the wait's end, whichever comes first", () => {
    const wait = { budget: 2000, progressAt: 0, until: QUEUE_WAIT_MS }
    expect(givesUp({ ...wait, now: 1999 })).toBe(false)
    expect(givesUp({ ...wait, now: 2000 })).toBe(true)
    // Commits seen: the busy timeout counts from the last of them.
    expect(givesUp({ ...wait, progressAt: 3000, now: 4999 })).toBe(false)
    expect(givesUp({ ...wait, progressAt: 3000, now: 5000 })).toBe(true)
    // However much is committed, the wait ends at its end.
    expect(givesUp({ ...wait, progressAt: QUEUE_WAIT_MS - 1, now: QUEUE_WAIT_MS })).toBe(true)
  })
})
