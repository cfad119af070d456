/**
 * When the `node` that started ralph-mem is older than 22.19 (the hooks run `node`, the first on the PATH
 * Claude Code was started with): run again under the Node that scripts/setup.sh provisioned, or say why
 * nothing can run. Used by the hook entry and the CLI entry before they load anything else, so this module
 * has no static imports and no syntax or API an old Node lacks (Node's modules are imported when needed).
 */

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)

/** ralph-mem's floor: @effect/platform-node 4 declares >= 22.19. */
export const nodeIsRecent = major > 22 || (major === 22 && minor >= 19)

/** Set in the environment of the run under the provisioned Node: it must not look for one again. */
const RELAUNCHED = "RALPH_MEM_RELAUNCHED"

/** Where scripts/setup.sh installs Node 24: $RALPH_MEM_NODE_HOME, else ~/.cache/ralph-mem/node24. */
const provisionedNode = async (): Promise<string | undefined> => {
  const { existsSync } = await import("node:fs")
  const { join } = await import("node:path")
  const { homedir } = await import("node:os")
  const home = process.env["RALPH_MEM_NODE_HOME"] || join(homedir(), ".cache", "ralph-mem", "node24")
  const node = join(home, "node_modules", "node", "bin", process.platform === "win32" ? "node.exe" : "node")
  return existsSync(node) && node !== process.execPath ? node : undefined
}

/**
 * Runs `entry` (this program's file) with the same arguments, stdin, stdout and stderr under the provisioned
 * Node, and returns its exit code; undefined when there is none (or this already is that run).
 */
export const runUnderProvisionedNode = async (entry: string): Promise<number | undefined> => {
  if (process.env[RELAUNCHED] === "1") return undefined
  const node = await provisionedNode()
  if (node === undefined) return undefined
  const { spawnSync } = await import("node:child_process")
  const run = spawnSync(node, [entry, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, [RELAUNCHED]: "1" }
  })
  return run.error === undefined ? run.status ?? 1 : undefined
}

/** What to tell the user: this Node, and the fix. */
export const oldNodeMessage = (): string =>
  `ralph-mem needs Node.js 22.19 or newer; the node found is ${process.versions.node} (${process.execPath}). ` +
  "Fix: run `bash scripts/setup.sh` in the ralph-mem clone (it installs Node 24 into ~/.cache/ralph-mem/node24, " +
  "which ralph-mem then uses by itself), or put Node 22.19+ first on the PATH that Claude Code starts with."
