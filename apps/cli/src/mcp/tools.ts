/**
 * The memory tools Claude calls (served over MCP by server.ts), in the order Claude Code lists them. Their
 * descriptions are written for the model: Claude Code defers MCP tools behind its ToolSearch tool, so they
 * hold the words a model searches with (memory, past sessions, earlier errors, decisions, notes). Reads run
 * in one short read transaction (server.ts); only `remember` writes.
 */
import { loopStatus } from "./loop-status.ts"
import { get, search, timeline } from "./recall.ts"
import { remember } from "./remember.ts"
import type { MemoryTool } from "./tool.ts"
import { beliefs, task, why } from "./working.ts"

export const memoryTools: ReadonlyArray<MemoryTool<unknown>> = [
  search,
  timeline,
  get,
  why,
  beliefs,
  task,
  remember,
  loopStatus
]
