/** `loop_status`: the Ralph loop of this session, as its harness knows it. */
import { iterationPrompt, loadLoop, loopMemory } from "@ralph-mem/loop"
import { activeLoopForSession, formatTime, oneLine, openLoops } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { fitAnswer } from "./budget.ts"
import { cutShort } from "./render.ts"
import { tool } from "./tool.ts"

export const loopStatus = tool({
  name: "loop_status",
  description:
    "The Ralph loop running in this Claude Code session, from memory (ralph-mem): its goal, which iteration this is, " +
    "which checks the harness found failing (test, build, lint, typecheck: the error and the output's tail), " +
    "and what " +
    "earlier iterations tried and changed.",
  input: Schema.Struct({}),
  writes: false,
  asked: () => ({}),
  run: (_, { memory, project, sessionId, budget, home, forReading }) =>
    Effect.sync(() => {
      const loopId = sessionId === undefined ? undefined : activeLoopForSession(memory.db, sessionId)
      const loop = loopId === undefined ? undefined : loadLoop(memory, loopId).state
      if (loop === undefined) {
        const others = forReading(openLoops(memory.db, project))
        return fitAnswer(
          {
            header: sessionId === undefined
              ? "This memory server was started without Claude Code's session id (CLAUDE_CODE_SESSION_ID), " +
                "so it cannot tell which loop is this session's."
              : "No Ralph loop is running in this session.",
            items: others.map((l) => ({
              text: `- loop ${l.loopId}${l.sessionId === null ? "" : ` (session ${l.sessionId})`}: ` +
                `${oneLine(l.goal, 200)}; ` +
                `iteration ${l.iterations} of ${l.maxIterations}`,
              ids: [l.loopId]
            })),
            more: ({ omitted }) =>
              others.length === 0
                ? undefined
                : `Running in this project${omitted === 0 ? "" : ` (${omitted} more left out)`}: ` +
                  // The first is always shown: it is kept first, and cut rather than left out.
                  `\`ralph-mem ralph status --loop ${others[0]!.loopId}\` (Bash) shows the first one.`
          },
          budget
        )
      }
      const since = formatTime(loop.startedAt)
      const header = `Ralph loop ${loop.loopId}, ${loop.status} since ${since}; what the harness knows now:`
      // A prompt cut to these characters is still at least the whole budget in tokens: then it is clipped again
      // below, and `clipped` says so.
      const status = iterationPrompt(loop, { memoryLines: loopMemory(memory, loop), maxChars: budget * 4, home })
      return fitAnswer(
        {
          header,
          items: [{ text: status, ids: [loop.loopId] }],
          // Its JSON holds the goal, and the last checks with their output, whole.
          more: ({ clipped }) =>
            clipped ? cutShort(budget, `ralph-mem ralph status --loop ${loop.loopId} --json`) : undefined
        },
        budget
      )
    })
})

/** Every memory tool, in the order Claude Code lists them. */
