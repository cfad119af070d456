/** Layers 1 to 3 of the memory: `search` (ranked hits), `timeline` (what came around them), `get` (in full). */
import { formatTime, observationNeighbours, oneLine, sessionDetails, sessionOverview } from "@ralph-mem/projections"
import { fullDetails, searchIndex } from "@ralph-mem/projections/search"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { pointInTime } from "../time.ts"
import { fitAnswer, plainAnswer } from "./budget.ts"
import { cutOrLeftOut, hitLine, idList, missingLine, observationInFull, observationLine, quoted } from "./render.ts"
import {
  count,
  described,
  Id,
  ObservationType,
  optional,
  positive,
  refuse,
  text,
  tool,
  type ToolContext
} from "./tool.ts"

export const search = tool({
  name: "search",
  description:
    "Search this project's memory of past Claude Code sessions (ralph-mem) to recall what happened before: an " +
    "error seen before and how it was fixed, earlier errors and failures, commands and test runs, files edited, " +
    "notes to remember, and session summaries. Step 1 of 3: one line per hit, each with an id; then `timeline` " +
    "shows what happened before and after a hit, and `get` gives hits in full. Any word may match and more " +
    "matching words rank higher; identifiers match by their parts (`TokenExpiredError` by \"token expired\"); " +
    "recent memories weigh more.",
  input: Schema.Struct({
    query: described(text(2000), "What to look for: words, an error message, an identifier, a command, a file name"),
    types: optional(
      // An empty list would match nothing, silently: leaving `types` out is how to ask for every kind.
      Schema.Array(ObservationType).check(Schema.isMinLength(1), Schema.isMaxLength(4)),
      "Only these kinds (one or more; leave out for all): error (failed commands and tools), success (passing " +
        "test, build, lint or typecheck runs), tool_use (other tool calls), note (notes saved with remember)"
    ),
    since: optional(text(40), "Only memories from this time on: ISO 8601 (2026-11-20) or an age (30m, 12h, 7d, 2w)"),
    session: optional(Id, "Only this past session (a session id, as search and timeline show them)"),
    limit: optional(positive(50), "At most this many hits (default 10)")
  }),
  writes: false,
  asked: (input) => ({ query: input.query }),
  run: (input, { memory, project, forReading, settings, budget, now }) =>
    Effect.suspend(() => {
      const since = input.since === undefined ? undefined : pointInTime(input.since, now)
      if (input.since !== undefined && since === undefined) {
        return Effect.fail(
          refuse(
            `since ${quoted(input.since)} is not a time: ` +
              "use ISO 8601 (2026-11-20T09:30:00Z) or an age (30m, 12h, 7d, 2w)"
          )
        )
      }
      const { hits } = forReading(searchIndex(memory.db, {
        query: input.query,
        project,
        ...(input.session === undefined ? {} : { sessionId: input.session }),
        ...(input.types === undefined ? {} : { types: input.types }),
        ...(since === undefined ? {} : { since }),
        limit: input.limit ?? 10,
        now,
        recency: {
          halfLifeDays: settings.memory.search.recencyHalfLifeDays,
          weight: settings.memory.search.recencyWeight
        }
      }))
      if (hits.length === 0) {
        return Effect.succeed(
          plainAnswer(
            `Nothing in this project's memory matches ${quoted(input.query)}` +
              `${input.types || since || input.session ? " with these filters" : ""}. ` +
              "Try other words (an error message, a file or function name), fewer filters, " +
              "or the why, beliefs and task tools.",
            budget
          )
        )
      }
      const observations = hits.filter((h) => h.kind === "observation").map((h) => h.id)
      const session = hits.find((h) => h.kind === "session")
      return Effect.succeed(
        fitAnswer(
          {
            header: `Memory of past sessions in this project: ${hits.length} hit(s) for ${quoted(input.query)}, ` +
              "best first.",
            items: hits.map((hit, i) => ({ text: hitLine(hit, i + 1), ids: [hit.id] })),
            more: ({ omitted }) =>
              [
                omitted === 0
                  ? undefined
                  : `${omitted} more hit(s) left out to keep this answer within ${budget} tokens: ` +
                    "search with more words or filters.",
                `More: ${
                  [
                    ...(observations.length === 0 ? [] : [
                      `get {"ids": ${idList(observations.slice(0, 3))}} gives observations in full`,
                      `timeline {"around": "${observations[0]}"} shows what came before and after it`
                    ]),
                    ...(session === undefined
                      ? []
                      : [`timeline {"session": "${session.id}"} lists a summarised session`])
                  ].join("; ")
                }.`
              ]
                .filter(Boolean)
                .join("\n")
          },
          budget
        )
      )
    })
})

const DEFAULT_AROUND = 3
const DEFAULT_SESSION_PAGE = 20

const sessionTimeline = (context: ToolContext, sessionId: string, count: number) => {
  const { memory, forReading, budget } = context
  const overview = forReading(sessionOverview(memory.db, sessionId))
  if (overview === undefined) {
    return Effect.fail(refuse(`No session ${sessionId} in this memory (session ids come from search and timeline).`))
  }
  const page = forReading(sessionDetails(memory.db, sessionId, count))
  const end = overview.endedAt === null ? "now (not ended)" : formatTime(overview.endedAt)
  const span = `${formatTime(overview.startedAt)} to ${end}`
  const header = [
    `Session ${sessionId}, ${span}: ${overview.prompts} prompt(s), ${overview.observations} observation(s)` +
    `${sessionId === context.sessionId ? " (this session)" : ""}.`,
    ...(overview.summary === null ? [] : [`Summary: ${oneLine(overview.summary, 1200)}`]),
    ...(page.length === 0 ? ["No observations recorded."] : [])
  ].join("\n")
  return Effect.succeed(
    fitAnswer(
      {
        header,
        items: page.map((d) => ({ text: observationLine(d, 300), ids: [d.id] })),
        more: ({ omitted }) => {
          const shown = page.slice(0, page.length - omitted)
          const last = shown.at(-1)
          const rest = overview.observations - page.length + omitted
          return [
            last === undefined || rest <= 0
              ? undefined
              : `Next: timeline {"around": "${last.id}", "before": 0, "after": ${DEFAULT_SESSION_PAGE}} ` +
                "lists the session's later observations.",
            shown.length === 0
              ? undefined
              : `More: get {"ids": ${idList(shown.slice(0, 3).map((d) => d.id))}} gives observations in full.`
          ]
            .filter(Boolean)
            .join("\n")
        }
      },
      budget
    )
  )
}

export const timeline = tool({
  name: "timeline",
  description:
    "Step 2 of ralph-mem memory search: what happened before and after a remembered observation in its past session " +
    "(give `around`, an id from search), e.g. how an earlier error was fixed; or the observations of a past session " +
    "in order (give `session`). Then `get` gives observations in full.",
  input: Schema.Struct({
    around: optional(
      Id,
      "An observation id (from search, timeline or get): show it with what happened just before and after it; " +
        "a session id works too"
    ),
    session: optional(Id, "A session id: list that session's observations in order, with its summary"),
    before: optional(count(50), `How many observations before \`around\` (default ${DEFAULT_AROUND})`),
    after: optional(
      count(50),
      `How many after \`around\` (default ${DEFAULT_AROUND}), ` +
        `or how many of a session's to list (default ${DEFAULT_SESSION_PAGE})`
    )
  }),
  writes: false,
  asked: (input) => ({ ids: [input.around, input.session].filter((id): id is string => id !== undefined) }),
  run: (input, context) =>
    Effect.suspend(() => {
      const { memory, forReading, budget } = context
      if ((input.around === undefined) === (input.session === undefined)) {
        return Effect.fail(refuse("Give one of `around` (an observation id from search) or `session` (a session id)."))
      }
      if (input.session !== undefined) {
        return sessionTimeline(context, input.session, input.after ?? DEFAULT_SESSION_PAGE)
      }
      const around = input.around!
      const found = forReading(
        observationNeighbours(memory.db, around, input.before ?? DEFAULT_AROUND, input.after ?? DEFAULT_AROUND)
      )
      if (found === undefined) {
        if (sessionOverview(memory.db, around) !== undefined) {
          return sessionTimeline(context, around, input.after ?? DEFAULT_SESSION_PAGE)
        }
        return Effect.fail(refuse(missingLine(memory.db, [around])!))
      }
      const { target } = found
      const where = target.sessionId === null ? " (a note outside any session)" : ` in session ${target.sessionId}`
      return Effect.succeed(
        fitAnswer(
          {
            header: `Around ${target.id}${where}, oldest first (> marks it):`,
            items: [
              ...found.before.map((d) => ({ text: observationLine(d, 300), ids: [d.id] })),
              // The observation itself is kept first: it is what was asked for.
              { text: observationLine(target, 800, ">"), ids: [target.id], priority: -1 },
              ...found.after.map((d) => ({ text: observationLine(d, 300), ids: [d.id] }))
            ],
            more: ({ omitted }) =>
              [
                omitted === 0
                  ? undefined
                  : `${omitted} neighbour(s) left out to keep this answer within ${budget} tokens: ` +
                    "ask for fewer before/after.",
                `More: get {"ids": ["${target.id}"]} gives it in full` +
                (target.sessionId === null
                  ? "."
                  : `; timeline {"session": "${target.sessionId}"} lists its whole session.`)
              ]
                .filter(Boolean)
                .join("\n")
          },
          budget
        )
      )
    })
})

export const get = tool({
  name: "get",
  description:
    "Step 3 of ralph-mem memory search: remembered observations in full (the command or tool input, its whole " +
    "recorded output or error, the files it touched; or a saved note), by the ids search and timeline give.",
  input: Schema.Struct({
    ids: described(
      Schema.Array(Id).check(Schema.isMinLength(1), Schema.isMaxLength(20)),
      "Observation ids from search or timeline (1 to 20)"
    )
  }),
  writes: false,
  asked: (input) => ({ ids: input.ids }),
  run: (input, { memory, forReading, budget }) =>
    Effect.suspend(() => {
      const ids = [...new Set(input.ids)]
      const details = forReading(fullDetails(memory.db, ids))
      const found = new Set(details.map((d) => d.id))
      const missing = missingLine(
        memory.db,
        ids.filter((id) => !found.has(id))
      )
      if (details.length === 0) return Effect.fail(refuse(missing!))
      // In the order asked for.
      const ordered = ids.flatMap((id) => details.filter((d) => d.id === id))
      return Effect.succeed(
        fitAnswer(
          {
            header: `${ordered.length} observation(s) from this project's memory:`,
            items: ordered.map((d) => ({ text: observationInFull(d), ids: [d.id] })),
            // Only the first asked for is ever cut: it is cut when it alone does not fit.
            more: (left) =>
              [
                missing,
                cutOrLeftOut(
                  budget,
                  `ralph-mem show ${ordered[0]!.id}`,
                  (omitted) =>
                    `Left out to keep this answer within ${budget} tokens: ` +
                    `get {"ids": ${idList(ordered.slice(ordered.length - omitted).map((d) => d.id))}}.`
                )(left)
              ]
                .filter(Boolean)
                .join("\n")
          },
          budget
        )
      )
    })
})
