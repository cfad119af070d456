/**
 * Set-up on a fresh machine: the install runs only the install scripts it must (no node-gyp: no compiler,
 * no headers), and `npm test` finds a recent enough Node or fails at once saying how to get one.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "..")
const temporary: Array<string> = []
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "ralph-mem-setup-"))
  temporary.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe("scripts/install.sh", () => {
  it("runs the install scripts of exactly the lockfile's packages that declare them", () => {
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { hasInstallScript?: boolean; dev?: boolean }>
    }
    const declared = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
      .sort()
    const script = readFileSync(join(ROOT, "scripts", "install.sh"), "utf8")
    const listed = /^RALPH_MEM_SCRIPTED_PACKAGES=\(([^)]*)\)$/m.exec(script)?.[1]?.trim().split(/\s+/).sort()
    expect(listed).toEqual(declared)
    // And better-sqlite3 (whose binding.gyp npm would build) is not among them: it loads its prebuilds.
    expect(listed).not.toContain("better-sqlite3")
    expect(script).toMatch(/npm ci --ignore-scripts/)
  })

  it("is what set-up runs, and CI runs set-up with an empty home and no node-gyp", () => {
    expect(readFileSync(join(ROOT, "scripts", "setup.sh"), "utf8")).toMatch(/^bash scripts\/install\.sh$/m)
    const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8")
    expect(ci).toMatch(/HOME="\$empty_home" npm_config_node_gyp="\$\(command -v false\)" bash scripts\/setup\.sh/)
  })
})

describe("npm test's Node guard (scripts/with-node.sh)", () => {
  /** A PATH whose `node` is a fake Node 20 (the guard asks it its version and whether it is recent). */
  const oldNodePath = (): string => {
    const bin = join(scratch(), "bin")
    mkdirSync(bin)
    writeFileSync(join(bin, "node"), "#!/bin/sh\n[ \"$1\" = \"--version\" ] && { echo v20.11.1; exit 0; }\nexit 1\n")
    chmodSync(join(bin, "node"), 0o755)
    return `${bin}:/usr/bin:/bin`
  }
  const guard = (env: Record<string, string>, command: ReadonlyArray<string>) =>
    spawnSync("bash", [join(ROOT, "scripts", "with-node.sh"), ...command], { cwd: ROOT, env, encoding: "utf8" })

  it("is what npm test runs", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    expect(manifest.scripts["test"]).toBe("bash scripts/with-node.sh vitest run")
  })

  it("fails at once on an old Node with no provisioned one, naming the Node found and the fix", () => {
    const marker = join(scratch(), "ran")
    const result = guard({ PATH: oldNodePath(), HOME: scratch() }, ["touch", marker])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("needs Node.js 22.19 or newer to run touch ")
    expect(result.stderr).toContain("; found v20.11.1 at ")
    expect(result.stderr).toContain("bash scripts/setup.sh")
    expect(spawnSync("test", ["-e", marker]).status).toBe(1)
  })

  it("runs the command under the Node set-up provisioned, first on PATH for its children too", () => {
    const home = scratch()
    const provisioned = join(home, ".cache", "ralph-mem", "node24", "node_modules", "node", "bin")
    mkdirSync(provisioned, { recursive: true })
    symlinkSync(process.execPath, join(provisioned, "node"))
    const result = guard({ PATH: oldNodePath(), HOME: home }, ["node", "-p", "process.versions.node"])
    expect(result.stderr).toBe("")
    expect(result.stdout.trim()).toBe(process.versions.node)
    // RALPH_MEM_NODE_HOME, where set-up was told to put it, wins over the default.
    const elsewhere = scratch()
    mkdirSync(join(elsewhere, "node_modules", "node", "bin"), { recursive: true })
    symlinkSync(process.execPath, join(elsewhere, "node_modules", "node", "bin", "node"))
    const moved = guard({ PATH: oldNodePath(), HOME: scratch(), RALPH_MEM_NODE_HOME: elsewhere }, [
      "sh",
      "-c",
      "command -v node"
    ])
    expect(moved.stdout.trim()).toBe(join(elsewhere, "node_modules", "node", "bin", "node"))
  })

  it("leaves a recent Node on PATH alone", () => {
    const result = guard({ PATH: `${join(process.execPath, "..")}:/usr/bin:/bin`, HOME: scratch() }, [
      "node",
      "-p",
      "process.execPath"
    ])
    expect(result.stdout.trim()).toBe(process.execPath)
  })
})
