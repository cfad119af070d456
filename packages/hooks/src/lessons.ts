/**
 * Errors that know they were fixed: a project's failures split into open errors and lessons (a failure, the
 * passing run that resolved it, and what came between), and the recall of a lesson when the same failure
 * comes back. Pure: the handlers read the read models and pass them in.
 */
import {
  type Activity,
  type ActivityItem,
  commandFamily,
  estimateTokens,
  failureFacts,
  type FailureRecord,
  normalizeCommand,
  oneLine,
  type Resolution,
  sameTerms
} from "@ralph-mem/projections"
import { changedLines } from "./observe.ts"

/** How an injected line names what it came from: the event's position in the log (`ralph-mem show @12`). */
export const ref = (position: number) => `@${position}`

export const day = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ")

/** A path as the project knows it: relative to its root when inside it. */
export const inProject = (path: string, project: string) => {
  const root = project.endsWith("/") ? project : `${project}/`
  return path.startsWith(root) ? path.slice(root.length) : path
}

/** The end of a long path, where its file's name is. */
const tail = (path: string, max: number) => (path.length > max ? `…${path.slice(path.length - max + 1)}` : path)

export interface OpenError {
  /** The latest failure of the command. */
  readonly latest: FailureRecord
  /** Its other failures, newest first: they may have failed otherwise (another error, another test). */
  readonly earlier: ReadonlyArray<FailureRecord>
  readonly times: number
  readonly sources: ReadonlyArray<string>
}

export interface Lesson {
  /** The latest failure the passing run resolved. */
  readonly failure: FailureRecord
  /** The other failures it resolved, newest first: they may have failed otherwise (another error, another test). */
  readonly earlier: ReadonlyArray<FailureRecord>
  readonly resolution: Resolution
  readonly sources: ReadonlyArray<string>
}

const commandOf = (failure: FailureRecord) => `${failure.family}\u0000${failure.command}`

/**
 * Failures (newest first) as open errors, one per command, and lessons, one per passing run that resolved
 * any: the newest first in both.
 */
export const splitFailures = (
  failures: ReadonlyArray<FailureRecord>
): { readonly open: Array<OpenError>; readonly lessons: Array<Lesson> } => {
  const open = new Map<string, { latest: FailureRecord; earlier: Array<FailureRecord>; sources: Array<string> }>()
  const lessons = new Map<number, Lesson & { earlier: Array<FailureRecord>; sources: Array<string> }>()
  for (const failure of failures) {
    const { resolution } = failure
    if (resolution === null) {
      const key = commandOf(failure)
      const group = open.get(key) ?? { latest: failure, earlier: [], sources: [] }
      if (group.latest !== failure) group.earlier.push(failure)
      group.sources.push(failure.eventId)
      open.set(key, group)
    } else {
      const group = lessons.get(resolution.position)
      if (group === undefined) {
        lessons.set(resolution.position, {
          failure,
          earlier: [],
          resolution,
          sources: [resolution.eventId, failure.eventId]
        })
      } else {
        group.earlier.push(failure)
        group.sources.push(failure.eventId)
      }
    }
  }
  return {
    open: [...open.values()].map((g) => ({ ...g, times: g.sources.length })),
    lessons: [...lessons.values()].sort((a, b) => b.resolution.position - a.resolution.position)
  }
}

/** The events of what came between, for the sources of an injection that tells it. */
export const activityIds = (activity: Activity): Array<string> =>
  [activity.edits, activity.decisions, activity.notes, activity.commands].flatMap((items) =>
    items.map((i) => i.eventId)
  )

/** How much of an edit's changed lines a lesson shows: the fix's code, on one short line. */
const CHANGE_CHARS = 100

/** An edited file, with the lines its edit changed when they were recorded (`src/db.ts (\`max: 40\`)`). */
const editedFile = (item: ActivityItem, project: string) => {
  const changed = item.change === undefined ? undefined : changedLines(item.change)
  const code = changed === undefined || changed.length === 0
    ? ""
    : ` (\`${oneLine(changed.join(" / "), CHANGE_CHARS)}\`)`
  return `${tail(inProject(item.text, project), 60)}${code}`
}

/**
 * What came between a failure and its passing run, in a few words with ids (an edit with the lines it
 * changed); empty when nothing was recorded.
 */
export const fixParts = (activity: Activity, project: string, limit: number): Array<string> => {
  const list = (items: ReadonlyArray<ActivityItem>, render: (item: ActivityItem) => string) =>
    items.slice(0, limit).map((i) => `${render(i)} ${ref(i.position)}`).join(", ")
  const part = (verb: string, items: ReadonlyArray<ActivityItem>, render: (item: ActivityItem) => string) =>
    items.length === 0 ? [] : [`${verb} ${list(items, render)}`]
  return [
    ...part("edited", activity.edits, (i) => editedFile(i, project)),
    ...part("decided", activity.decisions, (i) => `"${oneLine(i.text, 80)}"`),
    ...part("noted", activity.notes, (i) => `"${oneLine(i.text, 80)}"`),
    ...part("ran", activity.commands, (i) => `\`${oneLine(i.text, 60)}\``)
  ]
}

/** The failure being handled, recognised as the read model of failures recognises them. */
export interface CurrentFailure {
  readonly family: string
  readonly command: string
  readonly digest: string | undefined
  readonly terms: ReadonlyArray<string>
}

export const currentFailure = (command: string, output: string): CurrentFailure => {
  const normalized = normalizeCommand(command)
  const { digest, terms } = failureFacts(output)
  return { family: commandFamily(normalized), command: normalized, digest, terms }
}

/**
 * The newest earlier failure that is confidently the same and was later resolved: the same family (and, for a
 * command that is not a check, the same command), and the same digest of what failed or mostly the same
 * distinctive terms (both kept with the failure's row). A failure that names nothing matches nothing.
 */
export const recallMatch = (current: CurrentFailure, past: ReadonlyArray<FailureRecord>): FailureRecord | undefined =>
  past.find((p) => {
    if (p.resolution === null || p.family !== current.family) return false
    if (current.family === "command" && p.command !== current.command) return false
    return (current.digest !== undefined && p.digest === current.digest) || sameTerms(current.terms, p.terms)
  })

/** At most this many estimated tokens: one item, read at the moment of failure. */
export const RECALL_BUDGET = 150

/** A failure with the passing run that resolved it. */
export type Fixed = FailureRecord & { readonly resolution: Resolution }

/**
 * The recall of a lesson the session was already told (at its start): which lesson it is and its first fix,
 * not the lesson again.
 */
export const recallPointer = (match: Fixed, activity: Activity, project: string): string => {
  const fix = fixParts(activity, project, 1)[0]
  const passed = `it passed ${day(match.resolution.at)} ${ref(match.resolution.position)}`
  return oneLine(
    `ralph-mem: this failure was seen before and fixed: the lesson ${ref(match.position)} this session was told` +
      `${fix === undefined ? "" : ` (${fix})`}; ${passed}.`,
    RECALL_BUDGET * 4
  )
}

/** The recall text: when the failure was seen, what it was, what came between it and the passing run, with ids. */
export const recallText = (match: Fixed, activity: Activity, project: string): string => {
  const headline = oneLine(match.headline, 120)
  const seen = `ralph-mem: this failure was seen before. ${day(match.failedAt)} \`${oneLine(match.command, 80)}\` ` +
    `failed ${ref(match.position)}: ${headline}.`
  const passed = `It passed ${day(match.resolution.at)} ${ref(match.resolution.position)}`
  const open = "Open any @id with ralph-mem show <id>."
  // Fewer items of each kind, then fewer kinds, until it fits: the latest edits, usually the fix, stay longest.
  for (const limit of [3, 2, 1]) {
    const parts = fixParts(activity, project, limit)
    for (let kinds = parts.length; kinds >= 1; kinds--) {
      const text = `${seen} ${passed} after: ${parts.slice(0, kinds).join("; ")}. ${open}`
      if (estimateTokens(text) <= RECALL_BUDGET) return text
    }
  }
  return oneLine(`${seen} ${passed}. ${open}`, RECALL_BUDGET * 4)
}
