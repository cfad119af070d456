/**
 * What ralph-mem tells Claude: memory rendered as short sections, within a token budget. Over budget,
 * every item falls back to its compact line; still over, the least important items are left out.
 * Pure: the same memory and budget give the same text.
 */
import { type Belief, estimateTokens, type IndexHit, type ObservationHit, oneLine, type OpenLoop, type RestoreNotice, type ResumeBrief, type SessionSummary, type TaskDetail } from "@ralph-mem/projections"

export interface InjectionItem {
  readonly section: string
  readonly full: string
  readonly compact: string
  /** The events the item came from, so the injection record says exactly what was used. */
  readonly sources?: ReadonlyArray<string>
}

export interface Injection {
  readonly text: string
  readonly tokens: number
  readonly sources: ReadonlyArray<string>
  readonly layer: "full" | "compact"
}

const HEADER = "# ralph-mem: what this project's memory holds"

const day = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ")


/** Items grouped under their sections' headings, in the order the sections first appear. */
export const renderSections = (items: ReadonlyArray<InjectionItem>, layer: "full" | "compact"): string => {
  const sections = new Map<string, Array<string>>()
  for (const item of items) sections.set(item.section, [...(sections.get(item.section) ?? []), layer === "full" ? item.full : item.compact])
  return [...sections].map(([title, lines]) => `## ${title}\n${lines.join("\n")}`).join("\n\n")
}

/** Items are in order of importance; the budget is in estimated tokens. */
export const fitToBudget = (items: ReadonlyArray<InjectionItem>, budget: number): Injection | undefined => {
  if (items.length === 0) return undefined
  for (const layer of ["full", "compact"] as const) {
    const text = `${HEADER}\n\n${renderSections(items, layer)}`
    const tokens = estimateTokens(text)
    if (tokens <= budget) return { text, tokens, layer, sources: [...new Set(items.flatMap((i) => i.sources ?? []))] }
  }
  return fitToBudget(items.slice(0, -1), budget)
}

/** `label` goes before the line's time, for observations in a section of mixed items (`error`). */
const observationLine = (hit: ObservationHit, max: number, label?: string) => {
  const what = [hit.toolName, hit.inputSummary].filter(Boolean).join(" ")
  const content = oneLine(hit.content, Number.MAX_SAFE_INTEGER)
  const body = hit.errorMessage && !content.includes(hit.errorMessage) ? `${hit.errorMessage}: ${content}` : content
  return `- ${label === undefined ? "" : `${label} `}${day(hit.createdAt)} ${what ? `\`${oneLine(what, 80)}\`: ` : ""}${oneLine(body, max)}`
}

const observationItem = (section: string, hit: ObservationHit, label?: string): InjectionItem => ({
  section,
  full: observationLine(hit, 400, label),
  compact: observationLine(hit, 100, label),
  sources: [hit.eventId]
})

const loopItem = (loop: OpenLoop): InjectionItem => {
  const results = JSON.parse(loop.criteriaResults) as Array<{ kind: string; passed: boolean; fingerprint?: string }>
  const failing = results.filter((r) => !r.passed).map((r) => `${r.kind}${r.fingerprint ? ` (${oneLine(r.fingerprint, 80)})` : ""}`)
  const progress = loop.mode === "prd" ? `; ${loop.storiesPassed} of ${loop.storiesTotal} stories pass` : ""
  const state = `iteration ${loop.iterations} of ${loop.maxIterations}${progress}${failing.length > 0 ? `; failing: ${failing.join(", ")}` : ""}`
  return {
    section: loop.mode === "plan" ? "Open Ralph plan loop (a plan, not code: edits are blocked)" : "Open Ralph loop",
    full: `- goal: ${oneLine(loop.goal, 300)}\n- ${state}`,
    compact: `- ${oneLine(loop.goal, 80)} (${state})`
  }
}

const restoreItem = (notice: RestoreNotice): InjectionItem => {
  const what = notice.backup === null
    ? "no backup existed, so memory starts afresh"
    : `the newest good backup was restored (${notice.backup})`
  const salvage = notice.salvaged === null || notice.salvaged === undefined
    ? ""
    : ` ${notice.salvaged} event(s) written after it were read back from the damaged file` +
      `${notice.unreadable ? `; ${notice.unreadable} could not be read and are lost` : ""}.`
  const line = `- ${day(notice.at)}: the memory database was damaged (${oneLine(notice.reason, 120)}); ` +
    `${what}.${salvage} ` +
    `The damaged file is kept at ${notice.damagedCopy}. Tell the user.`
  return { section: "ralph-mem notice", full: line, compact: line }
}

const beliefItem = (belief: Belief): InjectionItem => ({
  section: "Project beliefs",
  full: `- ${belief.key}: ${oneLine(belief.value, 500)}`,
  compact: `- ${belief.key}: ${oneLine(belief.value, 120)}`,
  sources: [belief.eventId]
})

const BRIEF = "Where the last session stopped"

const STEP_MARK = { done: "[x]", in_progress: "[>]", pending: "[ ]" } as const

const taskItem = (task: TaskDetail): InjectionItem => {
  const step = task.currentStep
  const where = task.steps.length === 0
    ? "no plan yet"
    : step === null
    ? `all ${task.steps.length} steps done`
    : `step ${step.step} of ${task.steps.length}, ${step.status.replace("_", " ")}: `
  const title = `- task \`${task.taskId}\`: ${oneLine(task.title, 200)}`
  return {
    section: BRIEF,
    full: [`${title}; ${where}${step === null ? "" : oneLine(step.text, 300)}`, ...task.steps.map((s) => `  ${STEP_MARK[s.status]} ${s.step}. ${oneLine(s.text, 200)}`)].join("\n"),
    compact: `${title}; ${where}${step === null ? "" : oneLine(step.text, 100)}`,
    sources: [task.eventId, ...new Set(task.steps.map((s) => s.eventId))]
  }
}

const handoffItem = (handoff: NonNullable<TaskDetail["handoff"]>): InjectionItem => ({
  section: BRIEF,
  full: `- handoff note (${day(handoff.at)}): ${oneLine(handoff.note, 1000)}`,
  compact: `- handoff note: ${oneLine(handoff.note, 200)}`,
  sources: [handoff.eventId]
})

const findingItem = (finding: TaskDetail["findings"][number]): InjectionItem => ({
  section: BRIEF,
  full: `- finding: ${oneLine(finding.finding, 400)}`,
  compact: `- finding: ${oneLine(finding.finding, 100)}`,
  sources: [finding.id]
})

/** A summary's source is its session: the hook records the summary's event in its place (`sourceEventIds`). */
const lastSummaryItem = (sessionId: string, startedAt: number, summary: string): InjectionItem => ({
  section: BRIEF,
  full: `- last session (${day(startedAt)}): ${oneLine(summary, 600)}`,
  compact: `- last session: ${oneLine(summary, 120)}`,
  sources: [sessionId]
})

/** Where the last session stopped: the task and its step, the handoff note, findings, that session's errors and summary. */
export const resumeItems = ({ task, lastSession }: ResumeBrief): Array<InjectionItem> => [
  ...(task === null ? [] : [taskItem(task), ...(task.handoff === null ? [] : [handoffItem(task.handoff)]), ...task.findings.map(findingItem)]),
  ...(lastSession === null ? [] : [
    ...lastSession.errors.map((e) => observationItem(BRIEF, e, "error")),
    ...(lastSession.summary === null
      ? []
      : [lastSummaryItem(lastSession.sessionId, lastSession.startedAt, lastSession.summary)])
  ])
]

export interface ProjectMemory {
  readonly restores?: ReadonlyArray<RestoreNotice>
  /** Given when the session is resumed: where it stopped comes first. */
  readonly brief?: ResumeBrief
  readonly beliefs: ReadonlyArray<Belief>
  readonly summaries: ReadonlyArray<SessionSummary>
  readonly loops: ReadonlyArray<OpenLoop>
  readonly notes: ReadonlyArray<ObservationHit>
  readonly errors: ReadonlyArray<ObservationHit>
  readonly successes: ReadonlyArray<ObservationHit>
}

/** SessionStart: the project's recent past, most useful first; what the brief already says is not repeated. */
export const sessionStartItems = (memory: ProjectMemory): Array<InjectionItem> => {
  const briefed = memory.brief?.lastSession
  const briefedErrors = new Set(briefed?.errors.map((e) => e.eventId))
  return [
    ...(memory.restores ?? []).map(restoreItem),
    ...(memory.brief === undefined ? [] : resumeItems(memory.brief)),
    ...memory.beliefs.map(beliefItem),
    ...memory.loops.map(loopItem),
    ...memory.notes.map((n) => observationItem("Notes to remember", n)),
    ...memory.summaries.filter((s) => s.sessionId !== briefed?.sessionId).map((s) => ({
      section: "Recent sessions",
      full: `- ${day(s.startedAt)}: ${oneLine(s.summary, 600)}`,
      compact: `- ${day(s.startedAt)}: ${oneLine(s.summary, 120)}`,
      sources: [s.sessionId]
    })),
    ...memory.errors.filter((e) => !briefedErrors.has(e.eventId)).map((e) => observationItem("Recent errors", e)),
    ...memory.successes.map((s) => observationItem("Recent successes", s))
  ]
}

const hitItem = (hit: IndexHit): InjectionItem => ({
  section: "Related memory",
  full: `- ${day(hit.createdAt)} [${hit.type}] ${hit.title}`,
  compact: `- [${hit.type}] ${oneLine(hit.title, 100)}`,
  sources: [hit.id]
})

/** UserPromptSubmit: the active loop, then what memory found relevant to the prompt, best first. */
export const promptItems = (loop: OpenLoop | undefined, hits: ReadonlyArray<IndexHit>): Array<InjectionItem> => [
  ...(loop === undefined ? [] : [loopItem(loop)]),
  ...hits.map(hitItem)
]
