/** The hook program of a tool call's hooks, which run most often: it holds neither the search nor the loop. */
import { toolCallHandlers } from "@ralph-mem/hooks"
import { hookMain } from "../hook-program.ts"

export const main = hookMain(toolCallHandlers)
