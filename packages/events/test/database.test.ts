import Database from "better-sqlite3"
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  APPLICATION_ID,
  checkpointLargeWal,
  DatabaseUnusable,
  findProjectRoot,
  homeFolder,
  LATEST_SCHEMA_VERSION,
  openDatabase,
  removeAbandonedBuilds,
  resolveDatabasePath
} from "../src/index.ts"
import { BETTER_SQLITE3, failure, run, tempFolder } from "./helpers.ts"

const modeOf = (path: string) => statSync(path).mode & 0o777

/**
 * Another process that reads the database through two connections, each read beginning before the last one
 * ends, so that at every moment one of them is in a read, until told to stop; it then says how many reads it made.
 */
const keepReading = async (path: string) => {
  const stopFile = join(tempFolder(), "stop")
  const child = spawn(process.execPath, [
    "-e",
    `const { existsSync } = require("node:fs");
     const Database = require(${JSON.stringify(BETTER_SQLITE3)});
     const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
     const [a, b] = [new Database(${JSON.stringify(path)}), new Database(${JSON.stringify(path)})];
     const read = (db) => { db.exec("BEGIN"); db.prepare("SELECT count(*) FROM t").get() };
     let [current, next] = [a, b];
     read(current);
     process.stdout.write("reading\\n");
     let reads = 1;
     while (!existsSync(${JSON.stringify(stopFile)})) {
       read(next);
       current.exec("COMMIT");
       [current, next] = [next, current];
       reads++;
       sleep(5);
     }
     current.exec("COMMIT");
     process.stdout.write(reads + "\\n");`
  ], { stdio: ["ignore", "pipe", "inherit"] })
  let out = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => (out.includes("reading") ? resolve() : undefined))
    void exited.then(() => reject(new Error(`the reader exited: ${out}`)))
  })
  return {
    stop: async () => {
      writeFileSync(stopFile, "")
      const code = await exited
      return { code, reads: Number(out.trim().split("\n").at(-1)) }
    }
  }
}

describe("opening the database", () => {
  it("creates the folder 0700, the file 0600 and a .gitignore that hides the memory", () => {
    const project = tempFolder()
    const path = join(project, ".ralph-mem", "memory.db")
    const db = run(openDatabase(path))
    db.close()
    expect(modeOf(join(project, ".ralph-mem"))).toBe(0o700)
    expect(modeOf(path)).toBe(0o600)
    expect(readFileSync(join(project, ".ralph-mem", ".gitignore"), "utf8")).toBe("*\n")
  })

  it("tightens an existing file that others could read, and leaves existing folders alone", () => {
    const folder = tempFolder()
    const path = join(folder, "shared.db")
    writeFileSync(path, "", { mode: 0o644 })
    const before = modeOf(folder)
    run(openDatabase(path)).close()
    expect(modeOf(path)).toBe(0o600)
    expect(modeOf(folder)).toBe(before)
  })

  it("sets WAL, synchronous NORMAL, busy timeout, secure delete and foreign keys", () => {
    const db = run(openDatabase(join(tempFolder(), "memory.db"), { busyTimeoutMs: 1234 }))
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal")
    expect(db.pragma("synchronous", { simple: true })).toBe(1)
    expect(db.pragma("busy_timeout", { simple: true })).toBe(1234)
    expect(db.pragma("secure_delete", { simple: true })).toBe(1)
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1)
    expect(db.pragma("journal_size_limit", { simple: true })).toBe(4 * 1024 * 1024)
    expect(db.pragma("application_id", { simple: true })).toBe(APPLICATION_ID)
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION)
    db.close()
  })

  it("syncs every commit of a connection that is to be released at exit", () => {
    const db = run(openDatabase(join(tempFolder(), "memory.db"), { releasedAtExit: true }))
    expect(db.pragma("synchronous", { simple: true })).toBe(2)
    db.close()
  })

  it("releases a connection at exit without closing it: the WAL stays until it passes 4 MiB", () => {
    const path = join(tempFolder(), "memory.db")
    const writer = run(openDatabase(path, { releasedAtExit: true }))
    writer.exec("CREATE TABLE t (x BLOB)")
    const insert = writer.prepare("INSERT INTO t VALUES (randomblob(100000))")
    insert.run()
    checkpointLargeWal(writer, path)
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(100_000)
    // Another connection (the next process) reads what was committed, and stays in its read: the WAL cannot
    // start again from its beginning, and grows past 4 MiB.
    const reader = new Database(path, { readonly: true })
    reader.exec("BEGIN")
    expect(reader.prepare("SELECT count(*) FROM t").pluck().get()).toBe(1)
    for (let i = 0; i < 44; i++) insert.run()
    // The checkpoint waits a short time for the read to end, then leaves the WAL to a later one.
    const busyTimeout = writer.pragma("busy_timeout", { simple: true })
    const started = Date.now()
    checkpointLargeWal(writer, path)
    expect(Date.now() - started).toBeLessThan(2000)
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(4 * 1024 * 1024)
    // The connection waits for locks as it did before: its own time, not the checkpoint's.
    expect(writer.pragma("busy_timeout", { simple: true })).toBe(busyTimeout)
    reader.exec("COMMIT")
    reader.close()
    checkpointLargeWal(writer, path)
    expect(statSync(`${path}-wal`).size).toBe(0)
    expect(writer.prepare("SELECT count(*) FROM t").pluck().get()).toBe(45)
    writer.close()
  })

  it("checkpoints a WAL past 4 MiB while another process keeps reading it, one read overlapping the next", async () => {
    const path = join(tempFolder(), "memory.db")
    const writer = run(openDatabase(path, { releasedAtExit: true }))
    writer.exec("CREATE TABLE t (x BLOB)")
    const insert = writer.prepare("INSERT INTO t VALUES (randomblob(100000))")
    insert.run()
    const readers = await keepReading(path)
    try {
      // With a reader always in it, the WAL never starts again from its beginning.
      for (let i = 0; i < 44; i++) insert.run()
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(4 * 1024 * 1024)
      // A checkpoint that does not wait never finds a moment with no reader in the WAL: this one waits for the
      // reads in it to end, while new ones read the database. Tried a few times, for a machine so busy that
      // one read outlasts a wait.
      for (let i = 0; i < 5 && statSync(`${path}-wal`).size > 0; i++) checkpointLargeWal(writer, path)
      expect(statSync(`${path}-wal`).size).toBe(0)
    } finally {
      expect(await readers.stop()).toMatchObject({ code: 0, reads: expect.any(Number) })
    }
    expect(writer.prepare("SELECT count(*) FROM t").pluck().get()).toBe(45)
    writer.close()
  })

  it("removes the new databases that died half-built beside it, and keeps one a running process is building", () => {
    const folder = join(tempFolder(), ".ralph-mem")
    mkdirSync(folder, { mode: 0o700 })
    const path = join(folder, "memory.db")
    // A process that has exited: its pid names no running process.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid
    const abandoned = ["", "-wal", "-shm"].map((end) => `memory.db.new-${dead}-k3x9${end}`)
    const building = `memory.db.new-${process.pid}-a1b2`
    const unrelated = ["memory.db.new-x", `other.db.new-${dead}-k3x9`, `memory.db.new-${dead}-k3x9.txt`]
    for (const file of [...abandoned, building, ...unrelated]) writeFileSync(join(folder, file), "")
    // A link planted under such a name is removed, and what it points to is left alone.
    const outside = join(tempFolder(), "keep.txt")
    writeFileSync(outside, "keep")
    symlinkSync(outside, join(folder, `memory.db.new-${dead}-link`))
    run(openDatabase(path)).close()
    expect(readdirSync(folder).filter((f) => f.includes(".new-")).sort()).toEqual([building, ...unrelated].sort())
    expect(readFileSync(outside, "utf8")).toBe("keep")
    // Once its process is gone, the next look removes that one too (maintenance looks after each session).
    writeFileSync(join(folder, abandoned[0]!), "")
    expect(removeAbandonedBuilds(path)).toBe(1)
    expect(removeAbandonedBuilds(path)).toBe(0)
  })

  it("opens an existing database again without re-running migrations", () => {
    const path = join(tempFolder(), "memory.db")
    run(openDatabase(path)).close()
    const db = run(openDatabase(path))
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'events'").pluck().get()).toBe(1)
    db.close()
  })

  it("refuses a database from a newer ralph-mem and leaves it byte for byte as it was", () => {
    const path = join(tempFolder(), "memory.db")
    const db = run(openDatabase(path))
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 1}`)
    db.close()
    const bytes = readFileSync(path)
    const error = failure(openDatabase(path))
    expect(error).toBeInstanceOf(DatabaseUnusable)
    expect(error.problem).toBe("newer_schema")
    expect(error.message).toMatch(/newer ralph-mem .*upgrade ralph-mem/)
    expect(readFileSync(path).equals(bytes)).toBe(true)
  })

  it("refuses a file that is not SQLite, without changing it", () => {
    const path = join(tempFolder(), "memory.db")
    const garbage = Buffer.from("this is a text file, not a database ".repeat(200))
    writeFileSync(path, garbage)
    const error = failure(openDatabase(path))
    expect(error.problem).toBe("not_a_database")
    expect(error.message).toMatch(/not an SQLite database/)
    expect(readFileSync(path).equals(garbage)).toBe(true)
  })

  it("changes nothing of a file it refuses, not even its permissions", () => {
    const path = join(tempFolder(), "notes.txt")
    writeFileSync(path, "plain text, not a database\n".repeat(50), { mode: 0o644 })
    expect(failure(openDatabase(path)).problem).toBe("not_a_database")
    expect(modeOf(path)).toBe(0o644)
  })

  it("refuses another program's SQLite database", () => {
    const path = join(tempFolder(), "other.db")
    const other = new Database(path)
    other.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    other.close()
    const error = failure(openDatabase(path))
    expect(error.problem).toBe("foreign")
    expect(error.message).toMatch(/belongs to another program/)
  })

  it("explains a folder it cannot create", () => {
    const folder = tempFolder()
    writeFileSync(join(folder, "file"), "")
    const error = failure(openDatabase(join(folder, "file", "sub", "memory.db")))
    expect(error.problem).toBe("unreachable")
    expect(error.message).toMatch(/cannot open the database/)
  })
})

describe("where the database lives", () => {
  it("uses RALPH_MEM_DB when set, relative to the working directory", () => {
    expect(resolveDatabasePath({ cwd: "/work/a", env: { RALPH_MEM_DB: "mem/x.db" } })).toBe("/work/a/mem/x.db")
    expect(resolveDatabasePath({ cwd: "/work/a", env: { RALPH_MEM_DB: "/abs/x.db" } })).toBe("/abs/x.db")
  })

  it("uses the git top level of the working directory", () => {
    const repo = tempFolder()
    mkdirSync(join(repo, ".git"))
    mkdirSync(join(repo, "src", "deep"), { recursive: true })
    expect(findProjectRoot(join(repo, "src", "deep"))).toBe(repo)
    expect(resolveDatabasePath({ cwd: join(repo, "src", "deep"), env: {} })).toBe(join(repo, ".ralph-mem", "memory.db"))
  })

  it("recognises a worktree's .git file", () => {
    const worktree = tempFolder()
    writeFileSync(join(worktree, ".git"), "gitdir: /elsewhere\n")
    mkdirSync(join(worktree, "pkg"))
    expect(findProjectRoot(join(worktree, "pkg"))).toBe(worktree)
  })

  it("falls back to the directory itself outside git", () => {
    const plain = tempFolder()
    expect(resolveDatabasePath({ cwd: plain, env: { RALPH_MEM_DB: "" } })).toBe(join(plain, ".ralph-mem", "memory.db"))
  })

  it("the home folder is HOME, else USERPROFILE; an empty one names none", () => {
    expect(homeFolder({ HOME: "/home/me", USERPROFILE: "C:\\Users\\me" })).toBe("/home/me")
    expect(homeFolder({ HOME: "", USERPROFILE: "C:\\Users\\me" })).toBe("C:\\Users\\me")
    expect(homeFolder({ HOME: "", USERPROFILE: "" })).toBeUndefined()
    expect(homeFolder({})).toBeUndefined()
  })
})
