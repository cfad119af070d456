/**
 * One handler per hook: given the decoded input and the project's memory, decide which events to
 * append and what (if anything) to tell Claude. Handlers read the read models but never write:
 * the runner appends their events in one transaction.
 */
import type { RalphMemEvent, SessionSource } from "@ralph-mem/events"
import {
  activePlanLoop,
  activityBetween,
  commandFamily,
  estimateTokens,
  hitBodies,
  listBeliefs,
  type MemoryStore,
  normalizeCommand,
  openLoops,
  positionsOf,
  projectFailures,
  recentObservations,
  recentWorkSessions,
  relativeValues,
  resumeBrief,
  sessionRecord,
  sourceEventIds,
  toldInSession,
  unannouncedRestores
} from "@ralph-mem/projections"
import { searchIndex } from "@ralph-mem/projections/search"
import type { Settings } from "@ralph-mem/settings"
import {
  fitToBudget,
  HIT_READ_CHARS,
  type Injection,
  injectionBudgetTokens,
  type InjectionItem,
  promptItems,
  sessionStartItems,
  showHits,
  type Told,
  untold,
  withRefs
} from "./inject.ts"
import { activityIds, currentFailure, recallMatch, recallPointer, recallText, splitFailures } from "./lessons.ts"
import {
  isMemoryToolCall,
  observeToolFailure,
  observeToolUse,
  summarizeInput,
  type ToolObservation,
  trim
} from "./observe.ts"
import type { HookInput, HookName } from "./payload.ts"
import { planGuard, planGuardMessage } from "./plan-guard.ts"
import { LOCAL_SUMMARIZER, summarizeSession } from "./summarize.ts"

export interface HookContext {
  readonly memory: MemoryStore
  /** The project root the session works in; memory is scoped to it. */
  readonly project: string
  readonly settings: Settings
  /** The user's home folder: never shown in what Claude is told (paths under it are written `~/...`). */
  readonly home?: string | undefined
}

/**
 * Context for Claude (SessionStart, UserPromptSubmit), a refused tool call (PreToolUse), or a message shown
 * to the user only (a refused memory folder).
 */
export type HookOutput =
  | { readonly systemMessage: string }
  | { readonly hookSpecificOutput: { readonly hookEventName: string; readonly additionalContext: string } }
  | {
    readonly hookSpecificOutput: {
      readonly hookEventName: "PreToolUse"
      readonly permissionDecision: "deny"
      readonly permissionDecisionReason: string
    }
  }

/** What a hook decided: the events to record and what to print back to Claude Code. */
export interface HookDecision {
  readonly events: ReadonlyArray<RalphMemEvent>
  readonly output?: HookOutput
  /** Appending the same hook decision twice (a retried hook) writes it once. */
  readonly idempotencyKey?: string
}

/** A hook's handler, and what the hook records when the memory cannot be opened (`MemorylessHandler`), if anything. */
export type Handler<H extends HookName> = ((input: HookInput<H>, context: HookContext) => HookDecision) & {
  readonly withoutMemory?: MemorylessHandler<H>
}

/**
 * What a hook records when the memory cannot be opened (another process holds it past the hook's wait, a full disk):
 * what happened (the prompt, the tool call, the reply), decided without reading memory, for the spill file to keep
 * until the next process records it. Nothing is told to Claude: what it would be told needs the memory.
 */
export type MemorylessHandler<H extends HookName> = (
  input: HookInput<H>,
  context: Omit<HookContext, "memory">
) => HookDecision

/** A handler that records `withoutMemory`'s events when the memory cannot be opened. */
const recording = <H extends HookName>(
  handler: (input: HookInput<H>, context: HookContext) => HookDecision,
  withoutMemory: MemorylessHandler<H>
): Handler<H> =>
  Object.assign((input: HookInput<H>, context: HookContext) => handler(input, context), { withoutMemory })

const SOURCES: ReadonlyArray<SessionSource> = ["startup", "resume", "clear", "compact"]

/**
 * Records what was injected (its sources as event ids, so a forget finds it) and returns the hook output
 * that carries it.
 */
const inject = (
  db: MemoryStore["db"],
  hook: HookName,
  sessionId: string,
  projectPath: string,
  reason: string,
  injection?: Injection
) =>
  injection === undefined
    ? { events: [], output: undefined }
    : {
      events: [
        {
          _tag: "ContextInjected",
          sessionId,
          projectPath,
          hookEvent: hook,
          reason: `${reason} (${injection.layer} layer)`,
          text: injection.text,
          tokens: injection.tokens,
          sources: sourceEventIds(db, injection.sources)
        } satisfies RalphMemEvent
      ],
      output: { hookSpecificOutput: { hookEventName: hook, additionalContext: injection.text } }
    }

/**
 * What Claude reads names paths relative to the project, and never the home folder (the log keeps them
 * whole): the memory is made relative before it is rendered, so no line cut short keeps part of a path.
 */
const relative = <T>(memory: T, { project, home }: HookContext): T => relativeValues(memory, { project, home })

const withOutput = (events: ReadonlyArray<RalphMemEvent>, output: HookOutput | undefined): HookDecision =>
  output === undefined ? { events } : { events, output }

/** Each item with the id that opens it: the position of the event (or session) it came from first. */
export const withEventRefs = (db: MemoryStore["db"], items: ReadonlyArray<InjectionItem>): Array<InjectionItem> =>
  withRefs(
    items,
    positionsOf(db, items.flatMap((i) => (i.ref === undefined && i.sources?.[0] !== undefined ? [i.sources[0]] : [])))
  )

/**
 * What is left to tell, each item with the id that opens it, within the budget. Sources are compared as
 * injections record them: a session's summary by its event (sourceEventIds).
 */
const toTell = (memory: MemoryStore, items: ReadonlyArray<InjectionItem>, told: Told, budget: number) => {
  const recorded = items.map((
    item
  ) => (item.sources === undefined ? item : { ...item, sources: sourceEventIds(memory.db, item.sources) }))
  return fitToBudget(withEventRefs(memory.db, untold(recorded, told)), budget)
}

/** How many of a project's latest failures SessionStart and the recall look at. */
const FAILURES_READ = 50
const LESSONS = 3
const OPEN_ERRORS = 5

const sourceOf = (input: HookInput<"SessionStart">): SessionSource =>
  SOURCES.find((s) => s === input.source) ?? "startup"

const sessionStarted: MemorylessHandler<"SessionStart"> = (input, { project }) => ({
  events: [{
    _tag: "SessionStarted",
    sessionId: input.session_id,
    projectPath: project,
    source: sourceOf(input),
    ...(input.transcript_path === undefined ? {} : { transcriptPath: input.transcript_path }),
    ...(typeof input.model === "string" ? { model: input.model } : {})
  }]
})

const sessionStart = /* @__PURE__ */ recording<"SessionStart">((input, context) => {
  const { memory, project, settings } = context
  const source = sourceOf(input)
  const brief = resumeBrief(memory.db, project, { sessionId: input.session_id })
  const { open, lessons } = splitFailures(projectFailures(memory.db, { project, limit: FAILURES_READ }))
  // Paths are made relative to the project (the home folder never shown) before anything is rendered.
  const items = sessionStartItems({
    project,
    ...relative({
      restores: unannouncedRestores(memory.db),
      // A resumed session is told first where it stopped: its task, step, handoff note and errors.
      ...(source === "resume" ? { brief } : brief.task === null ? {} : { task: brief.task }),
      beliefs: listBeliefs(memory.db, project),
      notes: recentObservations(memory.db, { project, types: ["note"], limit: 10 }),
      loops: openLoops(memory.db, project),
      openErrors: open.slice(0, OPEN_ERRORS),
      lessons: lessons.slice(0, LESSONS).map((lesson) => ({
        ...lesson,
        activity: activityBetween(memory.db, {
          project,
          after: lesson.failure.position,
          before: lesson.resolution.position,
          limit: 3
        })
      })),
      summaries: recentWorkSessions(memory.db, project, 3),
      successes: recentObservations(memory.db, { project, types: ["success"], limit: 5 })
    }, context)
  })
  // A resumed session still holds what it was told; a new, compacted or cleared context holds nothing.
  const told = source === "resume" ? toldInSession(memory.db, input.session_id) : new Map<string, Set<string>>()
  const injection = toTell(memory, items, told, injectionBudgetTokens(settings))
  const injected = inject(
    memory.db,
    "SessionStart",
    input.session_id,
    project,
    `recent context of the project at ${source}`,
    injection
  )
  return withOutput([...sessionStarted(input, context).events, ...injected.events], injected.output)
}, sessionStarted)

const promptSubmitted: MemorylessHandler<"UserPromptSubmit"> = (input, { project, settings }) => ({
  events: [{
    _tag: "PromptSubmitted",
    sessionId: input.session_id,
    projectPath: project,
    prompt: trim(input.prompt, settings.memory.maxPromptChars).content,
    ...(input.prompt_id === undefined ? {} : { promptId: input.prompt_id })
  }]
})

const userPromptSubmit = /* @__PURE__ */ recording<"UserPromptSubmit">((input, context) => {
  const { memory, project, settings } = context
  const loop = openLoops(memory.db, project).find((l) => l.sessionId === input.session_id)
  // A ralph-mem command prints memory itself: searching its words would only tell the same again.
  const { hits } = MEMORY_COMMAND.test(input.prompt) ? { hits: [] } : searchIndex(memory.db, {
    query: input.prompt,
    project,
    excludeSessionId: input.session_id,
    limit: 5,
    recency: { halfLifeDays: settings.memory.search.recencyHalfLifeDays, weight: settings.memory.search.recencyWeight }
  })
  const told = toldInSession(memory.db, input.session_id)
  const bodies = hits.length === 0 ? new Map() : hitBodies(memory.db, hits.map((h) => h.id), HIT_READ_CHARS)
  const shown = showHits(hits, bodies, HIT_READ_CHARS)
  const items = promptItems(relative(loop, context), relative(shown, context))
  const injection = toTell(memory, items, told, injectionBudgetTokens(settings))
  const injected = inject(
    memory.db,
    "UserPromptSubmit",
    input.session_id,
    project,
    "memory relevant to the prompt",
    injection
  )
  return withOutput([...promptSubmitted(input, context).events, ...injected.events], injected.output)
}, promptSubmitted)

const MEMORY_COMMAND = /^\s*\/ralph-mem:/

const toolKey = (sessionId: string, toolUseId: string | undefined, kind = "tool") =>
  toolUseId === undefined ? {} : { idempotencyKey: `${kind}:${sessionId}:${toolUseId}` }

/** A plan loop running in this session refuses edits; anything else passes without a trace. */
const preToolUse: Handler<"PreToolUse"> = (input, { memory }) => {
  const loopId = activePlanLoop(memory.db, input.session_id)
  const refusal = loopId === undefined ? undefined : planGuard(input.tool_name, input.tool_input)
  if (loopId === undefined || refusal === undefined) return { events: [] }
  const reason = planGuardMessage(loopId, refusal)
  return {
    events: [{
      _tag: "LoopToolBlocked",
      sessionId: input.session_id,
      loopId,
      toolName: input.tool_name,
      inputSummary: summarizeInput(input.tool_name, input.tool_input) ?? "",
      reason: refusal
    }],
    output: {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason }
    },
    ...toolKey(input.session_id, input.tool_use_id, "blocked")
  }
}

/**
 * Recall at the moment of failure: a failed command whose failure this project saw before, and saw pass
 * after, is told that lesson once a session (one item, within RECALL_BUDGET tokens).
 */
const recallLesson = (
  hook: "PostToolUse" | "PostToolUseFailure",
  sessionId: string,
  observation: ToolObservation,
  { memory, project }: HookContext
) => {
  const nothing = inject(memory.db, hook, sessionId, project, "")
  if (observation.kind !== "error" || observation.toolName !== "Bash" || observation.inputSummary === undefined) {
    return nothing
  }
  const command = normalizeCommand(observation.inputSummary)
  const family = commandFamily(command)
  const candidates = projectFailures(memory.db, { project, family, resolvedOnly: true, limit: RECALL_CANDIDATES })
  // Most failures were never fixed before: this one is recognised only when there is a fix to compare it with.
  if (candidates.length === 0) return nothing
  const match = recallMatch(currentFailure(command, observation.content), candidates)
  if (match?.resolution == null) return nothing
  const toldBy = toldInSession(memory.db, sessionId).get(match.eventId)
  if (toldBy !== undefined && RECALLING_HOOKS.some((h) => toldBy.has(h))) return nothing
  const resolution = match.resolution
  const activity = activityBetween(memory.db, { project, after: match.position, before: resolution.position, limit: 3 })
  // Told as a lesson already (at the session's start): said to be that lesson, not told again.
  const text = (toldBy === undefined ? recallText : recallPointer)({ ...match, resolution }, activity, project)
  const sources = [match.eventId, resolution.eventId, ...activityIds(activity)]
  const recalled = { text, tokens: estimateTokens(text), sources, layer: "full" } as const
  return inject(memory.db, hook, sessionId, project, "the same failure, seen before and fixed", recalled)
}

const RECALLING_HOOKS = ["PostToolUse", "PostToolUseFailure"]

/** The latest fixed failures of the family a failure is compared with (by what their rows keep). */
const RECALL_CANDIDATES = 20

/** A tool call as an observation: what happened, decided without reading memory. */
const observedTool = <H extends "PostToolUse" | "PostToolUseFailure">(
  observe: (input: HookInput<H>, limit: number) => ToolObservation
) =>
(input: HookInput<H>, { project, settings }: Omit<HookContext, "memory">) => {
  const observation = observe(input, settings.memory.maxObservationChars)
  const recorded: RalphMemEvent = {
    _tag: "ObservationRecorded",
    sessionId: input.session_id,
    projectPath: project,
    ...observation
  }
  return { observation, recorded }
}

/**
 * A tool call recorded as an observation; a failed command this project saw fixed before is answered with the
 * lesson.
 */
const recordTool = <H extends "PostToolUse" | "PostToolUseFailure">(
  hook: H,
  observe: (input: HookInput<H>, limit: number) => ToolObservation
): Handler<H> => {
  const observed = observedTool(observe)
  // ralph-mem's own memory tools are recorded by their server, not observed again (see isMemoryToolCall).
  const unlessMemoryTool =
    <C>(decide: (input: HookInput<H>, context: C) => HookDecision) => (input: HookInput<H>, context: C): HookDecision =>
      isMemoryToolCall(input.tool_name) ? { events: [] } : decide(input, context)
  return recording(
    unlessMemoryTool((input, context: HookContext) => {
      const { observation, recorded } = observed(input, context)
      const recalled = recallLesson(hook, input.session_id, observation, context)
      return {
        ...withOutput([recorded, ...recalled.events], recalled.output),
        ...toolKey(input.session_id, input.tool_use_id)
      }
    }),
    // Without memory, the observation alone: the recall needs the memory.
    unlessMemoryTool((input, context: Omit<HookContext, "memory">) => ({
      events: [observed(input, context).recorded],
      ...toolKey(input.session_id, input.tool_use_id)
    }))
  )
}

// Pure: a hook program that does not handle these events leaves them, and what they import, out of its bundle.
const postToolUse = /* @__PURE__ */ recordTool("PostToolUse", observeToolUse)
const postToolUseFailure = /* @__PURE__ */ recordTool("PostToolUseFailure", observeToolFailure)

/** Records Claude's last reply. The Ralph loop continues from here (packages/loop). */
const assistantReplied: MemorylessHandler<"Stop"> = (input, { project, settings }) => {
  const message = input.last_assistant_message ?? ""
  return {
    events: message.trim() === ""
      ? []
      : [{
        _tag: "AssistantReplied",
        sessionId: input.session_id,
        projectPath: project,
        message: trim(message, settings.memory.maxPromptChars).content
      }]
  }
}

/** A turn cut off by an API error: nothing to remember of the session; the loop takes note (packages/loop). */
const stopFailure: Handler<"StopFailure"> = () => ({ events: [] })

const sessionCompacted: MemorylessHandler<"PreCompact"> = (input, { project }) => ({
  events: [{
    _tag: "SessionCompacted",
    sessionId: input.session_id,
    projectPath: project,
    trigger: input.trigger === "manual" ? "manual" : "auto",
    ...(input.custom_instructions ? { customInstructions: input.custom_instructions } : {})
  }]
})

const sessionEnded: MemorylessHandler<"SessionEnd"> = (input, { project }) => ({
  events: [{
    _tag: "SessionEnded",
    sessionId: input.session_id,
    projectPath: project,
    reason: input.reason ?? "unknown"
  }]
})

const sessionEnd = /* @__PURE__ */ recording<"SessionEnd">((input, context) => {
  const { memory, project, home } = context
  const result = summarizeSession(sessionRecord(memory.db, input.session_id), { project, home })
  const summarized: ReadonlyArray<RalphMemEvent> = result === undefined ? [] : [{
    _tag: "SessionSummarized",
    sessionId: input.session_id,
    projectPath: project,
    summary: result.summary,
    summarizer: LOCAL_SUMMARIZER,
    ...(result.memoryOnly ? { memoryOnly: true } : {})
  }]
  return { events: [...summarized, ...sessionEnded(input, context).events] }
}, sessionEnded)

const stop = /* @__PURE__ */ recording(assistantReplied, assistantReplied)
const preCompact = /* @__PURE__ */ recording(sessionCompacted, sessionCompacted)

/** Handlers for some of the hooks (a hook program's). */
export type HookHandlers = { readonly [H in HookName]?: Handler<H> }

export const handlers: { readonly [H in HookName]: Handler<H> } = {
  SessionStart: sessionStart,
  UserPromptSubmit: userPromptSubmit,
  PreToolUse: preToolUse,
  PostToolUse: postToolUse,
  PostToolUseFailure: postToolUseFailure,
  Stop: stop,
  StopFailure: stopFailure,
  PreCompact: preCompact,
  SessionEnd: sessionEnd
}

/**
 * The handlers by group of hooks: each group is a hook program of its own (scripts/bundle.mjs) holding only
 * what its hooks run. A tool call's hooks, which run most often, hold neither the search nor its lexicon.
 */
export const toolCallHandlers = {
  PreToolUse: preToolUse,
  PostToolUse: postToolUse,
  PostToolUseFailure: postToolUseFailure
} satisfies HookHandlers
export const promptHandlers = { SessionStart: sessionStart, UserPromptSubmit: userPromptSubmit } satisfies HookHandlers
export const turnEndHandlers = {
  Stop: stop,
  StopFailure: stopFailure,
  PreCompact: preCompact,
  SessionEnd: sessionEnd
} satisfies HookHandlers
