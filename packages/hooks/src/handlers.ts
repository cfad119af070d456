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
  resumeBrief,
  searchIndex,
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

/** What a hook decided: the events to record and what to print back to Claude Code. */
export interface HookDecision {
  readonly events: ReadonlyArray<RalphMemEvent>
  readonly output?: HookOutput
  /** Appending the same hook decision twice (a retried hook) writes it once. */
  readonly idempotencyKey?: string
}

type Handler<H extends HookName> = (input: HookInput<H>, context: HookContext) => HookDecision

const SOURCES: ReadonlyArray<SessionSource> = ["startup", "resume", "clear", "compact"]

/**
 * Records what was injected (its sources as event ids, so a forget finds it) and returns the hook output
 * that carries it.
 */
const inject = (db: Memory["db"], hook: HookName, sessionId: string, reason: string, injection?: Injection) =>
  injection === undefined
    ? { events: [], output: undefined }
    : {
      events: [{
        _tag: "ContextInjected",
        sessionId,
        hookEvent: hook,
        reason: `${reason} (${injection.layer} layer)`,
        text: injection.text,
        tokens: injection.tokens,
        sources: sourceEventIds(db, injection.sources)
      } satisfies RalphMemEvent],
      output: { hookSpecificOutput: { hookEventName: hook, additionalContext: injection.text } }
    }

const withOutput = (events: ReadonlyArray<RalphMemEvent>, output: HookOutput | undefined): HookDecision =>
  output === undefined ? { events } : { events, output }

const sessionStart: Handler<"SessionStart"> = (input, { memory, project, settings }) => {
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
    sessionStartItems({
      restores: unannouncedRestores(memory.db),
      // A resumed session is told first where it stopped: its task, step, handoff note and errors.
      ...(source === "resume" ? { brief: resumeBrief(memory.db, project, { sessionId: input.session_id }) } : {}),
      beliefs: listBeliefs(memory.db, project),
      loops: openLoops(memory.db, project),
      notes: recentObservations(memory.db, { project, types: ["note"], limit: 10 }),
      summaries: recentSessionSummaries(memory.db, project, 3),
      errors: recentObservations(memory.db, { project, types: ["error"], limit: 5 }),
      successes: recentObservations(memory.db, { project, types: ["success"], limit: 5 })
    }),
    injectionBudgetTokens(settings)
  )
  const reason = `recent context of the project at ${source}`
  const injected = inject(memory.db, "SessionStart", input.session_id, reason, injection)
  return withOutput([started, ...injected.events], injected.output)
}

const userPromptSubmit: Handler<"UserPromptSubmit"> = (input, { memory, project, settings }) => {
  const prompt = trim(input.prompt, settings.memory.maxPromptChars).content
  const submitted: RalphMemEvent = {
    _tag: "PromptSubmitted",
    sessionId: input.session_id,
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
  const injection = fitToBudget(promptItems(loop, hits), injectionBudgetTokens(settings))
  const injected = inject(memory.db, "UserPromptSubmit", input.session_id, "memory relevant to the prompt", injection)
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

const postToolUse: Handler<"PostToolUse"> = (input, { settings }) => ({
  events: [{ _tag: "ObservationRecorded", sessionId: input.session_id, ...observeToolUse(input, settings.memory.maxObservationChars) }],
  ...toolKey(input.session_id, input.tool_use_id)
})

const postToolUseFailure: Handler<"PostToolUseFailure"> = (input, { settings }) => ({
  events: [{ _tag: "ObservationRecorded", sessionId: input.session_id, ...observeToolFailure(input, settings.memory.maxObservationChars) }],
  ...toolKey(input.session_id, input.tool_use_id)
})

/** Records Claude's last reply. The Ralph loop continues from here (packages/loop). */
const stop: Handler<"Stop"> = (input, { settings }) => {
  const message = input.last_assistant_message ?? ""
  return {
    events: message.trim() === ""
      ? []
      : [{ _tag: "AssistantReplied", sessionId: input.session_id, message: trim(message, settings.memory.maxPromptChars).content }]
  }
}

/** A turn cut off by an API error: nothing to remember of the session; the loop takes note (packages/loop). */
const stopFailure: Handler<"StopFailure"> = () => ({ events: [] })

const preCompact: Handler<"PreCompact"> = (input) => ({
  events: [{
    _tag: "SessionCompacted",
    sessionId: input.session_id,
    trigger: input.trigger === "manual" ? "manual" : "auto",
    ...(input.custom_instructions ? { customInstructions: input.custom_instructions } : {})
  }]
})

const sessionEnd: Handler<"SessionEnd"> = (input, { memory }) => {
  const goal = memory.db
    .prepare(
      `SELECT json_extract(payload, '$.prompt') FROM events
       WHERE stream_id = ? AND type = 'PromptSubmitted' AND redacted_by IS NULL ORDER BY position LIMIT 1`
    )
    .pluck()
    .get(`session:${input.session_id}`) as string | undefined
  const observations = memory.db
    .prepare(
      `SELECT id, event_id AS eventId, session_id AS sessionId, type, tool_name AS toolName, input_summary AS inputSummary,
              content, error_message AS errorMessage, created_at AS createdAt, files
       FROM observations WHERE session_id = ? ORDER BY id`
    )
    .all(input.session_id) as Parameters<typeof summarizeSession>[0]["observations"]
  const summary = summarizeSession({ goal, observations })
  return {
    events: [
      ...(summary === undefined ? [] : [{ _tag: "SessionSummarized", sessionId: input.session_id, summary, summarizer: LOCAL_SUMMARIZER } as const]),
      { _tag: "SessionEnded", sessionId: input.session_id, reason: input.reason ?? "unknown" }
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
