/**
 * The `ralph-mem` executable. Checks the Node version before anything loads the native SQLite module
 * (which crashes on older Nodes instead of failing politely): on an older Node it runs again under the
 * Node set-up provisioned, or says what it needs. Then runs the CLI.
 */
// A namespace import: a named import of a newer export would fail to link on old Nodes before the check runs.
import * as nodeModule from "node:module"
import { fileURLToPath } from "node:url"
import { nodeIsRecent, oldNodeMessage, runUnderProvisionedNode } from "./old-node.ts"

if (!nodeIsRecent) {
  const code = await runUnderProvisionedNode(fileURLToPath(import.meta.url))
  if (code === undefined) process.stderr.write(`${oldNodeMessage()}\n`)
  process.exit(code ?? 1)
}
nodeModule.enableCompileCache?.()
await import("./main.ts")
