/**
 * What an installed plugin carries (issue 18 item 7). Claude Code copies a marketplace plugin's `source`
 * folder into its plugin cache: with `"./"` that was the whole set-up clone, node_modules included (955 MB
 * measured). The marketplace now points at `plugin/`, which holds just what the plugin runs: its manifest,
 * hooks and commands, and a link to dist/ (the copy follows it). Installed for real from this repository
 * (set up, so it has node_modules), with the real CLI in an isolated HOME; then a session runs the installed
 * copy's hooks.
 */
import { execFileSync } from "node:child_process"
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { removeWhenSettled } from "../support/remove.ts"
import {
  createSandbox,
  describeRun,
  findClaudeBinary,
  installPluginFromMarketplace,
  MISSING_CLAUDE_MESSAGE,
  runClaude,
  validatePlugin
} from "./claude.ts"
import { startMockAnthropic } from "./mock-anthropic.ts"

const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const claudeBin = findClaudeBinary()
const suiteName = claudeBin === undefined ? `plugin install (skipped: ${MISSING_CLAUDE_MESSAGE})` : "plugin install"

/** What Claude Code loads from a plugin folder besides dist/ (which the plugin's files name). */
const COMPONENTS = [".claude-plugin/plugin.json", "hooks", "commands", ".mcp.json", "bin", "skills", "agents"]

const cleanups: Array<() => void | Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Sizes of a folder's files, in bytes (links not followed: the cache holds copies). */
const size = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? size(join(dir, e.name)) : lstatSync(join(dir, e.name)).size),
    0
  )

describe("plugin/ (the marketplace's source)", () => {
  it("is what the marketplace installs; the root is the same plugin through links (for --plugin-dir)", () => {
    const marketplace = JSON.parse(readFileSync(join(REPO_ROOT, ".claude-plugin", "marketplace.json"), "utf8"))
    expect(marketplace.plugins.map((p: { source: string }) => p.source)).toEqual(["./plugin"])
    // dist/ stays where it is built and committed; the plugin links to it.
    expect(readlinkSync(join(REPO_ROOT, "plugin", "dist"))).toBe("../dist")
    for (
      const component of COMPONENTS.filter(
        (c) => existsSync(join(REPO_ROOT, c)) || existsSync(join(REPO_ROOT, "plugin", c))
      )
    ) {
      const atRoot = join(REPO_ROOT, component)
      const inPlugin = join(REPO_ROOT, "plugin", component)
      // Real files in plugin/ (`claude plugin validate --strict` reads no linked hooks), links at the root.
      expect(
        lstatSync(inPlugin, { throwIfNoEntry: false })?.isSymbolicLink(),
        `plugin/${component} must be the real one`
      ).toBe(false)
      expect(
        lstatSync(atRoot, { throwIfNoEntry: false })?.isSymbolicLink(),
        `${component} must link to plugin/${component}`
      ).toBe(true)
      expect(realpathSync(atRoot)).toBe(realpathSync(inPlugin))
    }
  })
})

describe.skipIf(claudeBin === undefined)(suiteName, () => {
  it("passes claude plugin validate: --strict for plugin/, and the root (whose links it warns about)", async () => {
    const plugin = await validatePlugin(join(REPO_ROOT, "plugin"), { timeoutMs: 120_000 })
    expect(plugin.code, plugin.stdout + plugin.stderr).toBe(0)
    const root = await validatePlugin(REPO_ROOT, { timeoutMs: 120_000, strict: false })
    expect(root.code, root.stdout + root.stderr).toBe(0)
  }, 300_000)

  it("installs from a set-up clone without node_modules, and the installed copy's hooks record", async () => {
    expect(existsSync(join(REPO_ROOT, "node_modules")), "the clone is set up").toBe(true)
    const sandbox = createSandbox()
    cleanups.push(() => sandbox.cleanup())
    await installPluginFromMarketplace({
      sandbox,
      marketplaceDir: REPO_ROOT,
      plugin: "ralph-mem",
      marketplace: "ralph-mem",
      timeoutMs: 300_000
    })
    const installed = JSON.parse(
      readFileSync(join(sandbox.home, ".claude", "plugins", "installed_plugins.json"), "utf8")
    )
    const installPath = installed.plugins["ralph-mem@ralph-mem"][0].installPath as string
    expect(existsSync(join(installPath, "node_modules"))).toBe(false)
    expect(readdirSync(installPath).sort()).toEqual(readdirSync(join(REPO_ROOT, "plugin")).sort())
    for (
      const file of [
        "dist/hook.mjs",
        "dist/ralph-mem.mjs",
        "hooks/hooks.json",
        "commands/mem-inject.md",
        ".claude-plugin/plugin.json"
      ]
    ) {
      expect(lstatSync(join(installPath, file)).isFile(), file).toBe(true)
    }
    // dist/ is most of it (SQLite's native modules for eight platforms): tens of MB at most.
    const cacheBytes = size(join(sandbox.home, ".claude", "plugins"))
    expect(cacheBytes).toBeLessThan(size(join(REPO_ROOT, "dist")) + 2 * 1024 * 1024)

    const project = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-e2e-install-")))
    cleanups.push(() => removeWhenSettled(project))
    execFileSync("git", ["init", "-q", project])
    const mock = await startMockAnthropic({ script: ["Hello."] })
    cleanups.push(() => mock.close())
    const run = await runClaude({ prompt: "hello", cwd: project, mock, sandbox, timeoutMs: 120_000 })
    expect(run.code, describeRun(run)).toBe(0)
    expect(run.pluginErrors).toEqual([])
    const events = JSON.parse(
      execFileSync(process.execPath, [join(REPO_ROOT, "dist", "ralph-mem.mjs"), "audit", "--json", "--reverse"], {
        cwd: project,
        encoding: "utf8"
      })
    ) as Array<{ type: string }>
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["SessionStarted", "PromptSubmitted"]))
  }, 600_000)
})
