import Database from "better-sqlite3"
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  APPLICATION_ID,
  DatabaseUnusable,
  findProjectRoot,
  LATEST_SCHEMA_VERSION,
  openDatabase,
  releaseForExit,
  resolveDatabasePath
} from "../src/index.ts"
import { failure, run, tempFolder } from "./helpers.ts"

const modeOf = (path: string) => statSync(path).mode & 0o777

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
    expect(db.pragma("application_id", { simple: true })).toBe(APPLICATION_ID)
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION)
    db.close()
  })

  it("syncs every commit of a connection that is to be released at exit", () => {
    const db = run(openDatabase(join(tempFolder(), "memory.db"), { releasedAtExit: true }))
    expect(db.pragma("synchronous", { simple: true })).toBe(2)
    db.close()
  })

  it("releases a connection at exit without closing it: the WAL stays until it passes 1 MiB", () => {
    const path = join(tempFolder(), "memory.db")
    const writer = run(openDatabase(path, { releasedAtExit: true }))
    writer.exec("CREATE TABLE t (x BLOB)")
    const insert = writer.prepare("INSERT INTO t VALUES (randomblob(100000))")
    insert.run()
    releaseForExit(writer, path)
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(100_000)
    // Another connection (the next process) reads what was committed.
    const reader = new Database(path, { readonly: true })
    expect(reader.prepare("SELECT count(*) FROM t").pluck().get()).toBe(1)
    // While it reads, a checkpoint would have to wait: release does not wait, and leaves it to later.
    for (let i = 0; i < 12; i++) insert.run()
    reader.exec("BEGIN")
    reader.prepare("SELECT count(*) FROM t").pluck().get()
    const started = Date.now()
    releaseForExit(writer, path)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(1024 * 1024)
    reader.exec("COMMIT")
    reader.close()
    releaseForExit(writer, path)
    expect(statSync(`${path}-wal`).size).toBe(0)
    expect(writer.prepare("SELECT count(*) FROM t").pluck().get()).toBe(13)
    writer.close()
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
})
