/** `ralph-mem mcp`: the memory tools for Claude, served over MCP on stdio (the plugin's .mcp.json starts it). */
import { Command } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as flags from "../flags.ts"

export const mcp = Command.make("mcp", { db: flags.db }, (input) =>
  Effect.andThen(
    // Its own program (mcp-loader.ts): the MCP SDK is most of the server's code, and no other command needs it.
    Effect.promise(() =>
      import("../mcp-loader.ts").then(({ serveMemory }) => serveMemory({ db: Option.getOrUndefined(input.db) }))
    ),
    // Served until Claude Code goes away: the server exits the process then.
    Effect.never
  )).pipe(
    Command.withDescription(
      "Serve the memory tools to Claude Code over MCP on stdio: search, timeline, get, why, beliefs, task, remember, " +
        "loop_status"
    )
  )
