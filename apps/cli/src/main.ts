/** The ralph-mem command tree. */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { VERSION } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { status } from "./commands/status.ts"

const root = Command.make("ralph-mem").pipe(
  Command.withDescription("Memory and Ralph loops for Claude Code, on an event-sourced SQLite log"),
  Command.withSubcommands([status])
)

root.pipe(Command.run({ version: VERSION }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
