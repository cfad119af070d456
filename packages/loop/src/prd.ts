/**
 * PRD-driven loops, after the prd.json Ralph workflow: a file of user stories, each with an id, title,
 * description, acceptance criteria, a priority (lower first) and a `passes` flag. The loop works on one
 * story per iteration; a story passes only when the harness's criteria pass. The log is the truth: the
 * file's `passes` flags are rewritten from it after every iteration (an agent flipping one itself changes
 * nothing), and every other field of the file is kept as it was.
 */
import { type Criterion, type PrdStory, writePrivateFile } from "@ralph-mem/events"
import { isTrusted, recordTrust } from "@ralph-mem/settings"
import * as Schema from "effect/Schema"
import { readFileSync, statSync } from "node:fs"
import { parseCriterion } from "./config.ts"
import type { Loop } from "./state.ts"

/** prd.json could not be used; each problem names the field. */
export class PrdInvalid extends Schema.TaggedError<PrdInvalid>()("PrdInvalid", {
  path: Schema.String,
  problems: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.path} cannot be used:\n${this.problems.map((p) => `- ${p}`).join("\n")}`
  }
}

export interface Prd {
  readonly description: string
  readonly stories: ReadonlyArray<PrdStory>
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
const show = (
  value: unknown
) => (value === undefined ? "nothing" : JSON.stringify(value)?.slice(0, 60) ?? String(value))

/** Validates one story, pushing a problem per field that is wrong. */
const parseStory = (raw: unknown, index: number, problems: Array<string>): PrdStory | undefined => {
  const at = `userStories[${index}]`
  if (!isObject(raw)) {
    problems.push(`${at}: expected an object, got ${show(raw)}`)
    return undefined
  }
  const before = problems.length
  const id = typeof raw["id"] === "string" && raw["id"].trim() !== ""
    ? raw["id"].trim()
    : Number.isInteger(raw["id"])
    ? String(raw["id"])
    : undefined
  if (id === undefined) problems.push(`${at}.id: expected a non-empty string or an integer, got ${show(raw["id"])}`)
  const title = raw["title"]
  if (typeof title !== "string" || title.trim() === "") {
    problems.push(`${at}.title: expected a non-empty string, got ${show(title)}`)
  }
  const description = raw["description"] ?? ""
  if (typeof description !== "string") problems.push(`${at}.description: expected a string, got ${show(description)}`)
  const acceptance = raw["acceptanceCriteria"]
  if (!Array.isArray(acceptance) || !acceptance.every((c) => typeof c === "string")) {
    problems.push(`${at}.acceptanceCriteria: expected a list of strings, got ${show(acceptance)}`)
  }
  // Without priorities, the file's order is the order of work.
  const priority = raw["priority"] ?? index + 1
  if (typeof priority !== "number" || !Number.isFinite(priority)) {
    problems.push(`${at}.priority: expected a number (lower comes first), got ${show(priority)}`)
  }
  const passes = raw["passes"] ?? false
  if (typeof passes !== "boolean") problems.push(`${at}.passes: expected true or false, got ${show(passes)}`)
  const notes = raw["notes"]
  if (notes !== undefined && typeof notes !== "string") {
    problems.push(`${at}.notes: expected a string, got ${show(notes)}`)
  }
  const rawCriteria = raw["criteria"]
  const criteria: Array<Criterion> = []
  if (rawCriteria !== undefined) {
    if (!Array.isArray(rawCriteria)) {
      problems.push(`${at}.criteria: expected a list like ["custom=npm test -- login"], got ${show(rawCriteria)}`)
    } else {
      rawCriteria.forEach((text, i) => {
        const parsed = typeof text === "string" ? parseCriterion(text) : `expected a string, got ${show(text)}`
        if (typeof parsed === "string") problems.push(`${at}.criteria[${i}]: ${parsed}`)
        else criteria.push(parsed)
      })
    }
  }
  if (problems.length > before) return undefined
  return {
    id: id!,
    title: (title as string).trim(),
    description: description as string,
    acceptanceCriteria: acceptance as Array<string>,
    priority: priority as number,
    passes: passes as boolean,
    ...(notes === undefined || notes === "" ? {} : { notes: notes as string }),
    ...(criteria.length === 0 ? {} : { criteria })
  }
}

/** Parses prd.json's text; every problem is reported at once. */
const parsePrd = (text: string, path: string): Prd | PrdInvalid => {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    return new PrdInvalid({ path, problems: [`not valid JSON: ${(error as Error).message}`] })
  }
  if (!isObject(raw)) {
    return new PrdInvalid({ path, problems: [`expected an object with "userStories", got ${show(raw)}`] })
  }
  const problems: Array<string> = []
  const list = raw["userStories"]
  if (!Array.isArray(list) || list.length === 0) {
    return new PrdInvalid({ path, problems: [`userStories: expected a non-empty list of stories, got ${show(list)}`] })
  }
  const stories = list.map((story, index) => parseStory(story, index, problems))
  const seen = new Map<string, number>()
  stories.forEach((story, index) => {
    if (story === undefined) return
    const first = seen.get(story.id)
    if (first !== undefined) {
      problems.push(`userStories[${index}].id: ${JSON.stringify(story.id)} is also the id of userStories[${first}]`)
    } else seen.set(story.id, index)
  })
  const description = [raw["description"], raw["project"]].find((d): d is string =>
    typeof d === "string" && d.trim() !== ""
  )
  if (problems.length > 0) return new PrdInvalid({ path, problems })
  return { description: description ?? "", stories: stories as Array<PrdStory> }
}

export const readPrd = (path: string): Prd | PrdInvalid => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (error) {
    return new PrdInvalid({
      path,
      problems: [`cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`]
    })
  }
  return parsePrd(text, path)
}

/**
 * An argument as a shell would need it typed: what is accepted must read as what runs (`sh -c 'a; b'`, not `sh -c a;
 * b`).
 */
const shellWord = (argument: string): string =>
  /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", `'\\''`)}'`

/** The commands a PRD's stories set for their checks (`criteria: ["custom=./check.sh"]`), with their story. */
const commandsOf = (prd: Prd) =>
  prd.stories.flatMap((story) =>
    (story.criteria ?? []).flatMap((c) =>
      c.command === undefined ? [] : [{ story: story.id, kind: c.kind, command: c.command }]
    )
  )

/**
 * The commands a PRD's stories set, one line each: `US-001: custom=./check.sh`. The harness runs them itself, outside
 * the agent and its permissions, and a prd.json may have come with a repository: they run only once the user accepted
 * them (`prdCommandsAccepted`), like the commands of a project's config file.
 */
export const storyCommands = (prd: Prd): ReadonlyArray<string> =>
  commandsOf(prd).map((c) => `${c.story}: ${c.kind}=${c.command.map(shellWord).join(" ")}`)

/**
 * What is accepted of a PRD file: its stories' commands, as argument lists, not the file's bytes (the loop rewrites
 * its `passes` flags, and a title may change): a new or changed command needs accepting again. Recorded with the
 * accepted project config files, under the PRD's path.
 */
const acceptedText = (prd: Prd): string => JSON.stringify(commandsOf(prd).map((c) => [c.story, c.kind, ...c.command]))

const acceptanceKey = (path: string): string => `prd:${path}`

/** Whether the user accepted the commands `prd` (read from `path`) sets, as they are now; true when it sets none. */
export const prdCommandsAccepted = (globalConfigFile: string, path: string, prd: Prd): boolean =>
  commandsOf(prd).length === 0 || isTrusted(globalConfigFile, acceptanceKey(path), acceptedText(prd))

/** Records the commands `prd` sets as accepted, until one of them changes. */
export const acceptPrdCommands = (globalConfigFile: string, path: string, prd: Prd): void => {
  recordTrust(globalConfigFile, acceptanceKey(path), acceptedText(prd))
}

/**
 * Writes the harness's `passes` flags into the file, keeping everything else. Best effort: a file that
 * moved or no longer parses is left alone (the log still holds the truth). Returns whether it wrote.
 */
export const syncPrdFile = (loop: Loop): boolean => {
  if (loop.prd === undefined) return false
  try {
    const raw = JSON.parse(readFileSync(loop.prd.path, "utf8")) as { userStories?: Array<Record<string, unknown>> }
    if (!Array.isArray(raw.userStories)) return false
    const passes = new Map(loop.prd.stories.map((s) => [s.id, s.passes]))
    let changed = false
    for (const story of raw.userStories) {
      const harness = isObject(story) ? passes.get(String(story["id"]).trim()) : undefined
      if (harness !== undefined && story["passes"] !== harness) {
        story["passes"] = harness
        changed = true
      }
    }
    if (!changed) return false
    // Written aside and renamed, never through a link; the file keeps its mode.
    writePrivateFile(loop.prd.path, `${JSON.stringify(raw, null, 2)}\n`, statSync(loop.prd.path).mode & 0o777)
    return true
  } catch {
    return false
  }
}

/** How far a PRD loop is: `2 of 5 stories pass`. */
export const storyProgress = (loop: Loop): string | undefined =>
  loop.prd === undefined
    ? undefined
    : `${loop.prd.stories.filter((s) => s.passes).length} of ${loop.prd.stories.length} stories pass`
