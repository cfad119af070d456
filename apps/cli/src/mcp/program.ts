/**
 * The memory server as a program of its own: scripts/bundle.mjs bundles it alone, as the hook programs are, and
 * mcp-loader.ts compiles it with its code cache.
 */
export { startMemoryServer as serve } from "./main.ts"
