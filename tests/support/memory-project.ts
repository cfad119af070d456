/**
 * A project whose memory the real hooks and CLI write (each a process), and another process holding a
 * transaction open on its database: what the forget, loss and damage tests share.
 */
import { spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { expect } from "vitest"
import { tempFolder } from "../../packages/events/test/helpers.ts"
import { runCli } from "./cli.ts"

/** A git project (in `root`, or a new temporary folder). */
export const project = (root = tempFolder()): string => {
  mkdirSync(join(root, ".git"), { recursive: true })
  return root
}

export const memoryFolder = (root: string): string => join(root, ".ralph-mem")

/** The CLI in the project, its memory the project's, no global configuration. */
export const cli = (root: string, ...args: Array<string>) =>
  runCli(args, { cwd: root, env: { RALPH_MEM_DB: "", HOME: root, XDG_CONFIG_HOME: join(root, ".config") } })

/** A read command's `--json` answer. */
export const json = (root: string, ...args: Array<string>) => {
  const result = cli(root, ...args, "--json")
  expect(result.stderr).toBe("")
  return JSON.parse(result.stdout)
}

/**
 * Another process in a transaction on the database until released: `BEGIN` holds a read (once it has read),
 * `BEGIN IMMEDIATE` the write lock, `EXCLUSIVE` the whole file (exclusive locking mode): no other process can even
 * open it then.
 */
export const holdTransaction = async (path: string, begin: "BEGIN" | "BEGIN IMMEDIATE" | "EXCLUSIVE") => {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
       const db = new Database(${JSON.stringify(path)});
       db.exec(${JSON.stringify(begin === "EXCLUSIVE" ? "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE" : begin)});
       db.prepare("SELECT count(*) FROM event_rows").get();
       process.stdout.write("holding\\n");
       process.stdin.on("data", () => { db.exec("ROLLBACK"); db.close(); process.exit(0) });`
    ],
    { stdio: ["pipe", "pipe", "inherit"] }
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("holding") && resolve())
    child.on("exit", (code) => reject(new Error(`the process holding the transaction exited (${code})`)))
  })
  return {
    release: () =>
      new Promise<void>((resolve) => {
        child.on("exit", () => resolve())
        child.stdin.write("go\n")
      })
  }
}
