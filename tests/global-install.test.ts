/**
 * `ralph-mem` outside the clone (issue 18 item 4): the package is not on the registry, so `npx ralph-mem`
 * fails; a global install from the clone gives a working command. Installed for real into a temporary
 * prefix, both ways the README gives: linked to the clone, and from a packed copy.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { VERSION } from "../packages/events/src/index.ts"

const ROOT = resolve(import.meta.dirname, "..")
const temporary: Array<string> = []
const scratch = (): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-global-")))
  temporary.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** This test's Node first on PATH (npm and the installed command run on it); npm's own cache stays. */
const env = {
  ...process.env,
  PATH: [dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter),
  npm_config_update_notifier: "false"
}
const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, env, encoding: "utf8" })

/** The installed command, run in a fresh git repository: a note in, found again. */
const works = (command: string) => {
  const project = scratch()
  execFileSync("git", ["init", "-q", project])
  const run = (...args: Array<string>) => spawnSync(command, args, { cwd: project, env, encoding: "utf8" })
  expect(run("--version").stdout).toContain(VERSION)
  const injected = run("inject", "use pnpm, never npm")
  expect(injected.stderr).toBe("")
  expect(injected.status).toBe(0)
  expect(run("search", "pnpm").stdout).toContain("use pnpm, never npm")
}

describe("npm install -g from a clone", () => {
  it("links a working ralph-mem command to the clone", () => {
    const prefix = scratch()
    npm(["install", "-g", "--prefix", prefix, ROOT], scratch())
    works(join(prefix, "bin", "ralph-mem"))
  }, 120_000)

  it("installs a packed copy that needs nothing else (no dependencies: dist/, its manifest, the READMEs)", () => {
    const packed = scratch()
    const tarball = npm(["pack", "--pack-destination", packed, ROOT], scratch()).trim().split("\n").at(-1)!
    const prefix = scratch()
    npm(["install", "-g", "--prefix", prefix, join(packed, tarball)], scratch())
    const installed = join(prefix, "lib", "node_modules", "ralph-mem-workspace")
    expect(readdirSync(installed).filter((name) => !name.startsWith("README")).sort()).toEqual(["dist", "package.json"])
    works(join(prefix, "bin", "ralph-mem"))
  }, 120_000)
})
