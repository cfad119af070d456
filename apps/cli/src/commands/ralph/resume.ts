/** `ralph resume`: continues a loop whose driver died, with a fresh agent process per iteration. */
import { injectionBudgetTokens } from "@ralph-mem/hooks"
import { driveExternally, endMessage, execute, statusReport } from "@ralph-mem/loop"
import { loadSettings } from "@ralph-mem/settings"
import { Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { withStore } from "../../command-memory.ts"
import * as flags from "../../flags.ts"
import { printJson } from "../../output.ts"
import { agentFlag, agentTimeoutFlag, loopFlag, parseAgent, resolveLoop, waitCountdown } from "./shared.ts"

export const resume = Command.make(
  "resume",
  {
    loop: loopFlag,
    agent: agentFlag,
    agentTimeout: agentTimeoutFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const { agent, agentTimeoutMs } = yield* parseAgent(input)
      yield* withStore(input.db, (memory) =>
        Effect.gen(function*() {
          const loop = yield* resolveLoop(memory, input.loop)
          if (loop.status !== "running") {
            return yield* flags.failWith(`loop ${loop.loopId} has ended (${loop.status}); start a new one`)
          }
          if (loop.plan !== undefined) {
            return yield* flags.failWith(
              `loop ${loop.loopId} is a plan loop: it runs inside a Claude Code session, where edits can be blocked; ` +
                "stop it and start a new one with /ralph-mem:ralph plan"
            )
          }
          yield* execute(memory, loop.loopId, { _tag: "Resume", driver: "external" }, "cli:ralph-resume")
          const { settings } = loadSettings({ projectRoot: loop.projectPath, env: process.env })
          const ended = yield* driveExternally(memory, loop.loopId, {
            agent,
            env: process.env,
            agentTimeoutMs,
            injectionBudgetTokens: injectionBudgetTokens(settings),
            onWait: waitCountdown()
          })
          if (input.json) return yield* printJson(statusReport(ended))
          yield* Console.log(endMessage(ended))
        }))
    })
).pipe(Command.withDescription(
  "Continue a loop whose driver died (a crashed run, a closed session) with a fresh agent per iteration"
))
