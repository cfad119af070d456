/**
 * What ralph-mem tells Claude: memory rendered as short sections, within a token budget. Over budget,
 * every item falls back to its compact line; still over, the least important items are left out.
 * Pure: the same memory and budget give the same text.
 */
import { estimateTokens, type IndexHit, type ObservationHit, type OpenLoop, type RestoreNotice, type SessionSummary } from "@ralph-mem/projections"

export interface InjectionItem {
  readonly section: string
  readonly full: string
  readonly compact: string
  /** The event the item came from, so the injection record says exactly what was used. */
  readonly source?: string
}

export interface Injection {
  readonly text: string
  readonly tokens: number
  readonly sources: ReadonlyArray<string>
  readonly layer: "full" | "compact"
}

const HEADER = "# ralph-mem: what this project's memory holds"

const day = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ")

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

const render = (items: ReadonlyArray<InjectionItem>, layer: "full" | "compact"): string => {
  const sections = new Map<string, Array<string>>()
  for (const item of items) sections.set(item.section, [...(sections.get(item.section) ?? []), layer === "full" ? item.full : item.compact])
  return [HEADER, ...[...sections].map(([title, lines]) => `## ${title}\n${lines.join("\n")}`)].join("\n\n")
}

/** Items are in order of importance; the budget is in estimated tokens. */
export const fitToBudget = (items: ReadonlyArray<InjectionItem>, budget: number): Injection | undefined => {
  if (items.length === 0) return undefined
  for (const layer of ["full", "compact"] as const) {
    const text = render(items, layer)
    const tokens = estimateTokens(text)
    if (tokens <= budget) return { text, tokens, layer, sources: items.flatMap((i) => (i.source ? [i.source] : [])) }
  }
  return fitToBudget(items.slice(0, -1), budget)
}

const observationLine = (hit: ObservationHit, max: number) => {
  const what = [hit.toolName, hit.inputSummary].filter(Boolean).join(" ")
  const content = oneLine(hit.content, Number.MAX_SAFE_INTEGER)
  const body = hit.errorMessage && !content.includes(hit.errorMessage) ? `${hit.errorMessage}: ${content}` : content
  return `- ${day(hit.createdAt)} ${what ? `\`${oneLine(what, 80)}\`: ` : ""}${oneLine(body, max)}`
}

const observationItem = (section: string, hit: ObservationHit): InjectionItem => ({
  section,
  full: observationLine(hit, 400),
  compact: observationLine(hit, 100),
  source: hit.eventId
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
  const line = `- ${day(notice.at)}: the memory database was damaged (${oneLine(notice.reason, 120)}); ${what}. The damaged file is kept at ${notice.damagedCopy}. Tell the user.`
  return { section: "ralph-mem notice", full: line, compact: line }
}

export interface ProjectMemory {
  readonly restores?: ReadonlyArray<RestoreNotice>
  readonly summaries: ReadonlyArray<SessionSummary>
  readonly loops: ReadonlyArray<OpenLoop>
  readonly notes: ReadonlyArray<ObservationHit>
  readonly errors: ReadonlyArray<ObservationHit>
  readonly successes: ReadonlyArray<ObservationHit>
}

/** SessionStart: the project's recent past, most useful first. */
export const sessionStartItems = (memory: ProjectMemory): Array<InjectionItem> => [
  ...(memory.restores ?? []).map(restoreItem),
  ...memory.loops.map(loopItem),
  ...memory.notes.map((n) => observationItem("Notes to remember", n)),
  ...memory.summaries.map((s) => ({
    section: "Recent sessions",
    full: `- ${day(s.startedAt)}: ${oneLine(s.summary, 600)}`,
    compact: `- ${day(s.startedAt)}: ${oneLine(s.summary, 120)}`
  })),
  ...memory.errors.map((e) => observationItem("Recent errors", e)),
  ...memory.successes.map((s) => observationItem("Recent successes", s))
]

const hitItem = (hit: IndexHit): InjectionItem => ({
  section: "Related memory",
  full: `- ${day(hit.createdAt)} [${hit.type}] ${hit.title}`,
  compact: `- [${hit.type}] ${oneLine(hit.title, 100)}`,
  source: hit.id
})

/** UserPromptSubmit: the active loop, then what memory found relevant to the prompt, best first. */
export const promptItems = (loop: OpenLoop | undefined, hits: ReadonlyArray<IndexHit>): Array<InjectionItem> => [
  ...(loop === undefined ? [] : [loopItem(loop)]),
  ...hits.map(hitItem)
]
