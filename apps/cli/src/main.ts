/** The ralph-mem command tree. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { useBundledNativeBinding, VERSION } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { audit } from "./commands/audit.ts"
import { config } from "./commands/config.ts"
import { forget } from "./commands/forget.ts"
import { inject } from "./commands/inject.ts"
import { backup, doctor } from "./commands/maintenance.ts"
import { ralph } from "./commands/ralph.ts"
import { replay } from "./commands/replay.ts"
import { search } from "./commands/search.ts"
import { show } from "./commands/show.ts"
import { status } from "./commands/status.ts"
import { timeline } from "./commands/timeline.ts"
import { verify } from "./commands/verify.ts"

useBundledNativeBinding(import.meta.url)

const root = Command.make("ralph-mem").pipe(
  Command.withDescription("Memory and Ralph loops for Claude Code, on an event-sourced SQLite log"),
  Command.withSubcommands([status, search, show, inject, forget, ralph, config, timeline, audit, replay, verify, backup, doctor])
)

root.pipe(Command.run({ version: VERSION }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
