/**
 * `waitingFairly`: a write lock another process holds is waited for in short steps, until the connection's busy
 * timeout has gone by, and no longer. The other process is a real one holding BEGIN IMMEDIATE on the same file.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { newSqliteDatabase, waitingFairly } from "../src/index.ts"
import { tempFolder } from "./helpers.ts"

const BETTER_SQLITE3 = join(import.meta.dirname, "..", "..", "..", "node_modules", "better-sqlite3")

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
})
