/** Working memory for Claude: `why` (decisions), `beliefs`, `task` (the current task's state). */
import {
  currentTaskId,
  findTask,
  listBeliefs,
  listDecisions,
  oneLine,
  searchDecisions,
  taskIds
} from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { decisionMarkdown, taskMarkdown } from "../markdown.ts"
import { fitAnswer, plainAnswer } from "./budget.ts"
import { cutOrLeftOut, cutShort, quoted } from "./render.ts"
import { described, Id, optional, positive, refuse, text, tool } from "./tool.ts"

export const why = tool({
  name: "why",
  description:
    "Why was it done this way? Searches the decisions recorded in this project's memory (ralph-mem) and gives each " +
    "with its rationale, the alternatives that were rejected and why, its impact and task. Look here before changing " +
    "an approach that may have been chosen on purpose.",
  input: Schema.Struct({
    query: described(text(2000), "What the decision was about (any word may match)"),
    limit: optional(positive(20), "At most this many decisions (default 5)")
  }),
  writes: false,
  asked: (input) => ({ query: input.query }),
  run: (input, { memory, project, forReading, budget }) =>
    Effect.sync(() => {
      const decisions = forReading(
        searchDecisions(memory.db, { query: input.query, project, limit: input.limit ?? 5 })
      )
      if (decisions.length === 0) {
        return plainAnswer(
          `No decision in this project's memory matches ${quoted(input.query)}. ` +
            "Decisions are recorded with remember {\"kind\": \"decision\", \"text\": ..., \"why\": ...} " +
            "or `ralph-mem decide`.",
          budget
        )
      }
      return fitAnswer(
        {
          header: `${decisions.length} decision(s) from this project's memory, best match first:`,
          items: decisions.map((d) => ({ text: decisionMarkdown(d, 2), ids: [d.id] })),
          // Only the best match is ever cut: it is shown alone.
          more: cutOrLeftOut(
            budget,
            `ralph-mem show ${decisions[0]!.id}`,
            (omitted) =>
              `${omitted} more decision(s) left out to keep this answer within ${budget} tokens: ask with more words.`
          )
        },
        budget
      )
    })
})

export const beliefs = tool({
  name: "beliefs",
  description:
    "The durable facts this project's memory (ralph-mem) holds about it, as key: value beliefs (stack, key files, " +
    "conventions, current focus, blockers, ...), the most recently set first. Every session is told them at its start.",
  input: Schema.Struct({}),
  writes: false,
  asked: () => ({}),
  run: (_, { memory, project, forReading, budget }) =>
    Effect.sync(() => {
      const all = forReading(listBeliefs(memory.db, project))
      if (all.length === 0) {
        return plainAnswer(
          "No beliefs recorded for this project yet. " +
            "remember {\"kind\": \"belief\", \"key\": \"stack\", \"text\": \"...\"} records one.",
          budget
        )
      }
      return fitAnswer(
        {
          header: `${all.length} belief(s) about this project:`,
          items: all.map((b) => ({ text: `- ${b.key}: ${b.value}`, ids: [b.eventId] })),
          // Only the most recent is ever cut: it is shown alone.
          more: cutOrLeftOut(
            budget,
            `ralph-mem show ${all[0]!.eventId}`,
            (omitted) =>
              `${omitted} older belief(s) left out to keep this answer within ${budget} tokens: ` +
              "`ralph-mem belief list` (Bash) lists all."
          )
        },
        budget
      )
    })
})

export const task = tool({
  name: "task",
  description:
    "The current task's working state from this project's memory (ralph-mem): its plan steps and their status, " +
    "findings, the handoff note an earlier session left, the files read and modified, and the decisions " +
    "taken for it. " +
    "Use it to resume work where an earlier session stopped.",
  input: Schema.Struct({
    task: optional(Id, "A task id (default: the current task, the open one changed last)")
  }),
  writes: false,
  asked: (input) => (input.task === undefined ? {} : { ids: [input.task] }),
  run: (input, { memory, project, forReading, budget }) =>
    Effect.suspend(() => {
      const known = taskIds(memory.db, project)
      const taskId = input.task === undefined ? currentTaskId(memory.db, project) : input.task.trim().toLowerCase()
      if (taskId === undefined) {
        return Effect.succeed(
          plainAnswer(
            "There is no open task in this project's memory" +
              `${known.size === 0 ? "" : ` (done tasks: ${[...known].join(", ")})`}. ` +
              "The user starts one with /ralph-mem:task start <title>.",
            budget
          )
        )
      }
      const detail = forReading(findTask(memory.db, project, taskId))
      if (detail === undefined) {
        return Effect.fail(
          refuse(
            `No task ${quoted(taskId)} in this project.` +
              (known.size === 0 ? " It has no tasks yet." : ` Its tasks: ${[...known].join(", ")}.`)
          )
        )
      }
      const others = [...known].filter((id) => id !== taskId)
      return Effect.succeed(
        fitAnswer(
          {
            header: "",
            items: [
              {
                text: taskMarkdown(detail, forReading(listDecisions(memory.db, { project, taskId }))),
                ids: [detail.eventId]
              }
            ],
            more: ({ clipped }) =>
              [
                clipped ? cutShort(budget, `ralph-mem task show ${taskId}`) : undefined,
                others.length === 0
                  ? undefined
                  : `Other tasks: ${oneLine(others.join(", "), 300)} (task {"task": "${others[0]}"} shows it).`
              ]
                .filter(Boolean)
                .join("\n")
          },
          budget
        )
      )
    })
})
