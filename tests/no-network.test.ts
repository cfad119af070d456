/**
 * ralph-mem promises local-only storage and no network access anywhere in the product. This runs a full
 * scenario (every hook, every CLI command, a session-bound loop and a `ralph run` loop) as real processes,
 * with a network tripwire (support/network-tripwire.cjs) preloaded through NODE_OPTIONS into every Node
 * process: the hook and CLI processes, the detached maintenance (packing, backup) a SessionEnd starts, and the
 * agent and criteria processes ralph-mem spawns. The tripwire records any TCP/UDP/TLS/DNS/HTTP/fetch/WebSocket
 * attempt and fails it; the log must stay empty. The git processes ralph-mem runs for snapshots are not Node: a
 * `git` shim on PATH records their subcommands instead, and none may be one that talks to a remote.
 *
 * The agent is user-chosen (claude -p by default): that our scripted agent is quiet only shows that
 * ralph-mem itself adds no network use around it.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, HOOK } from "./support/cli.ts"

const TRIPWIRE = join(import.meta.dirname, "support", "network-tripwire.cjs")

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

interface Watch {
  readonly folder: string
  readonly network: string
  readonly processes: string
  readonly git: string
}

const newWatch = (): Watch => {
  const folder = tempFolder()
  return {
    folder,
    network: join(folder, "network.log"),
    processes: join(folder, "processes.log"),
    git: join(folder, "git.log")
  }
}

const jsonLines = (file: string): Array<Record<string, unknown>> =>
  existsSync(file)
    ? readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line))
    : []

/** The real git, if any: the shim execs it. */
const realGit = (): string => {
  const found = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" })
  return found.status === 0 ? found.stdout.trim() : ""
}

/** A `git` on PATH that logs its arguments, one line a call, then runs the real one. */
const gitShim = (watch: Watch, git: string): string => {
  const bin = join(watch.folder, "bin")
  mkdirSync(bin)
  writeFileSync(join(bin, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${watch.git}'\nexec '${git}' "$@"\n`)
  chmodSync(join(bin, "git"), 0o755)
  return bin
}

/** What every process gets: an isolated home, the project's database, and the tripwire for it and its children. */
const environment = (project: string, watch: Watch, extraPath?: string): Record<string, string> => ({
  PATH: [extraPath, process.env["PATH"] ?? ""].filter((part) => part !== undefined && part !== "").join(":"),
  HOME: project,
  XDG_CONFIG_HOME: join(project, ".config"),
  RALPH_MEM_DB: "",
  NO_COLOR: "1",
  NODE_OPTIONS: `--require "${TRIPWIRE}"`,
  RALPH_MEM_TRIPWIRE_LOG: watch.network,
  RALPH_MEM_TRIPWIRE_PROCESSES: watch.processes
})

const node = (
  args: ReadonlyArray<string>,
  options: { cwd: string; env: Record<string, string>; input?: string }
): Run => {
  const result = spawnSync(process.execPath, args, {
    cwd: options.cwd,
    env: options.env,
    input: options.input ?? "",
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

const shown = (what: string, run: Run) => `${what}\nexit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`

/** Waits until every process that loaded the tripwire has exited (the SessionEnd maintenance runs detached). */
const allExited = async (watch: Watch, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const lines = jsonLines(watch.processes)
    const running = lines
      .filter((line) => line["event"] === "loaded")
      .filter((loaded) => !lines.some((line) => line["event"] === "exit" && line["pid"] === loaded["pid"]))
    if (running.length === 0 || Date.now() > deadline) return running
    await sleep(100)
  }
}

const AGENT = `const fs = require("fs")
const n = Number(fs.existsSync("runs") ? fs.readFileSync("runs", "utf8") : 0) + 1
fs.writeFileSync("runs", String(n))
if (n === 2) fs.writeFileSync("fixed.txt", "yes")
console.log("agent run " + n)
`
const CHECK =
  `if (!require("fs").existsSync("fixed.txt")) { console.error("FAIL check > the thing is fixed"); process.exit(1) }\n`

/** Git subcommands that can reach another machine. */
const REMOTE_GIT = new Set([
  "clone",
  "fetch",
  "pull",
  "push",
  "ls-remote",
  "remote",
  "submodule",
  "archive",
  "request-pull",
  "send-email",
  "fetch-pack",
  "send-pack",
  "http-fetch",
  "http-push",
  "upload-pack",
  "receive-pack",
  "daemon",
  "svn",
  "p4",
  "credential"
])

describe("no network anywhere in the product", () => {
  it("the tripwire records TCP and fetch attempts from a control process, and lets Unix sockets through", () => {
    const watch = newWatch()
    const env = environment(watch.folder, watch)
    const tcp = node(["--require", TRIPWIRE, "-e", "require('net').connect(80, '127.0.0.1')"], {
      cwd: watch.folder,
      env
    })
    const fetched = node(["--require", TRIPWIRE, "-e", "fetch('http://127.0.0.1:9')"], { cwd: watch.folder, env })
    const ipc = node(
      [
        "--require",
        TRIPWIRE,
        "-e",
        `const net = require("net"), path = require("path").join(process.cwd(), "ipc.sock")
         const server = net.createServer((c) => c.end("pong")).listen(path, () =>
           net.connect(path).on("data", (d) => { process.stdout.write(String(d)); server.close() }))`
      ],
      { cwd: watch.folder, env }
    )

    // The tripwire fails the attempt (nothing leaves the machine) after recording it.
    expect(tcp.stderr).toContain("network disabled by the ralph-mem tripwire")
    expect(fetched.stderr).toContain("network disabled by the ralph-mem tripwire")
    expect(ipc.code, shown("unix socket round trip", ipc)).toBe(0)
    expect(ipc.stdout).toBe("pong")

    const attempts = jsonLines(watch.network)
    expect(attempts.map((a) => [a["api"], a["target"]])).toEqual([
      ["net.connect", { host: "127.0.0.1", port: 80 }],
      ["fetch", "http://127.0.0.1:9"]
    ])
    for (const attempt of attempts) expect((attempt["stack"] as Array<string>).join("\n")).toContain("[eval]")
  })

  it("a full scenario — every hook, every CLI command, two Ralph loops — never touches the network", {
    timeout: 300_000
  }, async () => {
    const project = tempFolder()
    const watch = newWatch()
    const git = realGit()
    if (git !== "") {
      expect(spawnSync(git, ["init", "-q"], { cwd: project }).status).toBe(0)
    } else {
      mkdirSync(join(project, ".git"))
    }
    const env = environment(project, watch, git !== "" ? gitShim(watch, git) : undefined)
    writeFileSync(join(project, "agent.js"), AGENT)
    writeFileSync(join(project, "check.js"), CHECK)

    let hookRuns = 0
    let cliRuns = 0
    const hook = (event: string, session: string, fields: Record<string, unknown>): Run => {
      hookRuns++
      const input = JSON.stringify({
        session_id: session,
        transcript_path: join(project, "t.jsonl"),
        cwd: project,
        hook_event_name: event,
        ...fields
      })
      const run = node([HOOK, event], { cwd: project, env, input })
      expect(run.code, shown(`hook ${event}`, run)).toBe(0)
      expect(run.stderr, shown(`hook ${event}`, run)).toBe("")
      return run
    }
    const cli = (...args: Array<string>): Run => {
      cliRuns++
      const run = node([CLI, ...args], { cwd: project, env })
      expect(run.code, shown(`ralph-mem ${args.join(" ")}`, run)).toBe(0)
      return run
    }
    const json = (...args: Array<string>) => JSON.parse(cli(...args, "--json").stdout)

    // (a) Every hook, as Claude Code runs them, with URLs in what they record.
    hook("SessionStart", "s1", { source: "startup" })
    hook("UserPromptSubmit", "s1", {
      prompt: "Read https://example.com/docs/tokens and fix the login test",
      prompt_id: "p1"
    })
    hook("PostToolUseFailure", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test -- auth" },
      tool_use_id: "toolu_1",
      error: "Exit code 1\nFAIL src/auth.test.ts\nTokenExpiredError: jwt expired (see https://jwt.io/introduction)",
      is_interrupt: false
    })
    hook("PostToolUse", "s1", {
      tool_name: "Bash",
      tool_input: { command: "curl -sI https://example.com && curl http://10.0.0.7:8080/health" },
      tool_response: {
        stdout: "HTTP/2 200\nlocation: https://www.example.com/\nok from http://10.0.0.7:8080/health",
        stderr: "",
        interrupted: false
      },
      tool_use_id: "toolu_2"
    })
    hook("PreCompact", "s1", { trigger: "auto", custom_instructions: null })
    hook("Stop", "s1", {
      stop_hook_active: false,
      last_assistant_message: "Fixed, per https://example.com/docs/tokens."
    })
    hook("SessionEnd", "s1", { reason: "prompt_input_exit" })
    const next = hook("SessionStart", "s2", { source: "startup" })
    expect(JSON.parse(next.stdout).hookSpecificOutput.additionalContext).toMatch(/example\.com|TokenExpired/)

    // (b) The CLI.
    expect(cli("status").stdout).not.toBe("")
    const hits = json("search", "example", "--layer", "1").hits as Array<{ id: string }>
    expect(hits.length).toBeGreaterThan(0)
    json("search", "example", "--layer", "2")
    json("search", "TokenExpiredError", "--layer", "3")
    expect(cli("show", hits[0]!.id).stdout).toContain("example.com")
    cli("inject", "Never", "call", "https://api.example.com", "from", "tests", "--type", "convention")
    cli("config")
    cli("config", "loop.cooldown_ms", "0")
    expect(cli("config", "loop.cooldown_ms").stdout.trim()).toBe("0")
    cli("timeline")
    cli("audit")

    // A loop bound to session s1: its Stop hook runs the check (a criteria process spawned by the hook).
    cli(
      "ralph",
      "start",
      "fix the check",
      "--session",
      "s1",
      "--criteria",
      "custom=node check.js",
      "--max-iterations",
      "3"
    )
    const blocked = hook("Stop", "s1", { stop_hook_active: false, last_assistant_message: "Tried." })
    expect(JSON.parse(blocked.stdout).hookSpecificOutput.additionalContext).toMatch(/fix the check/)
    expect(cli("ralph", "status").stdout).toMatch(/running/)
    cli("ralph", "stop")

    // (c) A Ralph loop with a fresh agent process per iteration; it succeeds at iteration 2.
    const loop = cli(
      "ralph",
      "run",
      "make the check pass",
      "--agent",
      "node agent.js",
      "--criteria",
      "custom=node check.js"
    )
    expect(loop.stdout).toMatch(/success after 2 iteration/)
    expect(cli("ralph", "status").stdout).toMatch(/success/)

    const forgotten = cli("forget", "--query", "curl", "--confirm")
    expect(forgotten.stdout).not.toBe("")
    cli("compact")
    cli("replay")
    expect(cli("verify").stdout).toMatch(/0 problem/)

    // Every process has finished, the detached maintenance included, before the log is read.
    expect(await allExited(watch)).toEqual([])

    // The verdict: not one attempt to use the network.
    expect(jsonLines(watch.network)).toEqual([])

    // ...and the tripwire really was in every process.
    const loaded = jsonLines(watch.processes).filter((line) => line["event"] === "loaded").map((line) =>
      line["argv"] as Array<string>
    )
    const count = (test: (argv: Array<string>) => boolean) => loaded.filter(test).length
    const script = (argv: Array<string>) => basename(argv[0] ?? "")
    expect(count((argv) => script(argv) === "hook.mjs")).toBe(hookRuns)
    expect(count((argv) => script(argv) === "ralph-mem.mjs" && argv[1] !== "maintain")).toBe(cliRuns)
    // What SessionEnd starts in the background: packing and a backup.
    expect(count((argv) => script(argv) === "ralph-mem.mjs" && argv[1] === "maintain")).toBe(1)
    expect(count((argv) => script(argv) === "agent.js")).toBe(2)
    expect(count((argv) => script(argv) === "check.js")).toBe(3) // 1 from the Stop hook, 2 from `ralph run`
    expect(loaded.length).toBe(hookRuns + cliRuns + 1 + 2 + 3)

    // The git processes behind snapshots: local plumbing only.
    if (git !== "") {
      const commands = readFileSync(watch.git, "utf8").split("\n").filter((line) => line !== "")
      expect(commands.length).toBeGreaterThan(0)
      expect(commands.filter((command) => REMOTE_GIT.has(command.split(" ")[0] ?? ""))).toEqual([])
    }
  })
})
