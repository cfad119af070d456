/**
 * The Ralph loop through its real entry points: the ralph-mem binary and the hook process.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"

/** Waits until `condition` holds: however long the processes it watches take to get there on a busy machine. */
const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 60_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still not so after 60 s: ${String(condition)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A git project with a check that passes once `fixed` exists, and an agent that fixes it on its third run. */
const project = (options: { fixAt?: number; agentSleepMs?: number; killParentAt?: number } = {}) => {
  const root = tempFolder()
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, stdio: "ignore" })
  git("init", "-q")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "dev")
  writeFileSync(join(root, "work.txt"), "original\n")
  writeFileSync(
    join(root, "check.js"),
    `if (!require("fs").existsSync("fixed")) { console.error("FAIL check > the thing is fixed"); process.exit(1) }`
  )
  writeFileSync(
    join(root, "agent.js"),
    `const fs = require("fs"); const n = Number(fs.existsSync("count") ? fs.readFileSync("count", "utf8") : 0) + 1
     fs.writeFileSync("count", String(n)); fs.appendFileSync("work.txt", "iteration " + n + "\\n")
     fs.appendFileSync("prompts.log", process.argv[2] + "\\n=====\\n")
     if (n === ${options.killParentAt ?? -1}) { process.kill(process.ppid, "SIGKILL"); process.exit(0) }
     if (n >= ${options.fixAt ?? 3}) fs.writeFileSync("fixed", "yes")
     const until = Date.now() + ${options.agentSleepMs ?? 0}; while (Date.now() < until) {}
     console.log("agent run " + n)`
  )
  git("add", "-A")
  git("commit", "-qm", "init")
  return root
}

const ralph = (root: string, ...args: Array<string>) =>
  runCli(["ralph", ...args], { cwd: root, env: { RALPH_MEM_DB: "", RALPH_MEM_NODE: "" } })
const json = (root: string, ...args: Array<string>) => {
  const result = ralph(root, ...args, "--json")
  expect(result.stderr, result.stdout).toBe("")
  return JSON.parse(result.stdout)
}
const loopRuns = (root: string) => {
  const db = newSqliteDatabase(join(root, ".ralph-mem", "memory.db"), { readonly: true })
  try {
    return db.prepare("SELECT loop_id, status, iterations, end_reason FROM loop_runs").all()
  } finally {
    db.close()
  }
}
const fast = ["--criteria", "custom=node check.js"]
/** The next iteration's prompt a Stop hook continued the turn with, or undefined when it let Claude stop. */
const continuation = (output: { hookSpecificOutput?: { hookEventName: string; additionalContext: string } }) => {
  if (output.hookSpecificOutput === undefined) return undefined
  expect(output.hookSpecificOutput.hookEventName).toBe("Stop")
  return output.hookSpecificOutput.additionalContext
}

describe("ralph run: a fresh agent per iteration", () => {
  it("succeeds when the harness's check passes at iteration 3, and status agrees with loop_runs", () => {
    const root = project()
    const result = ralph(root, "run", "make", "the", "check", "pass", "--agent", "node agent.js", ...fast)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(
      new RegExp(
        /iteration 1: failed[\s\S]*iteration 2: failed[\s\S]*iteration 3: passed[\s\S]*/.source
          + /The loop ended: success after 3 iteration/.source
      )
    )
    const status = json(root, "status")
    expect(status).toMatchObject({ goal: "make the check pass", status: "success", iteration: 3, driver: "external" })
    expect(status.lastResults).toEqual([expect.objectContaining({ kind: "custom", passed: true, exitCode: 0 })])
    expect(loopRuns(root)).toEqual([{ loop_id: status.loopId, status: "success", iterations: 3, end_reason: null }])
    // each prompt re-anchors on the goal; later ones carry what failed
    const prompts = readFileSync(join(root, "prompts.log"), "utf8").split("\n=====\n")
    expect(prompts[0]).toMatch(/Goal: make the check pass[\s\S]*iteration 1 of at most 10/)
    expect(prompts[1]).toMatch(
      /iteration 2 of at most 10[\s\S]*custom `node check\.js`: exit 1[\s\S]*FAIL check > the thing is fixed/
    )
  })

  it("ends at max iterations with the reason, and exits non-zero", () => {
    const root = project({ fixAt: 99 })
    const result = ralph(root, "run", "never", "--agent", "node agent.js", "--max-iterations", "2", ...fast)
    expect(result.code).toBe(1)
    expect(json(root, "status")).toMatchObject({
      status: "failed",
      iteration: 2,
      endReason: "max iterations (2) reached"
    })
  })

  it("is stopped by ralph stop from another process, at its next step", async () => {
    const root = project({ fixAt: 99, agentSleepMs: 400 })
    const child = spawn(process.execPath, [CLI, "ralph", "run", "slow", "--agent", "node agent.js", ...fast], {
      cwd: root,
      stdio: "ignore"
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    await until(() => existsSync(join(root, "count")))
    const stop = ralph(root, "stop", "--reason", "enough")
    expect(stop.code, stop.stderr).toBe(0)
    // The iteration under way when the stop was recorded may finish; no other starts.
    const iterationsAtStop = Number(readFileSync(join(root, "count"), "utf8"))
    expect(await exited).toBe(1)
    expect(json(root, "status")).toMatchObject({ status: "stopped", endReason: "enough" })
    expect(Number(readFileSync(join(root, "count"), "utf8"))).toBeLessThanOrEqual(iterationsAtStop + 1)
  })

  it("survives a crash mid-iteration: replay and status give the exact state, resume finishes the loop", () => {
    const root = project({ killParentAt: 2 })
    const crashed = ralph(root, "run", "crash test", "--agent", "node agent.js", ...fast)
    expect(crashed.code).toBeNull()
    expect(runCli(["replay"], { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)
    const status = json(root, "status")
    expect(status).toMatchObject({ status: "running", iteration: 2 })
    expect(loopRuns(root)).toEqual([{ loop_id: status.loopId, status: "running", iterations: 2, end_reason: null }])
    const resumed = ralph(root, "resume", "--agent", "node agent.js")
    expect(resumed.code, resumed.stderr).toBe(0)
    // The iteration the crash left open is run again: the agent's third run fixes it, in iteration 2.
    expect(json(root, "status")).toMatchObject({ status: "success", iteration: 2 })
    expect(readFileSync(join(root, "count"), "utf8")).toBe("3")
    expect(runCli(["verify"], { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)
  })
})

describe("ralph stop --rollback", () => {
  it("restores the working tree after saving a rescue snapshot, without touching git's index or HEAD", () => {
    const root = project({ fixAt: 99 })
    const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim()
    const head = git("rev-parse", "HEAD")
    const start = json(root, "start", "roll me back", "--session", "s1", ...fast)
    writeFileSync(join(root, "work.txt"), "changed by the loop\n")
    writeFileSync(join(root, "new-file.txt"), "created by the loop\n")
    const stopped = json(root, "stop", "--rollback")
    expect(stopped).toMatchObject({ status: "stopped", rollbacks: [{ toIteration: 0 }] })
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("original\n")
    expect(existsSync(join(root, "new-file.txt"))).toBe(false)
    expect(git("rev-parse", "HEAD")).toBe(head)
    expect(git("status", "--porcelain")).toBe("")
    // the rescue snapshot holds what the loop had done
    const rescue = stopped.rollbacks[0].rescueSnapshotRef.slice(4)
    expect(git("show", `${rescue}:new-file.txt`)).toBe("created by the loop")
    expect(start.loopId).toBe(stopped.loopId)
  })
})

describe("the in-session driver at Stop", () => {
  const stop = (root: string, session: string, env: Record<string, string> = {}) =>
    runHookProcess(
      "Stop",
      payload("Stop", session, root, { stop_hook_active: true, last_assistant_message: "I tried." }),
      { cwd: root, env }
    )

  it("continues the turn with a re-anchoring prompt while the check fails, and lets Claude stop once it passes", () => {
    const root = project()
    json(root, "start", "fix", "the", "thing", "--session", "s1", ...fast)
    const first = stop(root, "s1")
    const decision = JSON.parse(first.stdout)
    // Sent once, as additional context: never a `decision: block`, which Claude Code repeats and flags as an error.
    expect(decision.decision).toBeUndefined()
    expect(decision.reason).toBeUndefined()
    expect(continuation(decision)).toMatch(
      /Goal: fix the thing[\s\S]*iteration 2 of at most 10[\s\S]*FAIL check > the thing is fixed/
    )
    expect(decision.systemMessage).toMatch(/iteration 2 of 10/)
    writeFileSync(join(root, "fixed"), "yes")
    const second = stop(root, "s1")
    expect(JSON.parse(second.stdout)).toEqual({
      systemMessage: expect.stringMatching(/the loop succeeded at iteration 2/)
    })
    expect(json(root, "status")).toMatchObject({ status: "success", iteration: 2 })
  })

  it("warns a second loop in the project that the working tree is shared", () => {
    const root = project()
    const first = json(root, "start", "first goal", "--session", "s1", ...fast)
    const second = ralph(root, "start", "second goal", "--session", "s2", ...fast)
    expect(second.code).toBe(0)
    expect(second.stderr).toContain(
      `warning: loop ${first.loopId} (first goal) is also running in this project: the loops change the same ` +
        "working tree, and rolling one back restores files the other changed"
    )
  })

  it("never touches another session", () => {
    const root = project()
    json(root, "start", "mine", "--session", "s1", ...fast)
    expect(stop(root, "s2").stdout).toBe("")
    expect(json(root, "status")).toMatchObject({ status: "running", iteration: 1 })
  })

  it("ends the loop, saying why, when Claude Code's block cap would override it", () => {
    const root = project({ fixAt: 99 })
    json(root, "start", "capped", "--session", "s1", ...fast)
    const env = { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "2" }
    // Each turn changes a file, so it is the cap that ends the loop, not the no-progress rule.
    const turn = (n: number) => {
      writeFileSync(join(root, "work.txt"), `turn ${n}\n`)
      return JSON.parse(stop(root, "s1", env).stdout)
    }
    expect(continuation(turn(1))).toBeDefined()
    expect(continuation(turn(2))).toBeDefined()
    const third = turn(3)
    expect(continuation(third)).toBeUndefined()
    expect(third.systemMessage).toMatch(/ended without success[\s\S]*CLAUDE_CODE_STOP_HOOK_BLOCK_CAP/)
    expect(json(root, "status")).toMatchObject({
      status: "failed",
      endReason: expect.stringMatching(/CLAUDE_CODE_STOP_HOOK_BLOCK_CAP/)
    })
  })

  it("counts Stop-hook blocks from the user's last prompt: a new turn (stop_hook_active false) starts afresh", () => {
    const root = project({ fixAt: 99 })
    json(root, "start", "respect the user", "--session", "s1", ...fast)
    const env = { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "2" }
    const turn = (n: number, active: boolean) => {
      writeFileSync(join(root, "work.txt"), `turn ${n}\n`)
      return JSON.parse(
        runHookProcess(
          "Stop",
          payload("Stop", "s1", root, { stop_hook_active: active, last_assistant_message: "tried" }),
          { cwd: root, env }
        ).stdout
      )
    }
    expect(continuation(turn(1, false))).toBeDefined()
    expect(continuation(turn(2, true))).toBeDefined()
    // The user speaks: Claude Code's count of consecutive blocks starts again, and so does ours.
    runHookProcess("UserPromptSubmit", payload("UserPromptSubmit", "s1", root, { prompt: "keep going" }), { cwd: root })
    expect(continuation(turn(3, false))).toBeDefined()
    expect(json(root, "status")).toMatchObject({ status: "running", iteration: 4 })
  })

  it("re-anchors on the goal after a compaction, so the loop survives a summarised context", () => {
    const root = project({ fixAt: 99 })
    json(root, "start", "survive compaction", "--session", "s1", ...fast)
    runHookProcess("PreCompact", payload("PreCompact", "s1", root, { trigger: "auto", custom_instructions: null }), {
      cwd: root
    })
    expect(continuation(JSON.parse(stop(root, "s1").stdout))).toMatch(
      /^\[ralph-mem loop \w+\] Goal: survive compaction/
    )
  })

  it("lets Claude stop after ralph stop, without running the checks again", () => {
    const root = project({ fixAt: 99 })
    json(root, "start", "stop me", "--session", "s1", ...fast)
    expect(ralph(root, "stop").code).toBe(0)
    expect(stop(root, "s1").stdout).toBe("")
  })
})

describe("privacy on the loop's write paths", () => {
  it("keeps <private> text and secrets out of goals, stop reasons and the database", () => {
    const root = project()
    const secret = "sk-ant-api03-LOOPsecretVALUE0123456789abcdefABCDEF"
    json(root, "start", `deploy with ${secret} <private>vault pin QX-ZEPHYR-8812</private>`, "--session", "s1", ...fast)
    expect(ralph(root, "stop", "--reason", `giving up, key ${secret} <private>pin QX-ZEPHYR-8812 again</private>`).code)
      .toBe(0)
    const status = json(root, "status")
    expect(status.goal).toBe("deploy with [secret:anthropic-key] [private]")
    expect(status.endReason).toBe("giving up, key [secret:anthropic-key] [private]")
    const bytes = ["memory.db", "memory.db-wal"].map((f) => {
      try {
        return readFileSync(join(root, ".ralph-mem", f)).toString("latin1")
      } catch {
        return ""
      }
    }).join("")
    for (const planted of [secret, "QX-ZEPHYR-8812", "ZEPHYR"]) expect(bytes).not.toContain(planted)
  })
})

describe("ralph flags are strict", () => {
  it("refuses unknown criteria, a missing session, bad numbers and durations, never folding them into the goal", () => {
    const root = project()
    expect(ralph(root, "start", "goal", "--session", "s", "--criteria", "tests_pass").stderr).toMatch(
      /unknown criterion "tests_pass"/
    )
    expect(ralph(root, "start", "goal", "--criteria", "custom").stderr).toMatch(/no Claude Code session/)
    expect(ralph(root, "start", "goal", "--session", "s", "--criteria", "custom").stderr).toMatch(
      /custom needs a command/
    )
    expect(ralph(root, "start", "goal", "--session", "s", "--max-iterations", "0").stderr).toMatch(/at least 1/)
    expect(ralph(root, "start", "goal", "--session", "s", "--max-duration", "soon").stderr).toMatch(
      /--max-duration "soon" is not a duration; use 0, 90s/
    )
    expect(ralph(root, "start", "goal", "--session", "s", "--max-iteratoins", "3").stderr).toMatch(
      /Unrecognized flag: --max-iteratoins/
    )
    expect(ralph(root, "status").stderr).toMatch(/there is no loop in this project/)
    for (const command of ["run", "resume"]) {
      const args = command === "run"
        ? ["run", "goal", "--agent", "node \"unclosed"]
        : ["resume", "--agent", "node \"unclosed"]
      const result = ralph(root, ...args)
      expect([result.code, result.stderr.includes("    at ")]).toEqual([1, false])
      expect(result.stderr).toMatch(/--agent: unclosed " in/)
    }
    expect(ralph(root, "resume", "--agent-timeout", "soon").stderr).toMatch(/--agent-timeout "soon" is not a duration/)
  })

  it("changes a running loop's config as an event", () => {
    const root = project()
    json(root, "start", "tune me", "--session", "s1", ...fast)
    expect(json(root, "config", "max_iterations", "4")).toMatchObject({ maxIterations: 4 })
    expect(json(root, "status")).toMatchObject({ maxIterations: 4 })
    expect(ralph(root, "config", "cooldown_ms", "-5").stderr).toMatch(/whole number >= 0/)
    expect(ralph(root, "config", "nope", "1").stderr).toMatch(/unknown loop setting nope/)
  })
})

describe("a loop that respects the user's money and limits", () => {
  /** A git project whose check passes once `fixed` exists, and an agent script (`agent.js`) given as its body. */
  const projectWithAgent = (agentBody: string) => {
    const root = project({ fixAt: 99 })
    writeFileSync(
      join(root, "agent.js"),
      `const fs = require("fs"); const n = Number(fs.existsSync("count") ? fs.readFileSync("count", "utf8") : 0) + 1
      fs.writeFileSync("count", String(n)); fs.appendFileSync("work.txt", "iteration " + n + "\\n")
      ${agentBody}`
    )
    return root
  }
  /** What Claude Code's `-p --output-format json` prints at the end of a run. */
  const claudeResult = (fields: string) =>
    `console.log(JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "run " + n,`
    + ` ${fields} }))`

  it("keeps the user's limits where the project's config file, not accepted yet, raises them, and says so", () => {
    const root = project({ fixAt: 99 })
    mkdirSync(join(root, ".ralph-mem"))
    writeFileSync(join(root, ".ralph-mem", "config.yaml"), "loop:\n  max_iterations: 100000\n  max_tokens: 500\n")
    const env = { RALPH_MEM_DB: "", RALPH_MEM_NODE: "", XDG_CONFIG_HOME: tempFolder() }
    const cli = (...args: Array<string>) => runCli(args, { cwd: root, env })
    const started = cli("ralph", "start", "bounded", "--session", "s1", ...fast, "--json")
    expect(started.stderr).toMatch(
      /warning: .*config\.yaml: loop\.max_iterations raises a limit past your own settings/
    )
    // The lower token limit applies at once; the raised iteration limit stays the default.
    expect(JSON.parse(cli("ralph", "status", "--json").stdout)).toMatchObject({
      maxIterations: 10,
      stopConditions: { maxTokens: 500 }
    })
    expect(cli("ralph", "stop", "--json").code).toBe(0)

    expect(cli("config", "trust").stdout).toMatch(/loop\.max_iterations: 100000/)
    const accepted = cli("ralph", "start", "accepted", "--session", "s2", ...fast, "--json")
    expect(accepted.stderr).toBe("")
    expect(JSON.parse(cli("ralph", "status", "--json").stdout)).toMatchObject({ maxIterations: 100000 })
  })

  it("stops at --max-cost at the iteration whose reported cost reaches it, with tokens per iteration in status", () => {
    const root = projectWithAgent(claudeResult(
      "total_cost_usd: 0.4, usage: { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 300,"
        + " cache_creation_input_tokens: 50 }"
    ))
    const result = ralph(root, "run", "spend carefully", "--agent", "node agent.js", "--max-cost", "1", ...fast)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      new RegExp(
        /iteration 1: failed \(custom failed\); 1550 tokens /.source
          + /\(in 1000, out 200, cache read 300, cache write 50\), \$0\.4000/.source
      )
    )
    const status = json(root, "status")
    expect(status).toMatchObject({ status: "failed", iteration: 3, endReason: "max cost ($1) reached: $1.2000 spent" })
    expect(status.spend).toEqual({ tokens: 4650, costUsd: expect.closeTo(1.2, 6) })
    expect(status.iterations.map((it: { usage: { outputTokens: number } }) => it.usage.outputTokens)).toEqual([
      200,
      200,
      200
    ])
    expect(ralph(root, "status").stdout).toMatch(
      /spent\s+4650 tokens, \$1\.2000[\s\S]*iteration 1\s+failed, \d+ s, 1550 tokens/
    )
  })

  it("says tokens are not reported (never 0) for an agent that reports none, and --max-tokens cannot stop it", () => {
    const root = projectWithAgent(`console.log("did things")`)
    const result = ralph(
      root,
      "run",
      "quiet agent",
      "--agent",
      "node agent.js",
      "--max-tokens",
      "10",
      "--max-iterations",
      "2",
      ...fast
    )
    expect(result.stdout).toMatch(/iteration 1: failed \(custom failed\); tokens not reported/)
    const status = json(root, "status")
    expect(status).toMatchObject({
      status: "failed",
      endReason: "max iterations (2) reached",
      spend: { tokens: null, costUsd: null }
    })
    expect(ralph(root, "status").stdout).toMatch(/spent\s+not reported/)
  })

  it("waits for a usage limit's reported reset, then runs the iteration again: nothing lost or counted twice", () => {
    // The first run hits the limit with a reset 3 s ahead; the second fixes the check.
    const root = projectWithAgent(`
      fs.appendFileSync("runs.log", Date.now() + "\\n")
      if (n === 1) { console.log("Claude AI usage limit reached|" + Math.ceil(Date.now() / 1000 + 3)); process.exit(1) }
      fs.writeFileSync("fixed", "yes"); console.log("fixed it")`)
    const result = ralph(root, "run", "wait for me", "--agent", "node agent.js", ...fast)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(
      new RegExp(
        /iteration 1 hit a usage limit \(Claude AI usage limit reached\|\d+\); /.source
          + /waiting until .*left; ralph-mem ralph stop ends it/.source
      )
    )
    const status = json(root, "status")
    expect(status).toMatchObject({ status: "success", iteration: 1 })
    expect(status.waits).toEqual([expect.objectContaining({ iteration: 1, limit: "usage_limit", resetReported: true })])
    const [first, second] = readFileSync(join(root, "runs.log"), "utf8").trim().split("\n").map(Number)
    // The second run started no earlier than the reset the agent named.
    expect(second!).toBeGreaterThanOrEqual(Date.parse(status.waits[0].until))
    expect(second! - first!).toBeGreaterThanOrEqual(1_000)
  })

  it("ends a wait at once when ralph stop comes from another process", async () => {
    const root = projectWithAgent(
      `console.log("Claude AI usage limit reached|" + Math.ceil(Date.now() / 1000 + 3600)); process.exit(1)`
    )
    const child = spawn(process.execPath, [CLI, "ralph", "run", "limited", "--agent", "node agent.js", ...fast], {
      cwd: root,
      stdio: "ignore"
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    const waiting = () => {
      try {
        return json(root, "status").waits.length > 0
      } catch {
        return false
      }
    }
    await until(waiting)
    expect(ralph(root, "stop", "--reason", "not now").code).toBe(0)
    expect(await exited).toBe(1)
    expect(json(root, "status")).toMatchObject({ status: "stopped", endReason: "not now", iteration: 1 })
  })

  it("rolls a failed loop back to iteration 1, after a rescue snapshot of the tree it left", () => {
    const root = project({ fixAt: 99 })
    expect(ralph(root, "run", "never passes", "--agent", "node agent.js", "--max-iterations", "3", ...fast).stdout)
      .toMatch(
        new RegExp(
          /The loop ended: failed \(max iterations \(3\) reached\) after 3 iteration\(s\)\. /.source
            + /To undo its changes: ralph-mem ralph stop --loop \S+ --rollback --to N \(0-3\)/.source
        )
      )
    const afterThree = readFileSync(join(root, "work.txt"), "utf8")
    const stopped = json(root, "stop", "--rollback", "--to", "1")
    expect(stopped).toMatchObject({ status: "failed", rollbacks: [{ toIteration: 1 }] })
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("original\niteration 1\n")
    const rescue = stopped.rollbacks[0].rescueSnapshotRef.slice(4)
    expect(execFileSync("git", ["show", `${rescue}:work.txt`], { cwd: root, encoding: "utf8" })).toBe(afterThree)
    const audit = runCli(["audit", "--type", "LoopRolledBack", "--json"], { cwd: root, env: { RALPH_MEM_DB: "" } })
    expect(JSON.parse(audit.stdout)).toHaveLength(1)
  })

  it("never stops or rolls back another session's loop when several run in the project and none is named", () => {
    const root = project({ fixAt: 99 })
    const mine = json(root, "start", "mine", "--session", "s1", ...fast).loopId
    writeFileSync(join(root, "mine.txt"), "work of session s1\n")
    const started = ralph(root, "start", "theirs", "--session", "s2", ...fast, "--json")
    expect(started.stderr).toContain(`warning: loop ${mine} (mine) is also running in this project`)
    const theirs = JSON.parse(started.stdout).loopId
    const refused = ralph(root, "stop", "--rollback")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/2 loops are running in this project; name one with --loop/)
    expect(refused.stderr).toContain(mine)
    expect(refused.stderr).toContain(theirs)
    expect(readFileSync(join(root, "mine.txt"), "utf8")).toBe("work of session s1\n")
    // Inside Claude Code (the slash command) the session names its own loop.
    const inSession = runCli(["ralph", "stop", "--json"], {
      cwd: root,
      env: { RALPH_MEM_DB: "", RALPH_MEM_NODE: "", CLAUDE_CODE_SESSION_ID: "s1" }
    })
    expect(inSession.code, inSession.stderr).toBe(0)
    expect(JSON.parse(inSession.stdout)).toMatchObject({ loopId: mine, status: "stopped" })
    expect(json(root, "status", "--loop", theirs)).toMatchObject({ status: "running" })
  })

  it("refuses, recording nothing, to roll back to a snapshot that is gone, and says so without a trace", () => {
    // Outside git: a file-copy snapshot in .ralph-mem/snapshots, which a careless clean-up can delete.
    const root = tempFolder()
    writeFileSync(join(root, "work.txt"), "original\n")
    writeFileSync(join(root, "check.js"), "process.exit(1)")
    writeFileSync(join(root, "agent.js"), `require("fs").writeFileSync("work.txt", "changed\\n")`)
    ralph(root, "run", "never passes", "--agent", "node agent.js", "--max-iterations", "1", ...fast)
    const loopId = json(root, "status").loopId
    rmSync(join(root, ".ralph-mem", "snapshots", loopId, "start"), { recursive: true })
    const refused = ralph(root, "stop", "--rollback", "--to", "0")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /cannot roll back to iteration 0: snapshot files:\S+ is missing; nothing was changed/
    )
    expect(refused.stderr).not.toMatch(/\n\s+at /)
    expect(json(root, "status")).toMatchObject({ status: "failed", rollbacks: [] })
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("changed\n")
  })

  it("cannot tell what changed since the end without the last snapshot: asks for --force, without a trace", () => {
    const root = tempFolder()
    writeFileSync(join(root, "work.txt"), "original\n")
    writeFileSync(join(root, "check.js"), "process.exit(1)")
    writeFileSync(join(root, "agent.js"), `require("fs").writeFileSync("work.txt", "changed\\n")`)
    ralph(root, "run", "never passes", "--agent", "node agent.js", "--max-iterations", "1", ...fast)
    const loopId = json(root, "status").loopId
    rmSync(join(root, ".ralph-mem", "snapshots", loopId, "iteration-1"), { recursive: true })
    const refused = ralph(root, "stop", "--rollback", "--to", "0")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /cannot tell whether files changed since loop \S+ ended \(snapshot files:\S+ is missing\)/
    )
    expect(refused.stderr).not.toMatch(/\n\s+at /)
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("changed\n")
    expect(json(root, "stop", "--rollback", "--to", "0", "--force")).toMatchObject({ rollbacks: [{ toIteration: 0 }] })
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("original\n")
  })

  it("says when a snapshot cannot be taken, at the start and at each iteration, and goes on", () => {
    // A file too large to copy (a sparse 3 GiB dump: no disk used) outside git: no file-copy snapshot can be saved.
    const unsaved = () => {
      const root = tempFolder()
      writeFileSync(join(root, "work.txt"), "original\n")
      writeFileSync(join(root, "check.js"), "process.exit(1)")
      writeFileSync(join(root, "agent.js"), `require("fs").appendFileSync("work.txt", "again\\n")`)
      // Named with a terminal sequence (ESC [2J clears the screen): the warnings naming it show it inert.
      writeFileSync(join(root, "dump\u001b[2J.bin"), "")
      truncateSync(join(root, "dump\u001b[2J.bin"), 3 * 1024 ** 3)
      return root
    }
    const external = unsaved()
    const ran = ralph(external, "run", "never passes", "--agent", "node agent.js", "--max-iterations", "2", ...fast)
    expect(ran.stderr).toMatch(
      /warning: no snapshot of the starting point could be taken \(dump\\x1b\[2J\.bin: .+\): a rollback cannot/
    )
    expect(ran.stdout + ran.stderr).not.toMatch(/\u001b/)
    expect(ran.stdout).toMatch(
      /iteration 1: failed \(custom failed\); tokens not reported; no snapshot \(dump\\x1b\[2J\.bin: .+\)\n/
    )
    expect(ran.stdout).toMatch(/To undo its changes: none: no snapshot of it could be taken\./)
    const status = json(external, "status")
    expect(status).toMatchObject({ status: "failed", iteration: 2, snapshots: [] })
    expect(status.snapshotProblems.map((p: { iteration: number }) => p.iteration)).toEqual([0, 1, 2])
    expect(ralph(external, "status").stdout).toMatch(
      /no snapshot\s+of the start: .+\n\s+no snapshot\s+of iteration 1: /
    )

    const session = unsaved()
    const started = ralph(session, "start", "never passes", "--session", "s1", ...fast)
    expect(started.stderr).toMatch(/warning: no snapshot of the starting point could be taken/)
    expect(started.stderr).not.toMatch(/\u001b/)
    const stopped = runHookProcess(
      "Stop",
      payload("Stop", "s1", session, { stop_hook_active: false, last_assistant_message: "I tried." }),
      { cwd: session, env: { RALPH_MEM_DB: "" } }
    )
    expect(JSON.parse(stopped.stdout).systemMessage).toMatch(
      /iteration 2 of 10 .* No snapshot of iteration 1 could be taken \(.+\): a rollback cannot return to it\./
    )
  })

  it("refuses, changing nothing, to roll back when the rescue snapshot cannot be saved, and says why", () => {
    const root = tempFolder()
    writeFileSync(join(root, "work.txt"), "original\n")
    writeFileSync(join(root, "check.js"), "process.exit(1)")
    writeFileSync(join(root, "agent.js"), `require("fs").writeFileSync("work.txt", "changed\\n")`)
    ralph(root, "run", "never passes", "--agent", "node agent.js", "--max-iterations", "1", ...fast)
    const loopId = json(root, "status").loopId
    // A file too large to copy (a sparse 3 GiB dump: no disk used) appears after the loop: the tree it is in cannot
    // be saved, so rolling it back would lose what it holds now.
    writeFileSync(join(root, "dump.bin"), "")
    truncateSync(join(root, "dump.bin"), 3 * 1024 ** 3)
    const refused = ralph(root, "stop", "--rollback", "--to", "0", "--force")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/could not save what the working tree holds now \(.+\); nothing was changed/)
    expect(refused.stderr).not.toMatch(/\n\s+at /)
    expect(json(root, "status")).toMatchObject({ status: "failed", rollbacks: [] })
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("changed\n")
    // No half-made rescue snapshot is left beside the loop's own.
    expect(readdirSync(join(root, ".ralph-mem", "snapshots", loopId)).filter((name) => name.startsWith("rescue")))
      .toEqual([])
  })

  it("refuses to roll back an ended loop over work done since, unless told to go ahead", () => {
    const root = project({ fixAt: 99 })
    ralph(root, "run", "never passes", "--agent", "node agent.js", "--max-iterations", "2", ...fast)
    writeFileSync(join(root, "mine.txt"), "written after the loop\n")
    const refused = ralph(root, "stop", "--rollback", "--to", "1")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/files changed since loop \S+ ended; roll back anyway with --force/)
    expect(readFileSync(join(root, "mine.txt"), "utf8")).toBe("written after the loop\n")
    const forced = json(root, "stop", "--rollback", "--to", "1", "--force")
    expect(existsSync(join(root, "mine.txt"))).toBe(false)
    const rescue = forced.rollbacks[0].rescueSnapshotRef.slice(4)
    expect(execFileSync("git", ["show", `${rescue}:mine.txt`], { cwd: root, encoding: "utf8" })).toBe(
      "written after the loop\n"
    )
    // A second rollback from where the first left the tree needs no --force.
    expect(ralph(root, "stop", "--rollback", "--to", "0").code).toBe(0)
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("original\n")
  })

  it("in a session: counts the iteration's tokens from the transcript, each message once", () => {
    const root = project({ fixAt: 99 })
    json(root, "start", "count my tokens", "--session", "s1", ...fast)
    const now = new Date(Date.now() + 1_000).toISOString()
    const message = (id: string, output: number) =>
      JSON.stringify({
        type: "assistant",
        timestamp: now,
        message: {
          id,
          model: "claude-x",
          usage: {
            input_tokens: 100,
            output_tokens: output,
            cache_read_input_tokens: 10,
            cache_creation_input_tokens: 5
          }
        }
      })
    // A reply of two blocks is written as two lines with the same message id and usage.
    writeFileSync(
      join(root, "t.jsonl"),
      [message("m1", 7), message("m1", 7), message("m2", 3), JSON.stringify({ type: "user", timestamp: now })].join(
        "\n"
      )
    )
    const out = JSON.parse(
      runHookProcess(
        "Stop",
        payload("Stop", "s1", root, { stop_hook_active: false, last_assistant_message: "tried" }),
        { cwd: root }
      ).stdout
    )
    expect(out.systemMessage).toMatch(/iteration 1 used 240 tokens/)
    expect(json(root, "status").iterations[0].usage).toEqual({
      inputTokens: 200,
      outputTokens: 10,
      cacheReadTokens: 20,
      cacheCreationTokens: 10
    })
  })

  it("in a session: a transcript_path that names a FIFO or a device neither holds the Stop hook nor counts", () => {
    const root = project({ fixAt: 99 })
    json(root, "start", "read no pipe", "--session", "s1", ...fast)
    const fifo = join(root, "transcript.fifo")
    execFileSync("mkfifo", [fifo])
    for (const [i, transcript] of [fifo, "/dev/zero"].entries()) {
      const fields = { transcript_path: transcript, stop_hook_active: i > 0, last_assistant_message: "tried" }
      // Bounded only so that a hook waiting for a writer that never comes fails the test instead of hanging it.
      const stop = runHookProcess("Stop", payload("Stop", "s1", root, fields), { cwd: root, timeoutMs: 60_000 })
      expect(stop.code).toBe(0)
      expect(continuation(JSON.parse(stop.stdout))).toMatch(new RegExp(`Goal: read no pipe[\\s\\S]*iteration ${i + 2}`))
    }
    expect(json(root, "status").iterations[0].usage).toBeNull()
  })

  it("in a session: a turn cut off by a rate limit (StopFailure) is recorded, the next Stop goes on with it", () => {
    const root = project({ fixAt: 99 })
    json(root, "start", "survive a 429", "--session", "s1", ...fast)
    const failure = runHookProcess(
      "StopFailure",
      payload("StopFailure", "s1", root, {
        error: "rate_limit",
        last_assistant_message: "API Error: Request rejected (429) · rate limited"
      }),
      { cwd: root }
    )
    expect(JSON.parse(failure.stdout).systemMessage).toMatch(
      /iteration 1 was cut off \(rate_limit\); it goes on with your next prompt/
    )
    expect(json(root, "status")).toMatchObject({
      status: "running",
      iteration: 1,
      interruption: { iteration: 1, error: "rate_limit" }
    })
    // Another session's failure does not touch this loop.
    expect(
      runHookProcess("StopFailure", payload("StopFailure", "s2", root, { error: "rate_limit" }), { cwd: root }).stdout
    ).toBe("")
    runHookProcess("UserPromptSubmit", payload("UserPromptSubmit", "s1", root, { prompt: "continue" }), { cwd: root })
    const next = JSON.parse(
      runHookProcess("Stop", payload("Stop", "s1", root, { stop_hook_active: false, last_assistant_message: "ok" }), {
        cwd: root
      }).stdout
    )
    expect(continuation(next)).toMatch(/Goal: survive a 429[\s\S]*iteration 2/)
    expect(json(root, "status")).toMatchObject({ status: "running", iteration: 2, interruption: null })
  })
})
