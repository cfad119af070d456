/** The ralph-mem command tree. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { useBundledNativeBinding, VERSION } from "@ralph-mem/events"
import { Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { adopt } from "./commands/adopt.ts"
import { audit } from "./commands/audit.ts"
import { belief } from "./commands/belief.ts"
import { config } from "./commands/config.ts"
import { decide } from "./commands/decide.ts"
import { exportCommand } from "./commands/export.ts"
import { forget } from "./commands/forget.ts"
import { inject } from "./commands/inject.ts"
import { backup, compact, doctor, maintain } from "./commands/maintenance.ts"
import { mcp } from "./commands/mcp.ts"
import { ralph } from "./commands/ralph/index.ts"
import { replay } from "./commands/replay.ts"
import { resume } from "./commands/resume.ts"
import { search } from "./commands/search.ts"
import { show } from "./commands/show.ts"
import { stats } from "./commands/stats.ts"
import { status } from "./commands/status.ts"
import { task } from "./commands/task.ts"
import { timeline } from "./commands/timeline.ts"
import { ui } from "./commands/ui.ts"
import { verify } from "./commands/verify.ts"
import { why } from "./commands/why.ts"
import { refuseWordsAfterFreeText } from "./flags.ts"
import { inert } from "./output.ts"
import { slashArguments } from "./slash.ts"

useBundledNativeBinding(import.meta.url)

const root = Command.make("ralph-mem").pipe(
  Command.withDescription("Memory and Ralph loops for Claude Code, on an event-sourced SQLite log"),
  Command.withSubcommands([
    status,
    stats,
    ui,
    search,
    show,
    inject,
    forget,
    decide,
    why,
    belief,
    task,
    resume,
    exportCommand,
    ralph,
    config,
    timeline,
    audit,
    replay,
    verify,
    backup,
    compact,
    maintain,
    doctor,
    adopt,
    mcp
  ])
)

/**
 * Every command finds its project from the current folder. One removed while the shell stood in it (`rm -rf` of it,
 * a branch switch without it) has none: said plainly, not as Node's stack trace from `process.cwd()`.
 */
const folderRemoved = (): string | undefined => {
  try {
    process.cwd()
    return undefined
  } catch {
    const named = process.env["PWD"] === undefined ? "" : ` (${process.env["PWD"]})`
    return `the current folder${named} no longer exists: it was removed while this shell stood in it. cd into the ` +
      "project and run the command again"
  }
}

// A reader that stops early (`ralph-mem timeline --all | head`) closes the pipe: the listing ends there, quietly, as
// command-line tools end on SIGPIPE. Node would report the write's EPIPE as an unhandled error, with a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

// `slash <command>` (the plugin's slash commands) reads its arguments from the recorded prompt (slash.ts).
const args = process.argv.slice(2)
const removed = folderRemoved()
if (removed !== undefined) {
  process.stderr.write(inert(`\nERROR\n  ${removed}\n`))
  process.exit(1)
}
const argv = args[0] === "slash" ? slashArguments(args[1]) : refuseWordsAfterFreeText(args)

argv.pipe(
  Effect.catch((error) =>
    Console.error(inert(`\nERROR\n  ${error.message}`)).pipe(Effect.andThen(Effect.sync(() => process.exit(1))))
  ),
  Effect.flatMap((args) => Command.runWith(root, { version: VERSION })(args)),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
