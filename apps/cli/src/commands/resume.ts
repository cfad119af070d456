/** `ralph-mem resume`: exactly where the last session stopped, as a resumed session is told it. */
import { findProjectRoot } from "@ralph-mem/events"
import { renderSections, resumeItems, splitFailures, withEventRefs } from "@ralph-mem/hooks"
import { projectFailures, resumeBrief } from "@ralph-mem/projections"
import { Command } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson, printText, valuesForReading } from "../output.ts"

export const resume = Command.make(
  "resume",
  { db: flags.db, json: flags.json },
  (input) =>
    withExistingStore(input.db, ({ db }) =>
      Effect.gen(function*() {
        // Run inside Claude Code, the session asking is not the one that stopped.
        const current = process.env["CLAUDE_CODE_SESSION_ID"]
        const project = findProjectRoot(process.cwd())
        const brief = resumeBrief(
          db,
          project,
          current === undefined || current === "" ? {} : { excludeSessionId: current }
        )
        if (input.json) return yield* printJson(brief)
        // Errors fixed since are not where the session stopped any more.
        const { lessons } = splitFailures(projectFailures(db, { project, limit: 50 }))
        const items = withEventRefs(
          db,
          resumeItems(valuesForReading(brief), new Set(lessons.flatMap((l) => l.sources)))
        )
        if (items.length === 0) {
          return yield* Console.log("Nothing to resume: no open task and no earlier session in this project.")
        }
        yield* printText(renderSections(items, "full"))
      }))
).pipe(
  Command.withDescription(
    "Where the last session stopped: the current task and step, the handoff note, that session's errors and summary"
  )
)
