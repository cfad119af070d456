/**
 * The `ralph-mem` executable. Checks the Node version before anything loads the native SQLite module
 * (which crashes on older Nodes instead of failing politely): on an older Node it runs again under the
 * Node set-up provisioned, or says what it needs. Then runs the CLI.
 */
// A namespace import: a named import of a newer export would fail to link on old Nodes before the check runs.
import * as nodeModule from "node:module"
import { fileURLToPath } from "node:url"
import { nodeIsRecent, oldNodeMessage, runUnderProvisionedNode } from "./old-node.ts"

// The process that started this one, read before anything loads: the memory server exits once it is gone.
const parentPid = process.ppid

if (!nodeIsRecent) {
  const code = await runUnderProvisionedNode(fileURLToPath(import.meta.url))
  if (code === undefined) process.stderr.write(`${oldNodeMessage()}\n`)
  process.exit(code ?? 1)
}
nodeModule.enableCompileCache?.()
// The memory server as the plugin's .mcp.json starts it goes straight to its code: Claude Code waits for it
// at every session start, and the command tree has nothing to add to a bare `ralph-mem mcp`.
if (process.argv.length === 3 && process.argv[2] === "mcp") {
  await import("./mcp-loader.ts").then(({ serveMemory }) => serveMemory({ parentPid }))
} else await import("./main.ts")
