/** The hook program of a session's start and of each prompt: both inject memory, through the search. */
import { promptHandlers } from "@ralph-mem/hooks"
import { hookMain } from "../hook-program.ts"

export const main = hookMain(promptHandlers)
