/**
 * PRD-driven and plan-only loops through their real entry points: the ralph-mem binary, a scripted agent
 * process per iteration, and the hook processes Claude Code would run (PreToolUse, Stop).
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"

const gitProject = () => {
  const root = tempFolder()
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, stdio: "ignore" })
  git("init", "-q")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "dev")
  writeFileSync(join(root, "README.md"), "shop\n")
  git("add", "-A")
  git("commit", "-qm", "init")
  return root
}

/** The user's config home is the project's own: what a run accepts is recorded there, never in the tester's. */
const ralph = (root: string, ...args: Array<string>) =>
  runCli(["ralph", ...args], {
    cwd: root,
    env: { RALPH_MEM_DB: "", CLAUDE_CODE_SESSION_ID: "", HOME: root, XDG_CONFIG_HOME: join(root, ".config") }
  })
const statusOf = (root: string) => {
  const result = ralph(root, "status", "--json")
  expect(result.stderr).toBe("")
  return JSON.parse(result.stdout)
}
const query = <T>(root: string, sql: string, ...params: Array<unknown>): Array<T> => {
  const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
  try {
    return db.prepare(sql).all(...params) as Array<T>
  } finally {
    db.close()
  }
}

describe("ralph run --prd", () => {
  /**
   * Three stories, out of priority order in the file, each with its own check (a file done/<id> exists).
   * The agent works on the story its prompt names; its first try at US-001 fails and says what it learned;
   * on its first run it also flips every `passes` flag itself, which the harness must undo.
   */
  const prdProject = () => {
    const root = gitProject()
    writeFileSync(
      join(root, "prd.json"),
      JSON.stringify(
        {
          project: "Shop",
          branchName: "ralph/checkout",
          description: "Build the checkout",
          userStories: ["US-001", "US-002", "US-003"].map((id, i) => ({
            id,
            title: ["Cart", "Catalog", "Payment"][i],
            description: `As a buyer I need story ${id}`,
            acceptanceCriteria: [`${id} works`],
            priority: [2, 1, 3][i],
            passes: false,
            notes: "",
            criteria: [`custom=node story-check.js ${id}`]
          }))
        },
        null,
        2
      )
    )
    writeFileSync(
      join(root, "story-check.js"),
      `const id = process.argv[2]
      if (!require("fs").existsSync("done/" + id)) { console.log("FAIL " + id + " is not done"); process.exit(1) }`
    )
    writeFileSync(
      join(root, "agent.js"),
      `
      const fs = require("fs"); const prompt = process.argv[2]
      fs.appendFileSync("prompts.log", prompt + "\\n=====\\n")
      const runs = Number(fs.existsSync("runs") ? fs.readFileSync("runs", "utf8") : 0) + 1
      fs.writeFileSync("runs", String(runs))
      if (runs === 1) {
        const prd = JSON.parse(fs.readFileSync("prd.json", "utf8"))
        for (const s of prd.userStories) s.passes = true
        fs.writeFileSync("prd.json", JSON.stringify(prd))
      }
      const id = /Work on this one story now, and only on it: (US-\\d+)/.exec(prompt)[1]
      if (id === "US-001" && !fs.existsSync("tried-cart")) {
        fs.writeFileSync("tried-cart", "1")
        console.log("Learned: the cart needs a currency field first")
        process.exit(0)
      }
      fs.mkdirSync("done", { recursive: true })
      fs.writeFileSync("done/" + id, "yes")
      console.log("Implemented " + id)`
    )
    return root
  }

  it("works story by story, highest priority first, marking a story when its checks pass, until all pass", () => {
    const root = prdProject()
    const result = ralph(
      root,
      "run",
      "--prd",
      "prd.json",
      "--accept-commands",
      "--agent",
      "node agent.js",
      "--criteria",
      "custom=node -e 0"
    )
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(
      /Ralph loop \S+: Build the checkout \(agent: node agent\.js; 3 stories from .*prd\.json\)/
    )
    expect(result.stdout.split("\n").filter((l) => l.startsWith("iteration"))).toEqual([
      "iteration 1 US-002: passed (custom ok, custom ok); 1 of 3 stories pass; tokens not reported",
      "iteration 2 US-001: failed (custom ok, custom failed); 1 of 3 stories pass; tokens not reported",
      "iteration 3 US-001: passed (custom ok, custom ok); 2 of 3 stories pass; tokens not reported",
      "iteration 4 US-003: passed (custom ok, custom ok); 3 of 3 stories pass; tokens not reported"
    ])
    const status = statusOf(root)
    expect(status).toMatchObject({
      status: "success",
      mode: "prd",
      iteration: 4,
      stories: [
        { id: "US-001", passes: true },
        { id: "US-002", passes: true },
        { id: "US-003", passes: true }
      ]
    })
    // The file carries the harness's flags, with everything else as the user wrote it.
    const prd = JSON.parse(readFileSync(join(root, "prd.json"), "utf8"))
    expect(prd).toMatchObject({ project: "Shop", branchName: "ralph/checkout" })
    expect(prd.userStories.map((s: { passes: boolean; notes: string }) => [s.passes, s.notes])).toEqual([[true, ""], [
      true,
      ""
    ], [true, ""]])
    expect(query(root, "SELECT mode, stories_total, stories_passed FROM loop_runs")).toEqual([{
      mode: "prd",
      stories_total: 3,
      stories_passed: 3
    }])
  })

  it("feeds each iteration the story, the harness's view of the others, and what earlier iterations learned", () => {
    const root = prdProject()
    expect(
      ralph(
        root,
        "run",
        "--prd",
        "prd.json",
        "--accept-commands",
        "--agent",
        "node agent.js",
        "--criteria",
        "custom=node -e 0"
      ).code
    )
      .toBe(0)
    const prompts = readFileSync(join(root, "prompts.log"), "utf8").split("\n=====\n")
    expect(prompts[0]).toMatch(
      new RegExp(
        /\[ralph-mem PRD loop \S+\] Goal: Build the checkout[\s\S]*/.source
          + /only on it: US-002 \(priority 1\) — Catalog\n/.source
          + /As a buyer I need story US-002\nAcceptance criteria:\n- US-002 works/.source
      )
    )
    // The agent flipped every flag in iteration 1; the harness only saw US-002's check pass.
    expect(prompts[1]).toMatch(/Stories: US-001 \(this one\), US-002 \(passes\), US-003\./)
    expect(prompts[2]).toMatch(
      new RegExp(
        /only on it: US-001[\s\S]*FAIL US-001 is not done[\s\S]*What memory recorded in this loop:[\s\S]*/.source
          + /Learned: the cart needs a currency field first/.source
      )
    )
    const learnings = query<{ type: string; input_summary: string }>(
      root,
      "SELECT type, input_summary FROM observations WHERE tool_name = 'prd-story' ORDER BY id"
    )
    expect(learnings).toEqual([
      { type: "success", input_summary: "US-002 Catalog (iteration 1)" },
      { type: "error", input_summary: "US-001 Cart (iteration 2)" },
      { type: "success", input_summary: "US-001 Cart (iteration 3)" },
      { type: "success", input_summary: "US-003 Payment (iteration 4)" }
    ])
    // The agent's runs and the learnings belong to the project (no SessionStart names it): search finds them.
    expect(query(root, "SELECT DISTINCT project_path AS p FROM observation_rows")).toEqual([{ p: root }])
    const found = runCli(["search", "Catalog", "--json"], { cwd: root })
    expect(JSON.parse(found.stdout).hits).toEqual(
      expect.arrayContaining([expect.objectContaining({ title: expect.stringContaining("US-002 Catalog") })])
    )
  })

  it("runs the commands a prd.json's stories set only once they are accepted, and again only when unchanged", () => {
    const root = gitProject()
    // A prd.json that came with a repository: its story's check is the repository's command, not the user's.
    const planted = (command: string) =>
      writeFileSync(
        join(root, "prd.json"),
        JSON.stringify({
          description: "Build the checkout",
          userStories: [
            { id: "US-1", title: "Cart", acceptanceCriteria: ["works"], criteria: [`custom=${command}`] },
            {
              id: "US-2",
              title: "Pay",
              acceptanceCriteria: ["works"],
              criteria: ["marker", `custom=sh -c "echo it's; id"`]
            }
          ]
        })
      )
    writeFileSync(join(root, "mark.js"), `require("fs").writeFileSync("ran", process.argv[2])`)
    planted("node mark.js 1")
    const run = (...extra: Array<string>) =>
      ralph(root, "run", "--prd", "prd.json", "--agent", "node -e 0", "--max-iterations", "1", ...extra)
    const loops = () =>
      existsSync(join(root, ".ralph-mem", "memory.db"))
        ? query<{ n: number }>(root, "SELECT count(*) AS n FROM loop_runs")[0]!.n
        : 0

    const refused = run()
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain("prd.json sets commands for its stories' checks")
    expect(refused.stderr).toContain("  US-1: custom=node mark.js 1")
    // Each argument as a shell would need it typed: what is accepted reads as what would run.
    expect(refused.stderr).toContain(`  US-2: custom=sh -c 'echo it'\\''s; id'`)
    expect(refused.stderr).toContain("run again with --accept-commands")
    expect(existsSync(join(root, "ran"))).toBe(false)
    expect(loops()).toBe(0)

    const accepted = run("--accept-commands")
    expect(accepted.stderr).toContain("Accepted the commands of")
    expect(accepted.stdout).toContain("iteration 1 US-1")
    expect(existsSync(join(root, "ran"))).toBe(true)
    expect(loops()).toBe(1)
    // The record is the user's, outside the project's memory and files.
    expect(readFileSync(join(root, ".config", "ralph-mem", "trusted-projects.json"), "utf8")).toContain(
      `prd:${join(root, "prd.json")}`
    )

    // Accepted: the next run needs no flag, though the loop rewrote the file's passes flags.
    rmSync(join(root, "ran"))
    const again = run()
    expect(again.stderr).not.toContain("sets commands")
    expect(existsSync(join(root, "ran"))).toBe(true)
    expect(loops()).toBe(2)

    // A changed command is refused again, and runs nothing.
    rmSync(join(root, "ran"))
    planted("node mark.js 2")
    const changed = run()
    expect(changed.code).not.toBe(0)
    expect(changed.stderr).toContain("  US-1: custom=node mark.js 2")
    expect(existsSync(join(root, "ran"))).toBe(false)
    expect(loops()).toBe(2)
  })

  it("says so, accepting and running nothing, when the record of what was accepted cannot be written", () => {
    const root = gitProject()
    writeFileSync(join(root, "mark.js"), `require("fs").writeFileSync("ran", "1")`)
    writeFileSync(
      join(root, "prd.json"),
      JSON.stringify({
        userStories: [{ id: "US-1", title: "Cart", acceptanceCriteria: [], criteria: ["custom=node mark.js"] }]
      })
    )
    mkdirSync(join(root, ".ralph-mem"), { recursive: true })
    writeFileSync(
      join(root, ".ralph-mem", "config.yaml"),
      "loop:\n  success_criteria:\n    - type: custom\n      command: node mark.js\n"
    )
    // The config home is a file: the record beside it cannot be made.
    writeFileSync(join(root, "home-file"), "")
    const env = { RALPH_MEM_DB: "", CLAUDE_CODE_SESSION_ID: "", HOME: root, XDG_CONFIG_HOME: join(root, "home-file") }
    const store = join(root, "home-file", "ralph-mem", "trusted-projects.json")
    for (
      const args of [
        ["ralph", "run", "--prd", "prd.json", "--accept-commands", "--agent", "node -e 0", "--max-iterations", "1"],
        ["config", "trust"]
      ]
    ) {
      const result = runCli(args, { cwd: root, env })
      expect(result.code, args.join(" ")).not.toBe(0)
      expect(result.stderr).toContain(`cannot record the acceptance in ${store} (ENOTDIR): nothing was accepted`)
      // A message, not a stack trace.
      expect(result.stderr).not.toMatch(/\n\s+at /)
    }
    expect(existsSync(join(root, "ran"))).toBe(false)
  })

  it("asks nothing of a prd.json whose stories set no command", () => {
    const root = gitProject()
    writeFileSync(
      join(root, "prd.json"),
      JSON.stringify({
        userStories: [{ id: "US-1", title: "Cart", acceptanceCriteria: ["works"], criteria: ["marker"] }]
      })
    )
    const result = ralph(root, "run", "--prd", "prd.json", "--agent", "node -e 0", "--max-iterations", "1")
    expect(result.stderr).not.toContain("sets commands")
    expect(result.stdout).toContain("iteration 1 US-1")
  })

  it("prints a prd.json's text inert: a description or story id holding terminal sequences runs nothing", () => {
    const root = gitProject()
    // ESC ]52 writes the clipboard, ESC [2J clears the screen: a PRD that came with a repository is the user's to run.
    const clipboard = "\u001b]52;c;cHduZWQ=\u0007"
    writeFileSync(
      join(root, "prd.json"),
      JSON.stringify({
        description: `${clipboard}Build the checkout\u001b[2J`,
        userStories: [{ id: `US-1${clipboard}`, title: "Cart", acceptanceCriteria: ["works"], priority: 1 }]
      })
    )
    const ran = ralph(
      root,
      "run",
      "--prd",
      "prd.json",
      "--agent",
      "node -e 0",
      "--max-iterations",
      "1",
      "--criteria",
      "custom=node -e 0"
    )
    const shown = ralph(root, "status")
    for (const output of [ran.stdout, ran.stderr, shown.stdout, shown.stderr]) {
      expect(output).not.toMatch(/[\u0007\u001b]/)
    }
    expect(ran.stdout).toContain("Ralph loop")
    expect(ran.stdout).toContain("\\x1b]52;c;cHduZWQ=\\x07Build the checkout\\x1b[2J")
    expect(ran.stdout).toMatch(/iteration 1 US-1\\x1b\]52/)
    expect(shown.stdout).toMatch(/goal\s+\\x1b\]52;c;cHduZWQ=\\x07Build the checkout/)
    // --json keeps the text as it is (escaped by JSON).
    expect(statusOf(root).goal).toBe(`${clipboard}Build the checkout\u001b[2J`)
  })

  it("refuses an invalid prd.json with one line per problem, and starts nothing", () => {
    const root = gitProject()
    writeFileSync(
      join(root, "prd.json"),
      JSON.stringify({
        userStories: [{ id: "A", title: "", acceptanceCriteria: [] }, {
          id: "A",
          title: "b",
          priority: "high",
          acceptanceCriteria: []
        }]
      })
    )
    const result = ralph(root, "run", "--prd", "prd.json", "--agent", "node -e 0")
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(
      new RegExp(
        /prd\.json cannot be used:\n- userStories\[0\]\.title: expected a non-empty string, got ""\n/.source
          + /- userStories\[1\]\.priority: expected a number \(lower comes first\), got "high"/.source
      )
    )
    expect(ralph(root, "run", "--prd", "missing.json").stderr).toMatch(
      /missing\.json cannot be used:\n- cannot be read: ENOENT/
    )
    expect(
      existsSync(join(root, ".ralph-mem", "memory.db"))
        ? query(root, "SELECT count(*) AS n FROM loop_runs")
        : [{ n: 0 }]
    ).toEqual([{ n: 0 }])
    expect(ralph(root, "run", "--agent", "node -e 0").stderr).toMatch(/Give a goal, or --prd prd\.json/)
  })
})

describe("ralph plan", () => {
  const preToolUse = (root: string, session: string, tool: string, input: Record<string, unknown>) =>
    runHookProcess(
      "PreToolUse",
      payload("PreToolUse", session, root, { tool_name: tool, tool_input: input, tool_use_id: `t-${Math.random()}` }),
      { cwd: root }
    )
  const stop = (root: string, session: string, message: string) =>
    runHookProcess(
      "Stop",
      payload("Stop", session, root, { stop_hook_active: true, last_assistant_message: message }),
      { cwd: root }
    )
  const denial = (run: { stdout: string }) => JSON.parse(run.stdout).hookSpecificOutput

  it("blocks edits and changing commands in its session only, with a reason the model reads", () => {
    const root = gitProject()
    const started = ralph(root, "plan", "design", "the", "cache", "--session", "s1")
    expect(started.code, started.stderr).toBe(0)
    expect(started.stdout).toMatch(
      new RegExp(
        /Ralph plan loop \S+ started: design the cache\nWrite a plan, not code[\s\S]*/.source
          + /heading for each of: Goal, Steps, Risks, Verification/.source
      )
    )
    const write = denial(preToolUse(root, "s1", "Write", { file_path: join(root, "cache.ts"), content: "x" }))
    expect(write).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringMatching(
        /^Blocked by ralph-mem: plan loop \S+ is running in this session[\s\S]*Write edits files/
      )
    })
    expect(denial(preToolUse(root, "s1", "Bash", { command: "rm -rf src" })).permissionDecisionReason).toMatch(
      /`rm -rf src` is not a known read-only command/
    )
    for (
      const allowed of [
        preToolUse(root, "s1", "Bash", { command: "git log --oneline | head" }),
        preToolUse(root, "s1", "Read", { file_path: "README.md" }),
        preToolUse(root, "s2", "Write", { file_path: "x" })
      ]
    ) {
      expect(allowed).toMatchObject({ code: 0, stdout: "" })
    }
    expect(query(
      root,
      "SELECT json_extract(payload, '$.toolName') AS tool, json_extract(payload, '$.inputSummary') AS summary"
        + " FROM events WHERE type = 'LoopToolBlocked' ORDER BY position"
    )).toEqual([
      { tool: "Write", summary: join(root, "cache.ts") },
      { tool: "Bash", summary: "rm -rf src" }
    ])
  })

  it("fails open on a malformed PreToolUse payload: the tool runs, the failure is logged", () => {
    const root = gitProject()
    expect(ralph(root, "plan", "p", "--session", "s1").code).toBe(0)
    for (
      const stdin of [
        "{ not json",
        JSON.stringify({ session_id: "s1", cwd: root }),
        JSON.stringify({ session_id: "s1", cwd: root, tool_name: 42 }),
        "[]"
      ]
    ) {
      expect(runHookProcess("PreToolUse", stdin, { cwd: root })).toMatchObject({ code: 0, stdout: "" })
    }
    // A command that is not a string cannot be judged read-only: refused, never crashed on.
    expect(denial(preToolUse(root, "s1", "Bash", { command: ["rm", "-rf", "/"] })).permissionDecisionReason).toMatch(
      /could not be read/
    )
    expect(
      readFileSync(join(root, ".ralph-mem", "hooks.log"), "utf8").split("\n").filter((l) => l.includes("PreToolUse"))
    ).toHaveLength(4)
  })

  it("holds the first reply as a draft, then accepts and saves a plan with all sections (in Korean too)", () => {
    const root = gitProject()
    expect(
      ralph(
        root,
        "plan",
        "design the cache",
        "--session",
        "s1",
        "--required-sections",
        "Goal, Steps",
        "--required-sections",
        "Risks"
      ).code
    ).toBe(0)
    const draft = JSON.parse(stop(root, "s1", "## Goal\nA cache.\n## Steps\n1. add it\n[PLAN_COMPLETE]").stdout)
    expect(draft.decision).toBeUndefined()
    expect(draft.hookSpecificOutput.additionalContext).toMatch(
      new RegExp(
        /\[ralph-mem plan loop \S+\] Goal: design the cache[\s\S]*Critique the previous draft first[\s\S]*/.source
          + /plan_sections: failed[\s\S]*min_iterations: failed/.source
      )
    )
    const incomplete = JSON.parse(stop(root, "s1", "## 목표\n캐시.\n## 단계\n1. 추가\n[PLAN_COMPLETE]").stdout)
    expect(incomplete.hookSpecificOutput.additionalContext).toMatch(/the plan lacks a heading for: Risks/)
    const plan = "## 목표\n캐시를 둔다.\n## 구현 단계\n1. 추가\n## 위험 요소\n만료.\n"
      + "Key sk-ant-api03-PLANsecret0123456789abcdefABCDEF <private>internal host QX-ORCHID-51</private>\n"
      + "[PLAN_COMPLETE]"
    const accepted = JSON.parse(stop(root, "s1", plan).stdout)
    const status = statusOf(root)
    expect(accepted.hookSpecificOutput).toBeUndefined()
    expect(accepted.systemMessage).toMatch(
      new RegExp(
        `succeeded at iteration 3[\\s\\S]*The plan is saved to ${
          status.planPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        }`
      )
    )
    expect(status).toMatchObject({ status: "success", mode: "plan", iteration: 3 })
    expect(status.planPath).toBe(join(root, ".ralph-mem", "plans", `plan-${status.loopId}.md`))
    const saved = readFileSync(status.planPath, "utf8")
    // Private like everything under .ralph-mem.
    expect([statSync(join(root, ".ralph-mem", "plans")).mode & 0o777, statSync(status.planPath).mode & 0o777]).toEqual([
      0o700,
      0o600
    ])
    expect(saved).toMatch(
      new RegExp(
        /^## 목표\n캐시를 둔다\.[\s\S]*## 위험 요소[\s\S]*/.source
          + /Key \[secret:anthropic-key\] \[private\]\n\[PLAN_COMPLETE\]\n$/.source
      )
    )
    expect(query(root, "SELECT json_extract(payload, '$.plan') AS plan FROM events WHERE type = 'LoopPlanSaved'"))
      .toEqual([{ plan: saved.trimEnd() }])
    // The loop is over: edits pass again.
    expect(preToolUse(root, "s1", "Write", { file_path: "x" }).stdout).toBe("")
    const bytes = ["memory.db", "memory.db-wal"].map((
      f
    ) => (existsSync(join(root, ".ralph-mem", f)) ? readFileSync(join(root, ".ralph-mem", f)).toString("latin1") : ""))
      .join("")
    for (const planted of ["PLANsecret", "QX-ORCHID-51"]) expect(bytes + saved).not.toContain(planted)
  })

  it("writes the plan where --out says, and refuses bad flags and an external resume", () => {
    const root = gitProject()
    expect(ralph(root, "plan", "x", "--session", "s1", "--min-iterations", "0").stderr).toMatch(
      /--min-iterations must be at least 1/
    )
    expect(ralph(root, "plan", "x", "--session", "s1", "--min-iterations", "5", "--max-iterations", "3").stderr)
      .toMatch(/--max-iterations \(3\) is below --min-iterations \(5\)/)
    expect(ralph(root, "plan", "x").stderr).toMatch(/no Claude Code session/)
    expect(ralph(root, "plan", "ship it", "--session", "s1", "--min-iterations", "1", "--out", "docs/PLAN.md").code)
      .toBe(0)
    expect(ralph(root, "resume", "--agent", "node -e 0").stderr).toMatch(
      /is a plan loop: it runs inside a Claude Code session/
    )
    const done = JSON.parse(
      stop(root, "s1", "# Plan\n## Goal\ng\n## Steps\ns\n## Risks\nr\n## Verification\nv\n[PLAN_COMPLETE]").stdout
    )
    expect(done.systemMessage).toMatch(/succeeded at iteration 1/)
    expect(readFileSync(join(root, "docs", "PLAN.md"), "utf8")).toMatch(/^# Plan\n## Goal/)
  })
})
