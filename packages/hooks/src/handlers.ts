/**
 * One handler per hook: given the decoded input and the project's memory, decide which events to
 * append and what (if anything) to tell Claude. Handlers read the read models but never write:
 * the runner appends their events in one transaction.
 */
import type { RalphMemEvent, SessionSource } from "@ralph-mem/events"
import {
  activePlanLoop,
  injectionBudgetTokens,
  listBeliefs,
  type Memory,
  openLoops,
  recentObservations,
  recentSessionSummaries,
  relativeValues,
  resumeBrief,
  searchIndex,
  sessionRecord,
  type Settings,
  sourceEventIds,
  unannouncedRestores
} from "@ralph-mem/projections"
import { fitToBudget, type Injection, promptItems, sessionStartItems } from "./inject.ts"
import { observeToolFailure, observeToolUse, summarizeInput, trim } from "./observe.ts"
import { planGuard, planGuardMessage } from "./plan-guard.ts"
import type { HookInput, HookName } from "./payload.ts"
import { LOCAL_SUMMARIZER, summarizeSession } from "./summarize.ts"

export interface HookContext {
  readonly memory: Memory
  /** The project root the session works in; memory is scoped to it. */
  readonly project: string
  readonly settings: Settings
  /** The user's home folder: never shown in what Claude is told (paths under it are written `~/...`). */
  readonly home?: string | undefined
}

/** Context for Claude (SessionStart, UserPromptSubmit), or a refused tool call (PreToolUse). */
export type HookOutput =
  | { readonly hookSpecificOutput: { readonly hookEventName: string; readonly additionalContext: string } }
  | {
    readonly hookSpecificOutput: {
      readonly hookEventName: "PreToolUse"
      readonly permissionDecision: "deny"
      readonly permissionDecisionReason: string
    }
  }

export interface Decision {
  readonly events: ReadonlyArray<RalphMemEvent>
  readonly output?: HookOutput
  /** Appending the same decision twice (a retried hook) writes it once. */
  readonly idempotencyKey?: string
}

type Handler<H extends HookName> = (input: HookInput<H>, context: HookContext) => Decision

const SOURCES: ReadonlyArray<SessionSource> = ["startup", "resume", "clear", "compact"]

/**
 * Records what was injected (its sources as event ids, so a forget finds it) and returns the hook output
 * that carries it.
 */
const inject = (
  db: Memory["db"],
  hook: HookName,
  sessionId: string,
  projectPath: string,
  reason: string,
  injection?: Injection
) =>
  injection === undefined
    ? { events: [], output: undefined }
    : {
      events: [{
        _tag: "ContextInjected",
        sessionId,
        projectPath,
        hookEvent: hook,
        reason: `${reason} (${injection.layer} layer)`,
        text: injection.text,
        tokens: injection.tokens,
        sources: sourceEventIds(db, injection.sources)
      } satisfies RalphMemEvent],
      output: { hookSpecificOutput: { hookEventName: hook, additionalContext: injection.text } }
    }

/**
 * What Claude reads names paths relative to the project, and never the home folder (the log keeps them
 * whole): the memory is made relative before it is rendered, so no line cut short keeps part of a path.
 */
const relative = <T>(memory: T, { project, home }: HookContext): T => relativeValues(memory, { project, home })

const withOutput = (events: ReadonlyArray<RalphMemEvent>, output: HookOutput | undefined): Decision =>
  output === undefined ? { events } : { events, output }

const sessionStart: Handler<"SessionStart"> = (input, context) => {
  const { memory, project, settings } = context
  const source = SOURCES.find((s) => s === input.source) ?? "startup"
  const started: RalphMemEvent = {
    _tag: "SessionStarted",
    sessionId: input.session_id,
    projectPath: project,
    source,
    ...(input.transcript_path === undefined ? {} : { transcriptPath: input.transcript_path }),
    ...(typeof input.model === "string" ? { model: input.model } : {})
  }
  const injection = fitToBudget(
    sessionStartItems(relative({
      restores: unannouncedRestores(memory.db),
      // A resumed session is told first where it stopped: its task, step, handoff note and errors.
      ...(source === "resume" ? { brief: resumeBrief(memory.db, project, { sessionId: input.session_id }) } : {}),
      beliefs: listBeliefs(memory.db, project),
      loops: openLoops(memory.db, project),
      notes: recentObservations(memory.db, { project, types: ["note"], limit: 10 }),
      summaries: recentSessionSummaries(memory.db, project, 3),
      errors: recentObservations(memory.db, { project, types: ["error"], limit: 5 }),
      successes: recentObservations(memory.db, { project, types: ["success"], limit: 5 })
    }, context)),
    injectionBudgetTokens(settings)
  )
  const reason = `recent context of the project at ${source}`
  const injected = inject(memory.db, "SessionStart", input.session_id, project, reason, injection)
  return withOutput([started, ...injected.events], injected.output)
}

const userPromptSubmit: Handler<"UserPromptSubmit"> = (input, context) => {
  const { memory, project, settings } = context
  const prompt = trim(input.prompt, settings.memory.maxPromptChars).content
  const submitted: RalphMemEvent = {
    _tag: "PromptSubmitted",
    sessionId: input.session_id,
    projectPath: project,
    prompt,
    ...(input.prompt_id === undefined ? {} : { promptId: input.prompt_id })
  }
  const loop = openLoops(memory.db, project).find((l) => l.sessionId === input.session_id)
  const { hits } = searchIndex(memory.db, {
    query: input.prompt,
    project,
    excludeSessionId: input.session_id,
    limit: 5,
    recency: { halfLifeDays: settings.memory.search.recencyHalfLifeDays, weight: settings.memory.search.recencyWeight }
  })
  const items = promptItems(relative(loop, context), relative(hits, context))
  const injection = fitToBudget(items, injectionBudgetTokens(settings))
  const reason = "memory relevant to the prompt"
  const injected = inject(memory.db, "UserPromptSubmit", input.session_id, project, reason, injection)
  return withOutput([submitted, ...injected.events], injected.output)
}

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
    output: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } },
    ...toolKey(input.session_id, input.tool_use_id, "blocked")
  }
}

const postToolUse: Handler<"PostToolUse"> = (input, { project, settings }) => ({
  events: [{
    _tag: "ObservationRecorded",
    sessionId: input.session_id,
    projectPath: project,
    ...observeToolUse(input, settings.memory.maxObservationChars)
  }],
  ...toolKey(input.session_id, input.tool_use_id)
})

const postToolUseFailure: Handler<"PostToolUseFailure"> = (input, { project, settings }) => ({
  events: [{
    _tag: "ObservationRecorded",
    sessionId: input.session_id,
    projectPath: project,
    ...observeToolFailure(input, settings.memory.maxObservationChars)
  }],
  ...toolKey(input.session_id, input.tool_use_id)
})

/** Records Claude's last reply. The Ralph loop continues from here (packages/loop). */
const stop: Handler<"Stop"> = (input, { project, settings }) => {
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

const preCompact: Handler<"PreCompact"> = (input, { project }) => ({
  events: [{
    _tag: "SessionCompacted",
    sessionId: input.session_id,
    projectPath: project,
    trigger: input.trigger === "manual" ? "manual" : "auto",
    ...(input.custom_instructions ? { customInstructions: input.custom_instructions } : {})
  }]
})

const sessionEnd: Handler<"SessionEnd"> = (input, { memory, project, home }) => {
  const result = summarizeSession(sessionRecord(memory.db, input.session_id), { project, home })
  const summarized: ReadonlyArray<RalphMemEvent> = result === undefined ? [] : [{
    _tag: "SessionSummarized",
    sessionId: input.session_id,
    projectPath: project,
    summary: result.summary,
    summarizer: LOCAL_SUMMARIZER,
    ...(result.memoryOnly ? { memoryOnly: true } : {})
  }]
  return {
    events: [
      ...summarized,
      { _tag: "SessionEnded", sessionId: input.session_id, projectPath: project, reason: input.reason ?? "unknown" }
    ]
  }
}

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
