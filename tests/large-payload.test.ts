/**
 * Issue 15, item 4: a hook finishes well inside Claude Code's timeout whatever the payload's size. The
 * bound here is generous (a hook that scanned 60 MB rule by rule took over a minute); the speed itself
 * is measured in bench/hooks.ts.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { spawnSync } from "node:child_process"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { HOOK, testRunState } from "./support/cli.ts"
import { payload } from "./support/hook.ts"

const GENEROUS_MS = 20_000

const runHook = (root: string, stdin: string) => {
  const started = Date.now()
  const result = spawnSync(process.execPath, [HOOK, "PostToolUse"], {
    cwd: root,
    input: stdin,
    env: { PATH: process.env["PATH"] ?? "", ...testRunState(), HOME: root },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    // Far beyond the bound: a run this long has failed anyway, and the test must end.
    timeout: 10 * GENEROUS_MS
  })
  return { code: result.status, stderr: result.stderr, elapsed: Date.now() - started }
}

const logLines = (bytes: number): string => {
  const line = "2026-11-25T00:12:33.123Z INFO request handled path=/api/v1/items status=200 duration_ms=12\n"
  return line.repeat(Math.ceil(bytes / line.length))
}

describe("a 60 MB tool response", () => {
  it("is recorded well inside the hook timeout, its stored head and tail scanned in full", () => {
    const root = tempFolder()
    mkdirSync(join(root, ".git"))
    const headSecret = "ghp_HEADplanted0123456789abcdefghijklmnop"
    const tailSecret = "sk-ant-api03-TAILplanted0123456789abcdefABCDEF"
    const stdout = `export GITHUB_TOKEN=${headSecret}\n${logLines(60_000_000)}password=TailPlanted99 ${tailSecret}\n`
    const stdin = payload("PostToolUse", "s1", root, {
      tool_name: "Bash",
      tool_input: { command: "cat huge.log" },
      tool_response: { stdout, stderr: "", interrupted: false },
      tool_use_id: "t1"
    })
    expect(stdin.length).toBeGreaterThan(60_000_000)

    const run = runHook(root, stdin)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe("")
    expect(run.elapsed).toBeLessThan(GENEROUS_MS)

    const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
    const rows = db.prepare("SELECT content, metadata FROM observations").all() as Array<
      { content: string; metadata: string }
    >
    db.close()
    expect(rows).toHaveLength(1)
    expect(JSON.parse(rows[0]!.metadata)).toMatchObject({ truncated: true })
    expect(rows[0]!.content).toContain("export GITHUB_TOKEN=[secret:github-token]")
    expect(rows[0]!.content).toContain("[secret:anthropic-key]")
    const bytes = ["memory.db", "memory.db-wal"].map((f) => {
      try {
        return readFileSync(join(root, ".ralph-mem", f)).toString("latin1")
      } catch {
        return ""
      }
    }).join("")
    for (const planted of [headSecret, tailSecret, "TailPlanted99"]) expect(bytes).not.toContain(planted)
  })

  it("as a million small strings (an MCP tool's answer) is recorded well inside the timeout", () => {
    const root = tempFolder()
    mkdirSync(join(root, ".git"))
    const items = Array.from(
      { length: 1_000_000 },
      (_, i) => `row ${i}: token=abc${i} name=item-${i} padding-padding-pad`
    )
    const stdin = payload("PostToolUse", "s1", root, {
      tool_name: "mcp__db__query",
      tool_input: { sql: "select *" },
      tool_response: { rows: items },
      tool_use_id: "t2"
    })
    expect(stdin.length).toBeGreaterThan(55_000_000)
    const run = runHook(root, stdin)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe("")
    expect(run.elapsed).toBeLessThan(GENEROUS_MS)
    const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
    const [row] = db.prepare("SELECT content FROM observations").all() as Array<{ content: string }>
    db.close()
    expect(row!.content).toContain("row 0: token=[secret:credential]")
    expect(row!.content).not.toContain("abc0 ")
  })

  it("as lists that hold no string, ten million side by side or eight million deep, is recorded in time too", () => {
    const wide = `[${"[],".repeat(10_000_000)}[]]`
    const deep = `${"[".repeat(8_000_000)}${"]".repeat(8_000_000)}`
    for (const [i, response] of [wide, deep].entries()) {
      const root = tempFolder()
      mkdirSync(join(root, ".git"))
      const fields = { tool_name: "mcp__db__query", tool_input: { sql: "select *" }, tool_use_id: `t${i}` }
      const stdin = payload("PostToolUse", "s1", root, fields).replace(/}$/, `,"tool_response":${response}}`)
      const run = runHook(root, stdin)
      expect(run.code).toBe(0)
      expect(run.stderr).toBe("")
      expect(run.elapsed).toBeLessThan(GENEROUS_MS)
      const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
      const rows = db.prepare("SELECT content FROM observations").all() as Array<{ content: string }>
      db.close()
      expect(rows).toHaveLength(1)
    }
  })

  it("as more lists than a hook could hold in memory (twenty million deep) is refused at once, and says so", () => {
    const root = tempFolder()
    mkdirSync(join(root, ".git"))
    const deep = `${"[".repeat(20_000_000)}${"]".repeat(20_000_000)}`
    const fields = { tool_name: "mcp__db__query", tool_input: { sql: "select *" }, tool_use_id: "t9" }
    const stdin = payload("PostToolUse", "s1", root, fields).replace(/}$/, `,"tool_response":${deep}}`)
    const run = runHook(root, stdin)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe("")
    expect(run.elapsed).toBeLessThan(GENEROUS_MS)
    // Nothing of the payload is recorded, but the refusal is: a HookFailed event and a line of hooks.log.
    const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
    const observations = db.prepare("SELECT count(*) AS n FROM observations").get() as { n: number }
    const failures = db.prepare("SELECT payload FROM events WHERE type = 'HookFailed'").all() as Array<
      { payload: string }
    >
    db.close()
    expect(observations.n).toBe(0)
    expect(failures).toHaveLength(1)
    expect(JSON.parse(failures[0]!.payload).reason).toMatch(/more than 12000000 JSON lists and objects/)
    expect(readFileSync(join(root, ".ralph-mem", "hooks.log"), "utf8")).toMatch(/more than 12000000 JSON lists/)
  })
})
