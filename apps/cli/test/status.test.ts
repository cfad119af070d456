import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { VERSION } from "../../../packages/events/src/index.ts"
import { tempFolder } from "../../../packages/events/test/helpers.ts"
import { runCli } from "../../../tests/support/cli.ts"

describe("ralph-mem status", () => {
  it("reports an empty memory as JSON before the first use, without creating the database", () => {
    const project = tempFolder()
    execFileSync("git", ["init", "-q", project])
    const result = runCli(["status", "--json"], { cwd: project, env: { RALPH_MEM_DB: "" } })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({
      database: join(project, ".ralph-mem", "memory.db"),
      events: 0,
      streams: 0,
      headPosition: 0
    })
    expect(existsSync(join(project, ".ralph-mem"))).toBe(false)
  })

  it("prints aligned fields for people", () => {
    const path = join(tempFolder(), "m.db")
    const result = runCli(["status", "--db", path])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`^database\\s+${path}$`, "m"))
    expect(result.stdout).toMatch(/^events\s+0$/m)
  })

  it("explains a file that is not a database, exits 1, and leaves the file alone", () => {
    const path = join(tempFolder(), "notes.db")
    writeFileSync(path, "my notes, not a database\n".repeat(100))
    const result = runCli(["status", "--db", path])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/not an SQLite database/)
    expect(readFileSync(path, "utf8")).toBe("my notes, not a database\n".repeat(100))
  })

  it("rejects an unknown flag instead of guessing", () => {
    const result = runCli(["status", "--jsn"])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/Unrecognized flag: --jsn/)
  })
})

describe("the ralph-mem binary", () => {
  it("reports the version the events carry, which is the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"))
    expect(pkg.version).toBe(VERSION)
    expect(runCli(["--version"]).stdout.trim()).toBe(`ralph-mem v${VERSION}`)
  })

  it("lists its commands in --help", () => {
    const result = runCli(["--help"])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/status\s+Show what the memory database holds/)
  })

  const oldNode = ["/usr/bin/node", "/usr/local/bin/node"].find((candidate) => {
    if (!existsSync(candidate)) return false
    const [major = 0, minor = 0] = execFileSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" }).split(
      "."
    ).map(Number)
    return major < 22 || (major === 22 && minor < 19)
  })
  it.skipIf(oldNode === undefined)("refuses an old Node with a clear message instead of crashing", () => {
    // No Node provisioned by set-up where this HOME would have it (tests/old-node.test.ts covers using one).
    const result = runCli(["status"], { node: oldNode!, env: { HOME: tempFolder(), RALPH_MEM_NODE_HOME: "" } })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/needs Node\.js 22\.19 or newer; the node found is 2\d\./)
  })
})
