/**
 * On a Node older than 22.19 (the machines' system Node is 20): the hooks and the CLI run again under the
 * Node set-up provisioned; without one, SessionStart tells the user that memory is off and why, once a
 * session, and leaves the reason where `doctor` finds it. Run for real with the system Node (/usr/bin/node).
 */
import { execFileSync, spawnSync } from "node:child_process"
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createSandbox, findClaudeBinary, hookResponses, runClaude } from "./e2e/claude.ts"
import { startMockAnthropic } from "./e2e/mock-anthropic.ts"
import { CLI, HOOK, HOOK_NODE_OPTIONS, runCli, testRunState } from "./support/cli.ts"

const SYSTEM_NODE = "/usr/bin/node"
const systemNodeVersion = existsSync(SYSTEM_NODE)
  ? execFileSync(SYSTEM_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()
  : ""
const [major = 0, minor = 0] = systemNodeVersion.split(".").map(Number)
const oldSystemNode = systemNodeVersion !== "" && (major < 22 || (major === 22 && minor < 19))

const temporary: Array<string> = []
const scratch = (): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-old-node-")))
  temporary.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const gitProject = (): string => {
  const root = scratch()
  execFileSync("git", ["init", "-q", root])
  return root
}

/** A folder laid out as set-up provisions Node (node_modules/node/bin/node), holding this test's recent Node. */
const provisioned = (): string => {
  const home = scratch()
  mkdirSync(join(home, "node_modules", "node", "bin"), { recursive: true })
  symlinkSync(process.execPath, join(home, "node_modules", "node", "bin", "node"))
  return home
}

/** The system Node first on PATH, a HOME with nothing provisioned, no RALPH_MEM_* from outside. */
const oldNodeEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: "/usr/bin:/bin",
  HOME: scratch(),
  NODE_COMPILE_CACHE: join(scratch(), "cache"),
  ...testRunState(),
  ...extra
})

const hook = (event: string, project: string, env: Record<string, string>, timeoutMs?: number) =>
  spawnSync(SYSTEM_NODE, [...HOOK_NODE_OPTIONS, HOOK, event], {
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    cwd: project,
    env,
    input: JSON.stringify({
      session_id: "s1",
      cwd: project,
      hook_event_name: event,
      source: "startup",
      prompt: "hello"
    }),
    encoding: "utf8"
  })

describe.skipIf(!oldSystemNode)(`on the system Node ${systemNodeVersion}`, () => {
  it("SessionStart says memory is off, the Node found and the fix, and logs it where doctor finds it", () => {
    const project = gitProject()
    const result = hook("SessionStart", project, oldNodeEnv())
    expect(result.status).toBe(0)
    const message = JSON.parse(result.stdout).systemMessage as string
    expect(message).toContain("ralph-mem: memory is off")
    expect(message).toContain(`the node found is ${systemNodeVersion} (${SYSTEM_NODE})`)
    expect(message).toContain("bash scripts/setup.sh")
    const log = readFileSync(join(project, ".ralph-mem", "hooks.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(log).toEqual([
      expect.objectContaining({
        hook: "SessionStart",
        sessionId: "s1",
        reason: expect.stringContaining("memory is off")
      })
    ])
    expect(readFileSync(join(project, ".ralph-mem", ".gitignore"), "utf8")).toBe("*\n")
    const doctor = runCli(["doctor"], { cwd: project, env: { RALPH_MEM_DB: "" } })
    expect(doctor.stdout).toMatch(/hook failures \(24 h\): 1 .*memory is off/)
  })

  it("a compaction's SessionStart stays silent: the session was told when it started", () => {
    const project = gitProject()
    const compacted = spawnSync(SYSTEM_NODE, [HOOK, "SessionStart"], {
      cwd: project,
      env: oldNodeEnv(),
      input: JSON.stringify({ session_id: "s1", cwd: project, hook_event_name: "SessionStart", source: "compact" }),
      encoding: "utf8"
    })
    expect(compacted.status).toBe(0)
    expect(compacted.stdout).toBe("")
  })

  it("the other hooks stay silent: told once, at SessionStart", () => {
    const project = gitProject()
    for (const event of ["UserPromptSubmit", "PostToolUse", "Stop"]) {
      const result = hook(event, project, oldNodeEnv())
      expect(result.status).toBe(0)
      expect(result.stdout).toBe("")
    }
    expect(existsSync(join(project, ".ralph-mem"))).toBe(false)
  })

  it("does not write through a planted .ralph-mem link", () => {
    const project = gitProject()
    const elsewhere = scratch()
    symlinkSync(elsewhere, join(project, ".ralph-mem"))
    expect(hook("SessionStart", project, oldNodeEnv()).status).toBe(0)
    expect(existsSync(join(elsewhere, "hooks.log"))).toBe(false)
  })

  it("neither waits on a FIFO planted where hooks.log belongs nor appends to a file it is a second name of", () => {
    const fifoProject = gitProject()
    mkdirSync(join(fifoProject, ".ralph-mem"))
    execFileSync("mkfifo", [join(fifoProject, ".ralph-mem", "hooks.log")])
    // Bounded only so that a hook waiting for a reader that never comes fails the test instead of hanging it.
    const held = hook("SessionStart", fifoProject, oldNodeEnv(), 60_000)
    expect(held.status).toBe(0)
    expect(JSON.parse(held.stdout).systemMessage).toContain("ralph-mem: memory is off")

    const linked = gitProject()
    writeFileSync(join(linked, "README"), "the project's own file\n")
    mkdirSync(join(linked, ".ralph-mem"))
    linkSync(join(linked, "README"), join(linked, ".ralph-mem", "hooks.log"))
    expect(hook("SessionStart", linked, oldNodeEnv(), 60_000).status).toBe(0)
    expect(readFileSync(join(linked, "README"), "utf8")).toBe("the project's own file\n")
  })

  it("runs the hook under the Node set-up provisioned, which records it", () => {
    const project = gitProject()
    const result = hook("SessionStart", project, oldNodeEnv({ RALPH_MEM_NODE_HOME: provisioned() }))
    expect(result.status).toBe(0)
    expect(result.stdout).not.toContain("memory is off")
    const events = JSON.parse(
      runCli(["audit", "--json"], { cwd: project, env: { RALPH_MEM_DB: "" } }).stdout
    ) as Array<{ type: string }>
    expect(events.map((e) => e.type)).toContain("SessionStarted")
  })

  it("the CLI runs under the provisioned Node too, or says what it needs", () => {
    const project = gitProject()
    const bare = spawnSync(SYSTEM_NODE, [CLI, "status"], { cwd: project, env: oldNodeEnv(), encoding: "utf8" })
    expect(bare.status).toBe(1)
    expect(bare.stderr).toContain(`ralph-mem needs Node.js 22.19 or newer; the node found is ${systemNodeVersion}`)
    const relaunched = spawnSync(SYSTEM_NODE, [CLI, "inject", "use pnpm", "--json"], {
      cwd: project,
      env: oldNodeEnv({ RALPH_MEM_NODE_HOME: provisioned() }),
      encoding: "utf8"
    })
    expect(relaunched.stderr).toBe("")
    expect(JSON.parse(relaunched.stdout).stored.text).toBe("use pnpm")
  })

  it.skipIf(findClaudeBinary() === undefined)(
    "the real Claude Code gets the message from SessionStart",
    async () => {
      const project = gitProject()
      const mock = await startMockAnthropic({ script: ["Hi."] })
      const sandbox = createSandbox()
      try {
        const run = await runClaude({
          prompt: "hello",
          cwd: project,
          mock,
          sandbox,
          pluginDir: join(import.meta.dirname, ".."),
          env: { PATH: "/usr/bin:/bin", ...testRunState() },
          timeoutMs: 60_000
        })
        expect(run.code).toBe(0)
        const [response] = hookResponses(run, "SessionStart")
        expect(JSON.parse(response?.stdout ?? "{}").systemMessage).toContain("memory is off")
      } finally {
        await mock.close()
        await sandbox.cleanup()
      }
    },
    90_000
  )
})
