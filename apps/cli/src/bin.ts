/**
 * The `ralph-mem` executable. Checks the Node version before anything loads the native SQLite module
 * (which crashes on older Nodes instead of failing politely), then runs the CLI.
 */
// A namespace import: a named import of a newer export would fail to link on old Nodes before the check runs.
import * as nodeModule from "node:module"

// The process that started this one, read before anything loads: the memory server exits once it is gone.
const parentPid = process.ppid

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`ralph-mem needs Node.js 22.19 or newer; this is ${process.versions.node}.\n`)
  process.exit(1)
}
nodeModule.enableCompileCache?.()
// The memory server as the plugin's .mcp.json starts it goes straight to its code: Claude Code waits for it
// at every session start, and the command tree has nothing to add to a bare `ralph-mem mcp`.
if (process.argv.length === 3 && process.argv[2] === "mcp") await import("./mcp/main.ts").then(({ startMemoryServer }) => startMemoryServer({ parentPid }))
else await import("./main.ts")
