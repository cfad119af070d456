/**
 * Every event knows its project (issue 19 item 5): a session whose SessionStart never ran (the plugin was
 * installed mid-session, or that hook failed) is still found by search and injection, because each hook
 * takes the project from its payload's `cwd`.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { startMcp } from "./support/mcp.ts"

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
      tool_input: {
        file_path: join(root, "db", "migrate.ts"),
        old_string: "lock()",
        new_string: "lock({ wait: true })"
      },
      tool_response: { filePath: join(root, "db", "migrate.ts") },
      tool_use_id: "toolu_2"
    })
    const found = runCli(["search", "MigrationLockError", "--json"], { cwd: root })
    expect(found.code).toBe(0)
    expect(JSON.parse(found.stdout).hits[0]).toMatchObject({
      type: "error",
      title: expect.stringContaining("Bash npm run migrate")
    })
    expect(query(root, "SELECT DISTINCT project_path AS p FROM observation_rows")).toEqual([{ p: root }])
    // Once its turn ends, the session is known too, with its project, so its summary is scoped.
    hook(root, "Stop", "mid-session", {
      stop_hook_active: false,
      last_assistant_message: "The migration waits for the lock now."
    })
    expect(query(root, "SELECT project_path AS p FROM sessions WHERE session_id = 'mid-session'")).toEqual([{
      p: root
    }])
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
    expect(JSON.parse(found.stdout).hits[0]).toMatchObject({
      type: "error",
      title: expect.stringContaining("QuotaExceededBanana")
    })
  })
})

describe("paths as Claude and the user read them", () => {
  /** A project inside a home folder, a session that edits and fails with absolute paths. */
  const recorded = () => {
    const home = tempFolder()
    const root = join(home, "work", "shop")
    mkdirSync(join(root, ".git"), { recursive: true })
    const env = { HOME: home }
    const run = (event: string, session: string, fields: Record<string, unknown>) => {
      const result = runHookProcess(event, payload(event, session, root, fields), { cwd: root, env })
      expect(result.stderr).toBe("")
      return result
    }
    run("SessionStart", "s1", { source: "startup" })
    run("UserPromptSubmit", "s1", { prompt: `Fix the cart total in ${root}/src/cart.ts, see ${home}/notes/cart.md` })
    run("PostToolUseFailure", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test -- cart" },
      tool_use_id: "t1",
      error: `Exit code 1\nCartTotalMismatch: expected 10.01\n    at total (${root}/src/cart.ts:12:5)`,
      is_interrupt: false
    })
    run("PostToolUse", "s1", {
      tool_name: "Edit",
      tool_input: { file_path: `${root}/src/cart.ts`, old_string: "a + b", new_string: "cents(a) + cents(b)" },
      tool_response: { filePath: `${root}/src/cart.ts` },
      tool_use_id: "t2"
    })
    run("Stop", "s1", { stop_hook_active: false, last_assistant_message: `Fixed ${root}/src/cart.ts.` })
    run("SessionEnd", "s1", { reason: "exit" })
    return { home, root, env, run }
  }

  const readable = (text: string, home: string) => {
    expect(text).not.toContain(home)
    expect(text).toContain("src/cart.ts")
  }

  it("injects paths relative to the project and never the home folder; the log keeps them whole", () => {
    const { home, root, run } = recorded()
    const start = JSON.parse(run("SessionStart", "s2", { source: "startup" }).stdout).hookSpecificOutput
      .additionalContext as string
    readable(start, home)
    expect(start).toContain("~/notes/cart.md")
    const prompt = JSON.parse(run("UserPromptSubmit", "s2", { prompt: "CartTotalMismatch again in the cart" }).stdout)
      .hookSpecificOutput.additionalContext as string
    readable(prompt, home)
    expect(
      query(root, "SELECT count(*) AS n FROM events WHERE instr(payload, ?) > 0".replace("?", `'${root}/src/cart.ts'`))
    ).not.toEqual([{ n: 0 }])
    const [summary] = query(root, "SELECT summary FROM sessions WHERE session_id = 's1'") as Array<{ summary: string }>
    readable(summary!.summary, home)
  })

  /** What a command run in the project prints, once it succeeded. */
  const printed = (root: string, env: Record<string, string>, ...args: Array<string>) => {
    const result = runCli(args, { cwd: root, env })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    return result.stdout
  }

  it("prints them relative in search, show, timeline and resume, and keeps them whole in --json", () => {
    const { home, root, env } = recorded()
    const cli = (...args: Array<string>) => printed(root, env, ...args)
    for (const layer of ["1", "2", "3"]) readable(cli("search", "CartTotalMismatch", "--layer", layer), home)
    const json = JSON.parse(cli("search", "cents", "--layer", "3", "--json"))
    expect(JSON.stringify(json)).toContain(`${root}/src/cart.ts`)
    readable(cli("show", json.details[0].id), home)
    readable(cli("timeline"), home)
    readable(cli("resume"), home)
  })

  it("prints them relative in show of a session and of any other event, and keeps them whole in --json", () => {
    const { home, root, env } = recorded()
    const cli = (...args: Array<string>) => printed(root, env, ...args)
    cli("belief", "set", "key-files", `${root}/src/cart.ts holds the totals`)
    const positionOf = (type: string) => `@${JSON.parse(cli("audit", "--type", type, "--json"))[0].position}`
    const ids = [positionOf("SessionStarted"), positionOf("BeliefSet")]
    const shown = cli("show", ...ids)
    readable(shown, home)
    expect(shown).toContain("Edit src/cart.ts")
    expect(shown).toContain(`"value": "src/cart.ts holds the totals"`)
    expect(cli("show", ...ids, "--json")).toContain(`${root}/src/cart.ts holds the totals`)
  })

  it("prints a belief's or task's stream id naming this project as ., in home or not, whole in --json", () => {
    const inside = recorded()
    const outside = { home: tempFolder(), root: project() }
    for (const { home, root } of [inside, outside]) {
      const cli = (...args: Array<string>) => printed(root, { HOME: home }, ...args)
      cli("belief", "set", "stack", "TypeScript")
      cli("task", "start", "Fix the cart")
      const positionOf = (type: string) => `@${JSON.parse(cli("audit", "--type", type, "--json"))[0].position}`
      const ids = [positionOf("BeliefSet"), positionOf("TaskStarted")]
      const shown = cli("show", ...ids)
      expect(shown).not.toContain(root)
      expect(shown).not.toContain(home)
      expect(shown).toContain(", belief:.#stack, ")
      expect(shown).toContain(", task:.#fix-the-cart, ")
      const json = cli("show", ...ids, "--json")
      expect(json).toContain(`"belief:${root}#stack"`)
      expect(json).toContain(`"task:${root}#fix-the-cart"`)
    }
  })

  it("prints them relative in belief set and belief list, and keeps them whole in --json", () => {
    const inside = recorded()
    const outside = { home: tempFolder(), root: project() }
    for (const { home, root } of [inside, outside]) {
      const cli = (...args: Array<string>) => printed(root, { HOME: home }, ...args)
      const value = `${root}/src/cart.ts holds the totals, ${home}/notes/cart.md the plan`
      const said = cli("belief", "set", "key-files", value)
      expect(said).toBe("key-files: src/cart.ts holds the totals, ~/notes/cart.md the plan\n")
      expect(cli("belief", "set", "key-files", value)).toBe(
        "key-files: src/cart.ts holds the totals, ~/notes/cart.md the plan (unchanged)\n"
      )
      expect(cli("belief", "list")).toBe("key-files  src/cart.ts holds the totals, ~/notes/cart.md the plan\n")
      expect(JSON.parse(cli("belief", "set", "key-files", value, "--json")).value).toBe(value)
      expect(JSON.parse(cli("belief", "list", "--json"))).toMatchObject([{ key: "key-files", value }])
    }
  })

  it("prints them relative in task show, task list and why (a file elsewhere whole), whole in --json", () => {
    const inside = recorded()
    const outside = { home: tempFolder(), root: project() }
    for (const { home, root } of [inside, outside]) {
      const elsewhere = tempFolder()
      const cli = (...args: Array<string>) => printed(root, { HOME: home }, ...args)
      const title = `Fix ${root}/src/cart.ts`
      cli("task", "start", title, "--id", "cart")
      cli("task", "plan", `Round in ${root}/src/cart.ts`)
      cli("task", "finding", `the totals are in ${root}/src/cart.ts, the plan in ${home}/notes/cart.md`)
      cli("task", "handoff", `go on in ${root}/src/cart.ts`)
      const decision = `Keep cents in ${root}/src/cart.ts`
      cli("decide", decision, "--why", `floats in ${root}/src/money.ts`, "--alternative", `${home}/decimal.js: heavy`)
      for (const [file, id] of [[`${home}/notes/cart.md`, "r1"], [`${elsewhere}/spec.md`, "r2"]] as const) {
        hook(root, "PostToolUse", "s9", {
          tool_name: "Read",
          tool_input: { file_path: file },
          tool_response: { file: { filePath: file, numLines: 1 } },
          tool_use_id: id
        })
      }
      const decisionLines = [
        "Keep cents in src/cart.ts",
        "",
        "- why: floats in src/money.ts",
        "- rejected: ~/decimal.js (heavy)"
      ].join("\n")
      const shown = cli("task", "show")
      expect(shown).not.toContain(home)
      expect(shown).not.toContain(root)
      for (
        const line of [
          "# Task cart: Fix src/cart.ts",
          "- [ ] 1. Round in src/cart.ts",
          "- the totals are in src/cart.ts, the plan in ~/notes/cart.md",
          "go on in src/cart.ts",
          `### ${decisionLines}`
        ]
      ) expect(shown).toContain(line)
      // A file outside the project and the home folder keeps its whole path.
      const read = /^- read: (.*)$/m.exec(shown)?.[1]?.split(", ")
      expect(read?.sort()).toEqual([`${elsewhere}/spec.md`, "~/notes/cart.md"].sort())
      expect(cli("task", "list")).toBe("cart  open  0/1 steps done    Fix src/cart.ts\n")
      const why = cli("why", "cents")
      expect(why).not.toContain(home)
      expect(why).toContain(`## ${decisionLines}`)
      expect(JSON.parse(cli("task", "show", "--json"))).toMatchObject({ title, decisions: [{ decision }] })
      expect(JSON.parse(cli("task", "list", "--json"))).toMatchObject([{ title }])
      expect(JSON.parse(cli("why", "cents", "--json"))).toMatchObject({ decisions: [{ decision }] })
    }
  })

  it("tells Claude them relative in every memory tool's answer", async () => {
    const { home, root, env } = recorded()
    const cli = (...args: Array<string>) => printed(root, env, ...args)
    cli("task", "start", `Fix ${root}/src/cart.ts`, "--id", "cart")
    cli("task", "finding", `the plan is in ${home}/notes/cart.md`)
    cli("decide", `Keep cents in ${root}/src/cart.ts`, "--why", `floats in ${root}/src/money.ts`)
    cli("belief", "set", "key-files", `${root}/src/cart.ts holds the totals`)
    const [failure] = JSON.parse(cli("search", "CartTotalMismatch", "--type", "error", "--json")).hits
    const server = await startMcp({ cwd: root, env: { ...env, CLAUDE_PROJECT_DIR: root } })
    try {
      const answers = {
        search: await server.call("search", { query: "CartTotalMismatch cents" }),
        around: await server.call("timeline", { around: failure.id }),
        session: await server.call("timeline", { session: "s1" }),
        get: await server.call("get", { ids: [failure.id] }),
        why: await server.call("why", { query: "cents" }),
        beliefs: await server.call("beliefs"),
        task: await server.call("task", {})
      }
      for (const [tool, answer] of Object.entries(answers)) {
        expect(answer.isError, tool).toBe(false)
        expect(answer.text, tool).not.toContain(home)
        expect(answer.text, tool).toContain("src/cart.ts")
      }
      expect(answers.get.text).toContain("at total (src/cart.ts:12:5)")
      expect(answers.why.text).toContain("- why: floats in src/money.ts")
      expect(answers.task.text).toContain("- the plan is in ~/notes/cart.md")
    } finally {
      await server.close()
    }
  })

  it("tells a Ralph loop's next iteration them relative: the Stop hook's prompt and loop_status", async () => {
    const { home, root, env, run } = recorded()
    const cli = (...args: Array<string>) => printed(root, env, ...args)
    // The check fails naming a file of the project and one under the home folder, as a stack trace would.
    const said = `CartTotalMismatch at ${root}/src/cart.ts:12:5, see ${home}/notes/cart.md`
    writeFileSync(join(root, "check.js"), `console.error(${JSON.stringify(said)}); process.exit(1)\n`)
    cli(
      "ralph",
      "start",
      `make ${root}/src/cart.ts add in cents`,
      "--session",
      "s2",
      "--criteria",
      "custom=node check.js"
    )
    run("SessionStart", "s2", { source: "startup" })
    const stop = JSON.parse(run("Stop", "s2", { stop_hook_active: false, last_assistant_message: "Tried." }).stdout)
    const prompt = stop.hookSpecificOutput.additionalContext as string
    readable(prompt, home)
    expect(prompt).not.toContain(root)
    expect(prompt).toContain("Goal: make src/cart.ts add in cents")
    expect(prompt).toContain("CartTotalMismatch at src/cart.ts:12:5, see ~/notes/cart.md")
    const server = await startMcp({
      cwd: root,
      env: { ...env, CLAUDE_PROJECT_DIR: root, CLAUDE_CODE_SESSION_ID: "s2" }
    })
    try {
      const status = await server.call("loop_status")
      expect(status.isError).toBe(false)
      readable(status.text, home)
      expect(status.text).not.toContain(root)
      expect(status.text).toContain("CartTotalMismatch at src/cart.ts:12:5, see ~/notes/cart.md")
    } finally {
      await server.close()
    }
  })

  it("writes them relative in a Markdown export", () => {
    const { home, root, env } = recorded()
    expect(runCli(["belief", "set", "key-files", `${root}/src/cart.ts holds the totals`], { cwd: root, env }).code)
      .toBe(0)
    expect(runCli(["export"], { cwd: root, env }).code).toBe(0)
    const markdown = readFileSync(join(root, ".ralph-mem", "export", "beliefs.md"), "utf8")
    expect(markdown).toContain("src/cart.ts holds the totals")
    expect(markdown).not.toContain(home)
  })
})
