/**
 * Every event knows its project (issue 19 item 5): a session whose SessionStart never ran (the plugin was
 * installed mid-session, or that hook failed) is still found by search and injection, because each hook
 * takes the project from its payload's `cwd`.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const hook = (root: string, event: string, session: string, fields: Record<string, unknown>, cwd = root) => {
  const run = runHookProcess(event, payload(event, session, cwd, fields), { cwd })
  expect(run.code).toBe(0)
  expect(run.stderr).toBe("")
  return run
}

const query = (root: string, sql: string) => {
  const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
  try {
    return db.prepare(sql).all()
  } finally {
    db.close()
  }
}

describe("a session with no SessionStart", () => {
  it("is found by search: its observations carry the project of the payload's cwd", () => {
    const root = project()
    hook(root, "PostToolUseFailure", "mid-session", {
      tool_name: "Bash",
      tool_input: { command: "npm run migrate" },
      tool_use_id: "toolu_1",
      error: "Exit code 1\nMigrationLockError: the ledger table is locked by another migration",
      is_interrupt: false
    })
    hook(root, "PostToolUse", "mid-session", {
      tool_name: "Edit",
      tool_input: { file_path: join(root, "db", "migrate.ts"), old_string: "lock()", new_string: "lock({ wait: true })" },
      tool_response: { filePath: join(root, "db", "migrate.ts") },
      tool_use_id: "toolu_2"
    })
    const found = runCli(["search", "MigrationLockError", "--json"], { cwd: root })
    expect(found.code).toBe(0)
    expect(JSON.parse(found.stdout).hits[0]).toMatchObject({ type: "error", title: expect.stringContaining("Bash npm run migrate") })
    expect(query(root, "SELECT DISTINCT project_path AS p FROM observation_rows")).toEqual([{ p: root }])
    // The session is known too, with its project, so its summary and injections are scoped.
    expect(query(root, "SELECT project_path AS p FROM sessions WHERE session_id = 'mid-session'")).toEqual([{ p: root }])
  })

  it("takes the git top level when the hook runs in a subfolder", () => {
    const root = project()
    const sub = join(root, "packages", "api")
    mkdirSync(sub, { recursive: true })
    hook(root, "PostToolUseFailure", "from-sub", {
      tool_name: "Bash",
      tool_input: { command: "npm test" },
      error: "Exit code 1\nQuotaExceededBanana in the api package",
      is_interrupt: false
    }, sub)
    const found = runCli(["search", "QuotaExceededBanana", "--json"], { cwd: root })
    expect(JSON.parse(found.stdout).hits[0]).toMatchObject({ type: "error", title: expect.stringContaining("QuotaExceededBanana") })
  })
})
