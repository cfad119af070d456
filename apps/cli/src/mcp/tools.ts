/**
 * The memory tools Claude calls (served over MCP by server.ts): their names, their descriptions (written
 * for the model: Claude Code defers MCP tools behind its ToolSearch tool, so they must hold the words a
 * model searches with: memory, past sessions, earlier errors, decisions, notes), their inputs as Schemas
 * (which give the JSON Schema Claude sees and decode what it sends), and what each answers. Reads run in
 * one short read transaction (server.ts); only `remember` writes.
 */
import { type AppendError, DecisionImpact, type RecordedEvent, streams } from "@ralph-mem/events"
import { activeLoopForSession, iterationPrompt, loadLoop, loopMemory } from "@ralph-mem/loop"
import {
  currentTaskId,
  findTask,
  forgottenEventIds,
  fullDetails,
  type IndexHit,
  listBeliefs,
  listDecisions,
  type Memory,
  type ObservationDetail,
  observationNeighbours,
  openLoops,
  searchDecisions,
  searchIndex,
  sessionObservations,
  sessionOverview,
  type Settings,
  taskIds
} from "@ralph-mem/projections"
import { beliefAggregate, execute, parseName, Refused, taskAggregate } from "@ralph-mem/working"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { decisionMarkdown, taskMarkdown } from "../markdown.ts"
import { formatTime, oneLine } from "../output.ts"
import { pointInTime } from "../time.ts"
import { writeDecision, writeNote } from "../writes.ts"
import { type Answer, fitAnswer, plainAnswer } from "./budget.ts"

export interface ToolContext {
  readonly memory: Memory
  /** The project root: searches and working memory are scoped to it. */
  readonly project: string
  /** The Claude Code session the server serves (CLAUDE_CODE_SESSION_ID), when it is known. */
  readonly sessionId: string | undefined
  readonly settings: Settings
  /** The most the answer may hold, in tokens. */
  readonly budget: number
  readonly now: number
}

/** A call a tool cannot answer as asked (an unknown id, a decision without why): Claude is told, as a tool error. */
export class ToolRefused extends Schema.TaggedError<ToolRefused>()("ToolRefused", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

const refuse = (reason: string) => new ToolRefused({ reason })

/** What a call asked for, as its record keeps it. */
export interface Asked {
  readonly query?: string
  readonly ids?: ReadonlyArray<string>
}

export interface MemoryTool<I> {
  readonly name: string
  readonly description: string
  readonly input: Schema.Codec<I, unknown>
  /** Writes: the database is created if it does not exist, and the tool runs outside a read transaction. */
  readonly writes: boolean
  readonly asked: (input: I) => Asked
  /** Fails with ToolRefused for a call that cannot be answered as asked; any other failure is ralph-mem's. */
  readonly run: (input: I, context: ToolContext) => Effect.Effect<Answer, ToolRefused | AppendError>
}

const tool = <I>(definition: MemoryTool<I>): MemoryTool<unknown> => definition as unknown as MemoryTool<unknown>

// ---- inputs --------------------------------------------------------------------------------------------

const text = (max: number) => Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(max))
const Id = text(200)
const count = (maximum: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum }))
const positive = (maximum: number) => Schema.Int.check(Schema.isBetween({ minimum: 1, maximum }))
const described = <S extends Schema.Top>(schema: S, description: string) => schema.annotate({ description })
const optional = <S extends Schema.Top>(schema: S, description: string) =>
  Schema.optionalKey(described(schema, description))

const ObservationType = Schema.Literals(["error", "success", "tool_use", "note"])

// ---- rendering -----------------------------------------------------------------------------------------

const quoted = (value: string) => JSON.stringify(oneLine(value, 200))

const what = (d: ObservationDetail) => [d.toolName, d.inputSummary].filter(Boolean).join(" ")

/** One observation on one line: id, time, kind, what ran, and the start of what it said. */
const observationLine = (d: ObservationDetail, chars: number, mark = "-") => {
  const action = what(d)
  const body =
    d.errorMessage !== null && !d.content.includes(d.errorMessage) ? `${d.errorMessage}: ${d.content}` : d.content
  const ran = action === "" ? "" : `\`${oneLine(action, 160)}\`: `
  return `${mark} ${d.id} ${formatTime(d.createdAt)} [${d.type}] ${ran}${oneLine(body, chars)}`
}

/** An observation in full: what layer 3 shows. */
const observationInFull = (d: ObservationDetail) =>
  [
    `## ${d.id} [${d.type}] ${formatTime(d.createdAt)}${d.sessionId === null ? "" : `, session ${d.sessionId}`}`,
    ...(d.toolName === null ? [] : [`tool: ${d.toolName}`]),
    ...(d.inputSummary === null ? [] : [`input: ${d.inputSummary}`]),
    ...(d.errorMessage === null ? [] : [`error: ${d.errorMessage}`]),
    ...(d.files.length === 0 ? [] : [`files: ${d.files.join(", ")}`]),
    ...(d.metadata["truncated"] === true ? ["(the output was trimmed when it was recorded)"] : []),
    d.content
  ].join("\n")

const hitLine = (hit: IndexHit, rank: number) =>
  `${rank}. ${hit.id} ${formatTime(hit.createdAt)} [${hit.kind === "session" ? "session summary" : hit.type}] ` +
  hit.title

const idList = (ids: ReadonlyArray<string>) => JSON.stringify(ids)

/** Unknown and forgotten ids, said apart: a forgotten one is gone for good, an unknown one may be mistyped. */
const missingLine = (db: Memory["db"], missing: ReadonlyArray<string>) => {
  if (missing.length === 0) return undefined
  const forgotten = forgottenEventIds(db, missing)
  const unknown = missing.filter((id) => !forgotten.has(id))
  return [
    forgotten.size === 0
      ? undefined
      : `Forgotten (erased from memory by ralph-mem forget; nothing of them is left): ${[...forgotten].join(", ")}.`,
    unknown.length === 0
      ? undefined
      : `No observation with id ${unknown.join(", ")} in this memory (ids come from search and timeline).`
  ]
    .filter((line) => line !== undefined)
    .join("\n")
}

// ---- the tools -----------------------------------------------------------------------------------------

const search = tool({
  name: "search",
  description:
    "Search this project's memory of past Claude Code sessions (ralph-mem) to recall what happened before: an " +
    "error seen before and how it was fixed, earlier errors and failures, commands and test runs, files edited, " +
    "notes to remember, and session summaries. Step 1 of 3: one line per hit, each with an id; then `timeline` " +
    "shows what happened before and after a hit, and `get` gives hits in full. Any word may match and more " +
    'matching words rank higher; identifiers match by their parts (`TokenExpiredError` by "token expired"); ' +
    "recent memories weigh more.",
  input: Schema.Struct({
    query: described(text(2000), "What to look for: words, an error message, an identifier, a command, a file name"),
    types: optional(
      Schema.Array(ObservationType).check(Schema.isMaxLength(4)),
      "Only these kinds: error (failed commands and tools), success (passing test, build, lint or typecheck " +
        "runs), tool_use (other tool calls), note (notes saved with remember)"
    ),
    since: optional(text(40), "Only memories from this time on: ISO 8601 (2026-11-20) or an age (30m, 12h, 7d, 2w)"),
    session: optional(Id, "Only this past session (a session id, as search and timeline show them)"),
    limit: optional(positive(50), "At most this many hits (default 10)")
  }),
  writes: false,
  asked: (input) => ({ query: input.query }),
  run: (input, { memory, project, settings, budget, now }) =>
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
      const { hits } = searchIndex(memory.db, {
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
      })
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
            header:
              `Memory of past sessions in this project: ${hits.length} hit(s) for ${quoted(input.query)}, ` +
              "best first.",
            items: hits.map((hit, i) => ({ text: hitLine(hit, i + 1), ids: [hit.id] })),
            more: ({ omitted }) =>
              [
                omitted === 0
                  ? undefined
                  : `${omitted} more hit(s) left out to keep this answer within ${budget} tokens: ` +
                    "search with more words or filters.",
                `More: get {"ids": ${idList(observations.slice(0, 3))}} gives observations in full; ` +
                  'timeline {"around": "<id>"} shows what came before and after one' +
                  (session === undefined ? "." : `; timeline {"session": "${session.id}"} lists a summarised session.`)
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
  const { memory, budget } = context
  const overview = sessionOverview(memory.db, sessionId)
  if (overview === undefined)
    return Effect.fail(refuse(`No session ${sessionId} in this memory (session ids come from search and timeline).`))
  const page = sessionObservations(memory.db, sessionId, count)
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

const timeline = tool({
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
      const { memory, budget } = context
      if ((input.around === undefined) === (input.session === undefined)) {
        return Effect.fail(refuse("Give one of `around` (an observation id from search) or `session` (a session id)."))
      }
      if (input.session !== undefined)
        return sessionTimeline(context, input.session, input.after ?? DEFAULT_SESSION_PAGE)
      const around = input.around!
      const found = observationNeighbours(
        memory.db,
        around,
        input.before ?? DEFAULT_AROUND,
        input.after ?? DEFAULT_AROUND
      )
      if (found === undefined) {
        if (sessionOverview(memory.db, around) !== undefined)
          return sessionTimeline(context, around, input.after ?? DEFAULT_SESSION_PAGE)
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

const get = tool({
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
  run: (input, { memory, budget }) =>
    Effect.suspend(() => {
      const ids = [...new Set(input.ids)]
      const details = fullDetails(memory.db, ids)
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
            more: ({ omitted, clipped }) =>
              [
                missing,
                omitted === 0
                  ? undefined
                  : `Left out to keep this answer within ${budget} tokens: ` +
                    `get {"ids": ${idList(ordered.slice(ordered.length - omitted).map((d) => d.id))}}.`,
                clipped ? "Cut short to fit; `ralph-mem show <id>` (Bash) prints it whole." : undefined
              ]
                .filter(Boolean)
                .join("\n")
          },
          budget
        )
      )
    })
})

const why = tool({
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
  run: (input, { memory, project, budget }) =>
    Effect.sync(() => {
      const decisions = searchDecisions(memory.db, { query: input.query, project, limit: input.limit ?? 5 })
      if (decisions.length === 0) {
        return plainAnswer(
          `No decision in this project's memory matches ${quoted(input.query)}. ` +
            'Decisions are recorded with remember {"kind": "decision", "text": ..., "why": ...} ' +
            "or `ralph-mem decide`.",
          budget
        )
      }
      return fitAnswer(
        {
          header: `${decisions.length} decision(s) from this project's memory, best match first:`,
          items: decisions.map((d) => ({ text: decisionMarkdown(d, 2), ids: [d.id] })),
          more: ({ omitted }) =>
            omitted === 0
              ? undefined
              : `${omitted} more decision(s) left out to keep this answer within ${budget} tokens: ask with more words.`
        },
        budget
      )
    })
})

const beliefs = tool({
  name: "beliefs",
  description:
    "The durable facts this project's memory (ralph-mem) holds about it, as key: value beliefs (stack, key files, " +
    "conventions, current focus, blockers, ...), the most recently set first. Every session is told them at its start.",
  input: Schema.Struct({}),
  writes: false,
  asked: () => ({}),
  run: (_, { memory, project, budget }) =>
    Effect.sync(() => {
      const all = listBeliefs(memory.db, project)
      if (all.length === 0) {
        return plainAnswer(
          "No beliefs recorded for this project yet. " +
            'remember {"kind": "belief", "key": "stack", "text": "..."} records one.',
          budget
        )
      }
      return fitAnswer(
        {
          header: `${all.length} belief(s) about this project:`,
          items: all.map((b) => ({ text: `- ${b.key}: ${b.value}`, ids: [b.eventId] })),
          more: ({ omitted }) =>
            omitted === 0
              ? undefined
              : `${omitted} older belief(s) left out to keep this answer within ${budget} tokens: ` +
                "`ralph-mem belief list` (Bash) lists all."
        },
        budget
      )
    })
})

const task = tool({
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
  run: (input, { memory, project, budget }) =>
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
      const detail = findTask(memory.db, project, taskId)
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
              { text: taskMarkdown(detail, listDecisions(memory.db, { project, taskId })), ids: [detail.eventId] }
            ],
            more: ({ clipped }) =>
              [
                clipped
                  ? `Cut short to fit ${budget} tokens; \`ralph-mem task show ${taskId}\` (Bash) prints it whole.`
                  : undefined,
                others.length === 0
                  ? undefined
                  : `Other tasks: ${oneLine(others.join(", "), 300)} (task {"task": "<id>"} shows one).`
              ]
                .filter(Boolean)
                .join("\n")
          },
          budget
        )
      )
    })
})

const REMEMBER_KINDS = ["note", "decision", "belief", "finding"] as const

const remember = tool({
  name: "remember",
  description:
    "Save to this project's memory (ralph-mem) what later sessions should know: a note; a decision with why it was " +
    "taken and the alternatives rejected; a belief, a durable fact about the project under a key (replacing its " +
    "earlier value); or a finding of the current task. Private text (<private>...</private>) and secrets are " +
    "filtered out before anything is stored. Returns the new memory's id.",
  input: Schema.Struct({
    kind: described(Schema.Literals(REMEMBER_KINDS), "note, decision, belief or finding"),
    text: described(text(10_000), "The note, the decision, the belief's value, or the finding"),
    why: optional(text(4000), "For a decision (required): the rationale"),
    alternatives: optional(
      Schema.Array(text(1000)).check(Schema.isMaxLength(20)),
      'For a decision: options considered and rejected, each as "<option>: <why not>"'
    ),
    impact: optional(DecisionImpact, "For a decision: low, medium (default) or high"),
    key: optional(
      text(64),
      "For a belief (required): what it is about: stack, key-files, conventions, focus, blockers, or any word"
    ),
    task: optional(Id, "For a finding or a decision: the task id (default: the current task)")
  }),
  writes: true,
  asked: () => ({}),
  run: (input, context) => rememberOne(input, context)
})

type RememberInput = {
  readonly kind: (typeof REMEMBER_KINDS)[number]
  readonly text: string
  readonly why?: string
  readonly alternatives?: ReadonlyArray<string>
  readonly impact?: DecisionImpact
  readonly key?: string
  readonly task?: string
}

/** What the privacy filter changed, said back: Claude should know that what it saved is not all there. */
const filtered = (given: string, stored: unknown) =>
  typeof stored === "string" && stored !== given.trim()
    ? ` Stored with private text or secrets filtered out: ${quoted(stored)}.`
    : ""

const taskFor = (context: ToolContext, named: string | undefined): Effect.Effect<string | undefined, ToolRefused> => {
  const { memory, project } = context
  if (named === undefined) return Effect.succeed(currentTaskId(memory.db, project))
  const taskId = parseName("task id", named)
  if (taskId instanceof Refused) return Effect.fail(refuse(taskId.reason))
  return taskIds(memory.db, project).has(taskId)
    ? Effect.succeed(taskId)
    : Effect.fail(refuse(`No task ${quoted(taskId)} in this project (the task tool shows the current one).`))
}

const saved = (event: RecordedEvent, said: string, context: ToolContext): Answer => {
  const answer = plainAnswer(
    `${said} Its id: ${event.eventId} (\`ralph-mem forget ${event.eventId}\` removes it).`,
    context.budget
  )
  return { ...answer, returned: [event.eventId] }
}

const WRITER = "mcp:remember"

const rememberOne = (input: RememberInput, context: ToolContext): Effect.Effect<Answer, ToolRefused | AppendError> => {
  const { memory, project, sessionId } = context
  const refused = (error: Refused) => refuse(error.reason)
  switch (input.kind) {
    case "note":
      return writeNote(memory, {
        project,
        text: input.text,
        noteType: "note",
        writer: WRITER,
        ...(sessionId === undefined ? {} : { sessionId })
      }).pipe(
        Effect.map(({ stored }) =>
          saved(
            stored,
            "Remembered as a note: later sessions of this project are told it at their start." +
              filtered(input.text, (stored.payload as { text?: unknown }).text),
            context
          )
        )
      )
    case "decision":
      if (input.why === undefined)
        return Effect.fail(refuse("A decision needs `why`: the rationale, so a later session knows what it rests on."))
      return Effect.flatMap(taskFor(context, input.task), (taskId) =>
        writeDecision(memory, {
          project,
          decision: input.text,
          rationale: input.why!,
          alternatives: input.alternatives ?? [],
          impact: input.impact ?? "medium",
          writer: WRITER,
          ...(taskId === undefined ? {} : { taskId })
        }).pipe(
          Effect.catchTag("Refused", (error) => Effect.fail(refused(error))),
          Effect.map((stored) =>
            saved(
              stored,
              `Decision recorded${taskId === undefined ? "" : ` for task ${taskId}`}: the why tool finds it.` +
                filtered(input.text, (stored.payload as { decision?: unknown }).decision),
              context
            )
          )
        )
      )
    case "belief": {
      if (input.key === undefined)
        return Effect.fail(
          refuse(
            "A belief needs `key`: what it is about (stack, key-files, conventions, focus, blockers, or any word)."
          )
        )
      const key = parseName("belief key", input.key)
      if (key instanceof Refused) return Effect.fail(refused(key))
      return execute(
        memory,
        streams.belief(project, key),
        beliefAggregate,
        { _tag: "Set", projectPath: project, key, value: input.text },
        WRITER
      ).pipe(
        Effect.catchTag("Refused", (error) => Effect.fail(refused(error))),
        Effect.map(({ state, events }) => {
          const [event] = events
          if (event === undefined)
            return plainAnswer(`The belief ${key} already says exactly this; nothing changed.`, context.budget)
          return saved(
            event,
            `Belief ${key} set: every new session of this project is told it.${filtered(input.text, state)}`,
            context
          )
        })
      )
    }
    case "finding":
      return Effect.flatMap(taskFor(context, input.task), (taskId) => {
        if (taskId === undefined) {
          return Effect.fail(
            refuse('There is no open task to add a finding to; remember it as a note instead (kind "note").')
          )
        }
        return execute(
          memory,
          streams.task(project, taskId),
          taskAggregate,
          { _tag: "RecordFinding", finding: input.text },
          WRITER
        ).pipe(
          Effect.catchTag("Refused", (error) => Effect.fail(refused(error))),
          Effect.map(({ events }) => {
            const event = events[0]!
            return saved(
              event,
              `Finding recorded for task ${taskId}: the task tool shows it.` +
                filtered(input.text, (event.payload as { finding?: unknown }).finding),
              context
            )
          })
        )
      })
  }
}

const loopStatus = tool({
  name: "loop_status",
  description:
    "The Ralph loop running in this Claude Code session, from memory (ralph-mem): its goal, which iteration this is, " +
    "which checks the harness found failing (test, build, lint, typecheck: the error and the output's tail), " +
    "and what " +
    "earlier iterations tried and changed.",
  input: Schema.Struct({}),
  writes: false,
  asked: () => ({}),
  run: (_, { memory, project, sessionId, budget }) =>
    Effect.sync(() => {
      const loopId = sessionId === undefined ? undefined : activeLoopForSession(memory, sessionId)
      const loop = loopId === undefined ? undefined : loadLoop(memory, loopId).state
      if (loop === undefined) {
        const others = openLoops(memory.db, project)
        return fitAnswer(
          {
            header:
              sessionId === undefined
                ? "This memory server was started without Claude Code's session id (CLAUDE_CODE_SESSION_ID), " +
                  "so it cannot tell which loop is this session's."
                : "No Ralph loop is running in this session.",
            items: others.map((l) => ({
              text:
                `- loop ${l.loopId}${l.sessionId === null ? "" : ` (session ${l.sessionId})`}: ` +
                `${oneLine(l.goal, 200)}; ` +
                `iteration ${l.iterations} of ${l.maxIterations}`,
              ids: [l.loopId]
            })),
            more: ({ omitted }) =>
              others.length === 0
                ? undefined
                : `Running in this project${omitted === 0 ? "" : ` (${omitted} more left out)`}: ` +
                  "`ralph-mem ralph status --loop <id>` (Bash) shows one."
          },
          budget
        )
      }
      const since = formatTime(loop.startedAt)
      const header = `Ralph loop ${loop.loopId}, ${loop.status} since ${since}; what the harness knows now:`
      const status = iterationPrompt(loop, { memoryLines: loopMemory(memory, loop), maxChars: budget * 4 })
      return fitAnswer({ header, items: [{ text: status, ids: [loop.loopId] }], more: () => undefined }, budget)
    })
})

/** Every memory tool, in the order Claude Code lists them. */
export const memoryTools: ReadonlyArray<MemoryTool<unknown>> = [
  search,
  timeline,
  get,
  why,
  beliefs,
  task,
  remember,
  loopStatus
]
