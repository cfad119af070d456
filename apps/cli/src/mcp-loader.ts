/**
 * Starts the memory server (`ralph-mem mcp`). Claude Code starts it at every session start, so it starts as a hook
 * does: its own CommonJS bundle, `dist/chunks/mcp-<content hash>.cjs` (scripts/bundle.mjs), compiled with a code
 * cache written once its first call is answered, which then holds the functions a search runs (program-loader.ts;
 * the cache carries a checksum: a damaged one is compiled again, never trusted).
 */
import type { startMemoryServer } from "./mcp/main.ts"
import { loadProgram } from "./program-loader.ts"

/** Set by scripts/bundle.mjs: the file name of the server's program, in dist/chunks/. */
declare const MCP_PROGRAM: string | undefined

interface MemoryServerProgram {
  readonly serve: typeof startMemoryServer
}

export const serveMemory = async (
  options: { readonly db?: string | undefined; readonly parentPid?: number }
): Promise<void> => {
  if (typeof MCP_PROGRAM !== "string") {
    // Unbundled (development): the server's modules directly, without the cache. (A computed URL: a bundle does
    // not take these modules in.)
    const main = (await import(new URL("./mcp/main.ts", import.meta.url).href)) as {
      readonly startMemoryServer: typeof startMemoryServer
    }
    return main.startMemoryServer(options)
  }
  const fs = process.getBuiltinModule("node:fs")
  const { fileURLToPath } = process.getBuiltinModule("node:url")
  // This module is bundled into dist/ralph-mem.mjs or into one of its chunks.
  const file = [`./${MCP_PROGRAM}`, `./chunks/${MCP_PROGRAM}`]
    .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
    .find((candidate) => fs.existsSync(candidate))
  if (file === undefined) throw new Error(`the memory server's program ${MCP_PROGRAM} is missing from dist/chunks/`)
  const { program, save } = loadProgram<MemoryServerProgram>(fs, file, "mcp", { checked: true })
  return program.serve({ ...options, afterFirstAnswer: save })
}
