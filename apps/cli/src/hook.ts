/**
 * The hook executable: `node dist/hook.mjs <Event>`, with the hook's JSON on stdin.
 * It always exits 0 and prints only valid hook output: Claude Code is never blocked by ralph-mem.
 */
// Namespace imports only before the version check: a missing named export would fail to link on old Nodes.
import * as fs from "node:fs"
import * as nodeModule from "node:module"

/** Hook payloads carry tool output; past this, the input is refused (and logged) rather than read. */
const MAX_STDIN_BYTES = 64 * 1024 * 1024

const readStdin = (): string | undefined => {
  const chunks: Array<Buffer> = []
  const buffer = Buffer.alloc(1 << 16)
  let total = 0
  for (;;) {
    let read: number
    try {
      read = fs.readSync(0, buffer, 0, buffer.length, null)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") continue
      if ((error as NodeJS.ErrnoException).code === "EOF") break
      throw error
    }
    if (read === 0) break
    total += read
    if (total > MAX_STDIN_BYTES) return undefined
    chunks.push(Buffer.from(buffer.subarray(0, read)))
  }
  return Buffer.concat(chunks).toString("utf8")
}

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major > 22 || (major === 22 && minor >= 19)) {
  nodeModule.enableCompileCache?.()
  const { main } = await import("./hook-main.ts")
  await main(process.argv[2], readStdin)
}
// Older Nodes: ralph-mem stays out of the way (the CLI explains the requirement).
process.exit(0)
