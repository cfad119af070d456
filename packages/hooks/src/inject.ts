/**
 * What ralph-mem tells Claude: memory rendered as short sections, within a token budget. Over budget,
 * every item falls back to its compact line; still over, the least important items are left out.
 * Pure: the same memory and budget give the same text.
 */
import {
  type Activity,
  type Belief,
  estimateTokens,
  type FailureRecord,
  type HitBody,
  type ObservationHit,
  oneLine,
  type OpenLoop,
  type RestoreNotice,
  type ResumeBrief,
  type SessionSummary,
  type TaskDetail
} from "@ralph-mem/projections"
import type { IndexHit } from "@ralph-mem/projections/search"
import type { Settings } from "@ralph-mem/settings"
import { activityIds, day, fixParts, type Lesson, type OpenError, ref } from "./lessons.ts"
import { changedLines } from "./observe.ts"

/** How many tokens injected memory may use: its share of the context window. */
export const injectionBudgetTokens = (settings: Settings): number =>
  Math.floor(settings.memory.contextWindow * settings.memory.injectedMemory)

export interface InjectionItem {
  readonly section: string
  readonly full: string
  readonly compact: string
  /** The events the item came from, so the injection record says exactly what was used. */
  readonly sources?: ReadonlyArray<string>
  /** The log position that opens the item (`ralph-mem show @<ref>`), shown at the end of its first line. */
  readonly ref?: number
}

export interface Injection {
  readonly text: string
  readonly tokens: number
  readonly sources: ReadonlyArray<string>
  readonly layer: "full" | "compact"
}

const HEADER = "# ralph-mem: what this project's memory holds"

/** How Claude opens what a line lists: the MCP server's get tool, or the CLI on its PATH. */
export const OPEN_LINE =
  "Open an item by its @id with the mcp__plugin_ralph-mem_memory__get tool, or `ralph-mem show <id>` in Bash."

/** The item's text in a layer, its id after the first line. */
const render = (item: InjectionItem, layer: "full" | "compact") => {
  const text = layer === "full" ? item.full : item.compact
  // An item may place its id itself (a lesson names its failure's and its passing run's).
  if (item.ref === undefined || text.includes(ref(item.ref))) return text
  const end = text.indexOf("\n")
  return end === -1 ? `${text} ${ref(item.ref)}` : `${text.slice(0, end)} ${ref(item.ref)}${text.slice(end)}`
}

/** Items grouped under their sections' headings, in the order the sections first appear. */
export const renderSections = (items: ReadonlyArray<InjectionItem>, layer: "full" | "compact"): string => {
  const sections = new Map<string, Array<string>>()
  for (const item of items) sections.set(item.section, [...(sections.get(item.section) ?? []), render(item, layer)])
  return [...sections].map(([title, lines]) => `## ${title}\n${lines.join("\n")}`).join("\n\n")
}

/** Items are in order of importance; the budget is in estimated tokens. */
export const fitToBudget = (items: ReadonlyArray<InjectionItem>, budget: number): Injection | undefined => {
  if (items.length === 0) return undefined
  for (const layer of ["full", "compact"] as const) {
    const opening = items.some((i) => i.ref !== undefined) ? `\n${OPEN_LINE}` : ""
    const text = `${HEADER}${opening}\n\n${renderSections(items, layer)}`
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
  return `- ${label === undefined ? "" : `${label} `}${day(hit.createdAt)} ${what ? `\`${oneLine(what, 80)}\`: ` : ""}${
    oneLine(body, max)
  }`
}

const observationItem = (section: string, hit: ObservationHit, label?: string): InjectionItem => ({
  section,
  full: observationLine(hit, 400, label),
  compact: observationLine(hit, 100, label),
  sources: [hit.eventId],
  ref: hit.id
})

const loopItem = (loop: OpenLoop): InjectionItem => {
  const results = JSON.parse(loop.criteriaResults) as Array<{ kind: string; passed: boolean; fingerprint?: string }>
  const failing = results.filter((r) => !r.passed).map((r) =>
    `${r.kind}${r.fingerprint ? ` (${oneLine(r.fingerprint, 80)})` : ""}`
  )
  const progress = loop.mode === "prd" ? `; ${loop.storiesPassed} of ${loop.storiesTotal} stories pass` : ""
  const state = `iteration ${loop.iterations} of ${loop.maxIterations}${progress}${
    failing.length > 0 ? `; failing: ${failing.join(", ")}` : ""
  }`
  return {
    section: loop.mode === "plan" ? "Open Ralph plan loop (a plan, not code: edits are blocked)" : "Open Ralph loop",
    full: `- goal: ${oneLine(loop.goal, 300)}\n- ${state}`,
    compact: `- ${oneLine(loop.goal, 80)} (${state})`,
    // Told again once its state changes.
    sources: [`loop:${loop.loopId}:${loop.iterations}`]
  }
}

const restoreItem = (notice: RestoreNotice): InjectionItem => {
  const what = notice.backup === null
    ? "no backup existed, so memory starts afresh"
    : `the newest good backup was restored (${notice.backup})`
  const salvage = typeof notice.notSalvaged === "string"
    ? ` Nothing was read back from the damaged file: ${oneLine(notice.notSalvaged, 300)}.`
    : notice.salvaged === null || notice.salvaged === undefined
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
    full: [
      `${title}; ${where}${step === null ? "" : oneLine(step.text, 300)}`,
      ...task.steps.map((s) => `  ${STEP_MARK[s.status]} ${s.step}. ${oneLine(s.text, 200)}`)
    ].join("\n"),
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

/**
 * Where the last session stopped: the task and its step, the handoff note, findings, that session's errors
 * (those fixed since, given in `resolved`, are left out: they are lessons now) and summary.
 */
export const resumeItems = (
  { task, lastSession }: ResumeBrief,
  resolved: ReadonlySet<string> = new Set()
): Array<InjectionItem> => [
  ...(task === null
    ? []
    : [
      taskItem(task),
      ...(task.handoff === null ? [] : [handoffItem(task.handoff)]),
      ...task.findings.map(findingItem)
    ]),
  ...(lastSession === null ? [] : [
    ...lastSession.errors.filter((e) => !resolved.has(e.eventId)).map((e) => observationItem(BRIEF, e, "error")),
    ...(lastSession.summary === null
      ? []
      : [lastSummaryItem(lastSession.sessionId, lastSession.startedAt, lastSession.summary)])
  ])
]

/** A lesson with what came between its failure and its passing run. */
export type LessonWithActivity = Lesson & { readonly activity: Activity }

export interface ProjectMemory {
  /** The project's root: paths are shown relative to it. */
  readonly project: string
  readonly restores?: ReadonlyArray<RestoreNotice>
  /** Given when the session is resumed: where it stopped comes first. */
  readonly brief?: ResumeBrief
  readonly beliefs: ReadonlyArray<Belief>
  readonly notes: ReadonlyArray<ObservationHit>
  readonly loops: ReadonlyArray<OpenLoop>
  /** The current task, when the brief does not already say it. */
  readonly task?: TaskDetail
  readonly openErrors: ReadonlyArray<OpenError>
  readonly lessons: ReadonlyArray<LessonWithActivity>
  /** Sessions that did work (memory-only sessions are not recent sessions), newest first. */
  readonly summaries: ReadonlyArray<SessionSummary>
  readonly successes: ReadonlyArray<ObservationHit>
}

/** How many of a failure's other failures an item names, when they failed otherwise than the latest. */
const EARLIER_FAILURES = 2

/**
 * The other failures that failed otherwise than the latest (`; earlier @8: error TS2532: ...`), each on a few
 * words.
 */
const earlierFailures = (latest: FailureRecord, earlier: ReadonlyArray<FailureRecord>, headline: string) => {
  const seen = new Set([headline])
  const told = earlier.flatMap((f) => {
    if (f.headline === "" || seen.has(f.headline)) return []
    seen.add(f.headline)
    const command = f.command === latest.command ? "" : ` \`${oneLine(f.command, 60)}\``
    return [`${ref(f.position)}${command}: ${oneLine(f.headline, 120)}`]
  })
  return told.length === 0 ? "" : `; earlier ${told.slice(0, EARLIER_FAILURES).join("; ")}`
}

const openErrorItem = ({ latest, earlier, times, sources }: OpenError): InjectionItem => {
  const { headline } = latest
  const line = (max: number) =>
    `- ${day(latest.failedAt)} \`${oneLine(latest.command, 80)}\` failed${times > 1 ? ` (${times} times)` : ""}: ` +
    oneLine(headline, max)
  return {
    section: "Open errors",
    full: `${line(300)}${earlierFailures(latest, earlier, headline)}`,
    compact: line(100),
    sources,
    ref: latest.position
  }
}

const lessonItem = (lesson: LessonWithActivity, project: string): InjectionItem => {
  const { failure, resolution } = lesson
  const { headline } = failure
  const failed = `- \`${oneLine(failure.command, 80)}\` failed ${ref(failure.position)}`
  const fix = fixParts(lesson.activity, project, 3)
  const firstFix = fixParts(lesson.activity, project, 1)[0]
  return {
    section: "Lessons: errors fixed since",
    full: `${failed} (${day(failure.failedAt)}) with ${oneLine(headline, 200)}` +
      `${earlierFailures(failure, lesson.earlier, headline)}; ` +
      `fixed: ${fix.length === 0 ? "nothing recorded in between" : fix.join("; ")}; ` +
      `passed ${day(resolution.at)} ${ref(resolution.position)}`,
    compact: `${failed} with ${oneLine(headline, 80)}; passed ${ref(resolution.position)}` +
      (firstFix === undefined ? "" : ` after: ${firstFix}`),
    sources: [...lesson.sources, ...activityIds(lesson.activity)],
    ref: failure.position
  }
}

const summaryItem = (s: SessionSummary): InjectionItem => ({
  section: "Recent sessions",
  full: `- ${day(s.startedAt)}: ${oneLine(s.summary, 600)}`,
  compact: `- ${day(s.startedAt)}: ${oneLine(s.summary, 120)}`,
  sources: [s.sessionId],
  ref: s.id
})

/**
 * SessionStart, most useful first: beliefs and notes, the open loop and task, open errors, lessons (errors
 * fixed since), sessions that did work, then successes. What the brief already says is not repeated.
 */
export const sessionStartItems = (memory: ProjectMemory): Array<InjectionItem> => {
  const briefed = memory.brief?.lastSession
  const resolved = new Set(memory.lessons.flatMap((l) => l.sources))
  const briefedErrors = new Set(briefed?.errors.map((e) => e.eventId))
  return [
    ...(memory.restores ?? []).map(restoreItem),
    ...(memory.brief === undefined ? [] : resumeItems(memory.brief, resolved)),
    ...memory.beliefs.map(beliefItem),
    ...memory.notes.map((n) => observationItem("Notes to remember", n)),
    ...memory.loops.map(loopItem),
    ...(memory.task === undefined ? [] : [{ ...taskItem(memory.task), section: "Current task" }]),
    ...memory.openErrors.filter((e) => !e.sources.some((id) => briefedErrors.has(id))).map(openErrorItem),
    ...memory.lessons.map((l) => lessonItem(l, memory.project)),
    ...memory.summaries.filter((s) => s.sessionId !== briefed?.sessionId).map(summaryItem),
    ...memory.successes.filter((s) => !resolved.has(s.eventId)).map((s) => observationItem("Recent successes", s))
  ]
}

/** A search hit with what it holds, read for the injection: its title is only the start of it. */
export type ShownHit = IndexHit & { readonly body?: HitBody | undefined }

/**
 * How much of a hit the prompt's injection shows: a summary's outcome, which follows what was asked, or the
 * code an edit wrote, which a title cut at its start loses.
 */
const HIT_CHARS = 240

/** How much of a hit's text is read: far enough that paths made relative still leave a line's worth. */
export const HIT_READ_CHARS = HIT_CHARS * 4

/**
 * Hits with what they hold (`bodies` by hit id, each text read to `read` characters). A text cut where it was
 * read loses its last word: a path cut there would not be made relative, and could show the home folder.
 */
export const showHits = (
  hits: ReadonlyArray<IndexHit>,
  bodies: ReadonlyMap<string, HitBody>,
  read: number
): Array<ShownHit> =>
  hits.map((hit) => {
    const body = bodies.get(hit.id)
    if (body === undefined) return hit
    return { ...hit, body: body.text.length < read ? body : { ...body, text: body.text.replace(/\S*$/, "") } }
  })

/** The files a search found, from its recorded response; undefined when it is not one (or was cut). */
const foundFiles = (text: string): string | undefined => {
  try {
    const files = (JSON.parse(text) as { filenames?: unknown }).filenames
    return Array.isArray(files) ? [...new Set(files.map(String))].join(", ") : undefined
  } catch {
    return undefined
  }
}

/**
 * What an observation's text adds to its tool and input: an edit's changed lines, the files a search found;
 * nothing for a read or a write (their input names the file, their text says it again).
 */
const shownContent = (toolName: string | null, text: string) => {
  if (toolName === "Read" || toolName === "Write") return ""
  if (toolName === "Edit" || toolName === "MultiEdit") return changedLines(text)?.join(" / ") ?? text
  if (toolName === "Grep" || toolName === "Glob") return foundFiles(text) ?? text
  return text
}

const hitText = ({ title, body }: ShownHit) => {
  if (body === undefined) return title
  if (body.toolName === null && body.inputSummary === null) return body.text
  const head = [body.toolName, body.inputSummary].filter(Boolean).join(" ")
  const content = shownContent(body.toolName, body.text)
  return head === "" ? content : content.trim() === "" ? head : `${head}: ${content}`
}

const hitItem = (hit: ShownHit): InjectionItem => ({
  section: "Related memory",
  full: `- ${day(hit.createdAt)} [${hit.type}] ${oneLine(hitText(hit), HIT_CHARS)}`,
  compact: `- [${hit.type}] ${oneLine(hit.title, 100)}`,
  sources: [hit.id]
})

/** UserPromptSubmit: the active loop, then what memory found relevant to the prompt, best first. */
export const promptItems = (loop: OpenLoop | undefined, hits: ReadonlyArray<ShownHit>): Array<InjectionItem> => [
  ...(loop === undefined ? [] : [loopItem(loop)]),
  ...hits.map(hitItem)
]

/** What a session was told: the sources of its injections. */
export interface Told {
  readonly has: (source: string) => boolean
}

/** What the session was already told is not told again: an item goes when every one of its sources was. */
export const untold = (items: ReadonlyArray<InjectionItem>, told: Told): Array<InjectionItem> =>
  items.filter((item) => (item.sources ?? []).length === 0 || item.sources!.some((s) => !told.has(s)))

/** Items without an id get the position of the event they came from, when it has one. */
export const withRefs = (
  items: ReadonlyArray<InjectionItem>,
  positions: ReadonlyMap<string, number>
): Array<InjectionItem> =>
  items.map((item) => {
    const position = item.ref ?? (item.sources?.[0] === undefined ? undefined : positions.get(item.sources[0]))
    return position === undefined ? item : { ...item, ref: position }
  })
