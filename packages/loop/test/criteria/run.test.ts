import type { CriterionResult } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCriterion } from "../../src/criteria/index.ts"
import { eventually, isAlive, killAfterTest, readJson, run, tempProject, waitForFile } from "./helpers.ts"

const EXIT_WITH =
  `process.stdout.write("exiting with " + process.argv[2] + "\\n"); process.exit(Number(process.argv[2]))`

/** Starts a child that inherits the pipes and never ends, records both pids, then never ends itself. */
const SPAWNS_A_CHILD = `
const { spawn } = require("node:child_process")
const { writeFileSync } = require("node:fs")
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
  stdio: "inherit",
  detached: process.argv[2] === "escape"
})
writeFileSync("pids.json", JSON.stringify({ parent: process.pid, child: child.pid }))
console.log("started parent and child")
if (process.argv[3] === "exit") process.exit(0)
setInterval(() => {}, 1000)
`

type Pids = { readonly parent: number; readonly child: number }

describe("runCriterion with a command", () => {
  it("passes when the command exits 0 and records command, exit code, duration and output", async () => {
    const root = tempProject({ "exit.js": EXIT_WITH })
    const result = await run(runCriterion({ kind: "custom", command: ["node", "exit.js", "0"] }, { projectRoot: root }))
    expect(result).toMatchObject({ kind: "custom", passed: true, command: ["node", "exit.js", "0"], exitCode: 0 })
    expect(result.outputTail).toBe("exiting with 0")
    expect(result.durationMs).toBeGreaterThan(0)
    expect(result.fingerprint).toBeUndefined()
    expect(result.timedOut).toBeUndefined()
  })

  it("fails on an unexpected exit code, saying so in the tail, with a fingerprint", async () => {
    const root = tempProject({ "exit.js": EXIT_WITH })
    const result = await run(
      runCriterion({ kind: "test_pass", command: ["node", "exit.js", "3"] }, { projectRoot: root })
    )
    expect(result).toMatchObject({ passed: false, exitCode: 3 })
    expect(result.outputTail).toContain("exiting with 3")
    expect(result.outputTail).toContain("exit code 3, expected 0")
    expect(result.fingerprint).toMatch(/^[0-9a-f]{16} /)
  })

  it("compares the exit code with expectedExitCode", async () => {
    const root = tempProject({ "exit.js": EXIT_WITH })
    const expectThree = (code: string) =>
      run(
        runCriterion({ kind: "custom", command: ["node", "exit.js", code], expectedExitCode: 3 }, { projectRoot: root })
      )
    expect((await expectThree("3")).passed).toBe(true)
    const zero = await expectThree("0")
    expect(zero).toMatchObject({ passed: false, exitCode: 0 })
    expect(zero.outputTail).toContain("exit code 0, expected 3")
  })

  it("captures stdout and stderr together", async () => {
    const root = tempProject({ "both.js": `console.log("to stdout"); console.error("to stderr"); process.exit(1)` })
    const result = await run(
      runCriterion({ kind: "build_success", command: ["node", "both.js"] }, { projectRoot: root })
    )
    expect(result.outputTail).toContain("to stdout")
    expect(result.outputTail).toContain("to stderr")
  })

  it("keeps terminal control sequences out of the tail and the fingerprint: titles, links, bells, colors", async () => {
    // What the tail holds goes into Claude's next prompt; a title that counts up must not make each run's
    // failure look new either.
    const script = `
const n = Math.floor(Math.random() * 1000)
process.stdout.write("\\u001b]0;tests " + n + "%\\u0007")
process.stdout.write("\\u001b]8;;https://example.com/" + n + "\\u001b\\\\link\\u001b]8;;\\u001b\\\\\\n")
process.stdout.write("\\u001b[31mFAIL\\u001b[0m src/a.test.ts > keeps\\u0007\\u0008 order\\u001bc\\n")
process.stdout.write("\\u001b]stray\\nstill here\\n")
process.exit(1)
`
    const root = tempProject({ "noisy.js": script })
    const once = () => run(runCriterion({ kind: "test_pass", command: ["node", "noisy.js"] }, { projectRoot: root }))
    const [first, second] = [await once(), await once()]
    expect(first.outputTail).toContain("link\nFAIL src/a.test.ts > keeps order\n\nstill here")
    expect(first.outputTail).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(first.fingerprint).toBe(second.fingerprint)
  })

  it("runs in the project root with the caller's env layered over CI=true", async () => {
    const root = tempProject({
      "env.js": `console.log(JSON.stringify({ cwd: process.cwd(), ci: process.env.CI, extra: process.env.EXTRA }))`
    })
    const result = await run(
      runCriterion({ kind: "custom", command: ["node", "env.js"] }, { projectRoot: root, env: { EXTRA: "yes" } })
    )
    expect(JSON.parse(result.outputTail)).toEqual({ cwd: root, ci: "true", extra: "yes" })
  })

  it("never hands the argv to a shell", async () => {
    const root = tempProject({
      "argv.js": `console.log(JSON.stringify(process.argv.slice(2)))`,
      "keep/file.txt": "still here"
    })
    const hostile = [
      "; rm -rf keep",
      "$(touch pwned)",
      "`touch pwned2`",
      "&& touch pwned3",
      "| tee pwned4",
      "> pwned5",
      "*"
    ]
    const result = await run(
      runCriterion({ kind: "custom", command: ["node", "argv.js", ...hostile] }, { projectRoot: root })
    )
    expect(result.passed).toBe(true)
    expect(JSON.parse(result.outputTail)).toEqual(hostile)
    expect(existsSync(join(root, "keep", "file.txt"))).toBe(true)
    for (const name of ["pwned", "pwned2", "pwned3", "pwned4", "pwned5"]) {
      expect(existsSync(join(root, name))).toBe(false)
    }
  })

  it("treats a whole shell line given as the program as a program name that does not exist", async () => {
    const root = tempProject()
    const result = await run(runCriterion({ kind: "custom", command: ["touch pwned; echo hi"] }, { projectRoot: root }))
    expect(result.passed).toBe(false)
    expect(result.outputTail).toContain("could not start")
    expect(result.outputTail).toContain("ENOENT")
    expect(result.fingerprint).toContain("could not start")
    expect(existsSync(join(root, "pwned"))).toBe(false)
  })

  it("kills the whole process group on timeout, grandchildren included", async () => {
    const root = tempProject({ "tree.js": SPAWNS_A_CHILD })
    const started = Date.now()
    // Long enough for the tree to start on a loaded machine; its processes never end by themselves.
    const result = await run(
      runCriterion({ kind: "test_pass", command: ["node", "tree.js"], timeoutMs: 5_000 }, { projectRoot: root })
    )
    const pids = readJson<Pids>(join(root, "pids.json"))
    killAfterTest(pids.parent)
    killAfterTest(pids.child)
    expect(result).toMatchObject({ passed: false, timedOut: true })
    expect(result.exitCode).toBeUndefined()
    expect(result.outputTail).toContain("started parent and child")
    expect(result.outputTail).toContain("timed out after 5000 ms")
    expect(result.fingerprint).toContain("timed out")
    expect(Date.now() - started).toBeLessThan(60_000)
    expect(await eventually(() => !isAlive(pids.parent) && !isAlive(pids.child))).toBe(true)
  })

  it("a criterion's own timeoutMs wins over the run's default", async () => {
    const root = tempProject({ "slow.js": `setTimeout(() => {}, 10_000)` })
    const result = await run(
      runCriterion({ kind: "custom", command: ["node", "slow.js"], timeoutMs: 300 }, {
        projectRoot: root,
        timeoutMs: 60_000
      })
    )
    expect(result.timedOut).toBe(true)
    expect(result.durationMs).toBeLessThan(30_000)
  })

  it("ends when the command exits, killing what it left running in its group", async () => {
    const root = tempProject({ "tree.js": SPAWNS_A_CHILD })
    const started = Date.now()
    const result = await run(
      runCriterion({ kind: "custom", command: ["node", "tree.js", "stay", "exit"] }, { projectRoot: root })
    )
    const pids = readJson<Pids>(join(root, "pids.json"))
    killAfterTest(pids.child)
    expect(result).toMatchObject({ passed: true, exitCode: 0 })
    expect(Date.now() - started).toBeLessThan(60_000) // its child never ends by itself
    expect(await eventually(() => !isAlive(pids.child))).toBe(true)
  })

  it("does not hang when a process outside the group holds the output pipes open", async () => {
    const root = tempProject({ "tree.js": SPAWNS_A_CHILD })
    const started = Date.now()
    const result = await run(
      runCriterion({ kind: "custom", command: ["node", "tree.js", "escape", "exit"] }, { projectRoot: root })
    )
    killAfterTest(readJson<Pids>(join(root, "pids.json")).child)
    expect(result).toMatchObject({ passed: true, exitCode: 0 })
    expect(result.outputTail).toContain("started parent and child")
    expect(Date.now() - started).toBeLessThan(60_000) // the escaped child never ends by itself
  })

  it("kills the process group when the evaluating fiber is interrupted", async () => {
    const root = tempProject({ "tree.js": SPAWNS_A_CHILD })
    const fiber = Effect.runFork(runCriterion({ kind: "custom", command: ["node", "tree.js"] }, { projectRoot: root }))
    expect(await waitForFile(join(root, "pids.json"))).toBe(true)
    const pids = readJson<Pids>(join(root, "pids.json"))
    killAfterTest(pids.parent)
    killAfterTest(pids.child)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(await eventually(() => !isAlive(pids.parent) && !isAlive(pids.child))).toBe(true)
  })

  it("keeps only a bounded tail of 10 MB of output, and the tail is the real end", async () => {
    // 10 MB of numbered 100-byte lines, then a last line: the tail must be exactly the end of that stream.
    const lines = 100_000
    const script = `
const lines = ${lines}
let chunk = ""
for (let i = 0; i < lines; i++) {
  chunk += ("line " + String(i).padStart(6, "0") + " ").padEnd(99, "x") + "\\n"
  if (chunk.length > 65536) { process.stdout.write(chunk); chunk = "" }
}
process.stdout.write(chunk + "THE END\\n")
`
    const root = tempProject({ "flood.js": script })
    const result: CriterionResult = await run(
      runCriterion({ kind: "custom", command: ["node", "flood.js"] }, { projectRoot: root })
    )
    expect(result.passed).toBe(true)
    expect(result.outputTail.length).toBeLessThanOrEqual(2_000)
    expect(result.outputTail.endsWith("THE END")).toBe(true)
    const tailLines = result.outputTail.split("\n")
    expect(tailLines.at(-2)).toBe(`line ${String(lines - 1).padStart(6, "0")} `.padEnd(99, "x"))
    expect(tailLines.at(-3)).toBe(`line ${String(lines - 2).padStart(6, "0")} `.padEnd(99, "x"))
  })

  it("fails with a how-to when no command can be found", async () => {
    const root = tempProject()
    const result = await run(runCriterion({ kind: "test_pass" }, { projectRoot: root }))
    expect(result).toMatchObject({ kind: "test_pass", passed: false, durationMs: 0 })
    expect(result.outputTail).toContain("no command found for test_pass")
    expect(result.outputTail).toContain("set one with")
    expect(result.fingerprint).toContain("no command found for test_pass")
  })

  it("requires an explicit command for custom criteria, even in a project with scripts", async () => {
    const root = tempProject({ "package.json": JSON.stringify({ scripts: { test: "node -e 0" } }) })
    const result = await run(runCriterion({ kind: "custom" }, { projectRoot: root }))
    expect(result.passed).toBe(false)
    expect(result.outputTail).toContain("needs an explicit command")
  })

  it("fails clearly when the project root does not exist", async () => {
    const result = await run(
      runCriterion({ kind: "custom", command: ["node", "-e", "0"] }, { projectRoot: "/nonexistent/ralph-mem" })
    )
    expect(result.passed).toBe(false)
    expect(result.outputTail).toContain("does not exist")
  })

  it("runs the detected command: an npm test script", async () => {
    const root = tempProject({
      "package.json": JSON.stringify({ name: "fixture", version: "1.0.0", scripts: { test: "node check.js" } }),
      "check.js": `console.log("checked"); process.exit(Number(process.env.FAIL ?? 0))`
    })
    const passing = await run(runCriterion({ kind: "test_pass" }, { projectRoot: root }))
    expect(passing).toMatchObject({ passed: true, command: ["npm", "run", "--silent", "test"] })
    expect(passing.outputTail).toBe("checked")
    const failing = await run(runCriterion({ kind: "test_pass" }, { projectRoot: root, env: { FAIL: "2" } }))
    expect(failing).toMatchObject({ passed: false })
    expect(failing.outputTail).toContain("checked")
  })

  it("runs the detected command: a make target", async () => {
    const root = tempProject({ Makefile: "lint:\n\tnode -e \"console.log('linted')\"\n" })
    const result = await run(runCriterion({ kind: "lint_clean" }, { projectRoot: root }))
    expect(result).toMatchObject({ passed: true, command: ["make", "lint"] })
    expect(result.outputTail).toContain("linted")
  })

  it("gives the same fingerprint to the same failure across runs with different timings", async () => {
    const script = `
const ms = Math.floor(Math.random() * 900) + 1
const line = 10 + Math.floor(Math.random() * 90)
console.log(" FAIL  src/auth.test.ts > auth > refreshes the token " + ms + "ms")
console.log("   at " + process.cwd() + "/src/auth.test.ts:" + line + ":7")
console.log(" Start at " + new Date().toISOString().slice(11, 19) + "   Duration " + ms + "ms")
process.exit(1)
`
    const root = tempProject({ "fail.js": script })
    const once = () => run(runCriterion({ kind: "test_pass", command: ["node", "fail.js"] }, { projectRoot: root }))
    const [first, second] = [await once(), await once()]
    expect(first.fingerprint).toBeDefined()
    expect(first.fingerprint).toBe(second.fingerprint)
    expect(first.fingerprint).toContain("FAIL src/auth.test.ts > auth > refreshes the token")
  })
})

describe("runCriterion with a marker", () => {
  it("passes when the default marker is in the last assistant message", async () => {
    const result = await run(
      runCriterion({ kind: "marker" }, { projectRoot: "/unused", lastAssistantMessage: "All done. [RALPH_SUCCESS]" })
    )
    expect(result).toMatchObject({ kind: "marker", passed: true })
    expect(result.fingerprint).toBeUndefined()
  })

  it("fails when the marker is absent or there is no message", async () => {
    const absent = await run(
      runCriterion({ kind: "marker" }, { projectRoot: "/unused", lastAssistantMessage: "still working" })
    )
    expect(absent.passed).toBe(false)
    expect(absent.outputTail).toContain("not found")
    expect(absent.fingerprint).toBeDefined()
    expect((await run(runCriterion({ kind: "marker" }, { projectRoot: "/unused" }))).passed).toBe(false)
  })

  it("uses a custom marker when one is set", async () => {
    const options = { projectRoot: "/unused", lastAssistantMessage: "<promise>DONE</promise>" }
    expect((await run(runCriterion({ kind: "marker", marker: "<promise>DONE</promise>" }, options))).passed).toBe(true)
    expect((await run(runCriterion({ kind: "marker" }, options))).passed).toBe(false)
  })
})
