/**
 * `ralph-mem ralph ...`: the Ralph loop. `start` binds a loop to this Claude Code session (its Stop
 * hook then drives it); `run` drives one with a fresh agent process per iteration; `stop` ends one
 * (and can roll back), never depending on the model obeying; `status` and `config` read and tune it.
 */
import { Command } from "effect/cli"
import { config } from "./config.ts"
import { plan } from "./plan.ts"
import { resume } from "./resume.ts"
import { run } from "./run.ts"
import { start } from "./start.ts"
import { status } from "./status.ts"
import { stop } from "./stop.ts"

export const ralph = Command.make("ralph").pipe(
  Command.withDescription("The Ralph loop: keep working on one goal until checks the harness runs pass"),
  Command.withSubcommands([start, plan, status, stop, config, run, resume])
)
