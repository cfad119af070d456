/**
 * A project's memory folder that git tracks is not the user's memory: it arrived with the repository (a
 * planted `memory.db` whose "lessons" would be injected as the user's own past), or the user is about to
 * publish their sessions. Either way nothing is read from it or written to it.
 *
 * Asking git costs a process, so it is asked once a session (SessionStart, `doctor`, the CLI's commands:
 * packages/hooks/src/git-tracked.ts) and the answer kept outside the project, one small file per memory
 * folder in `<state home>/ralph-mem/tracked-memory/`, present only while git tracks something there. Every
 * open of a memory folder (`inspectMemoryFolder`) reads that one file; a missing file (nearly always) costs
 * one `stat` of a missing file. The file names its folder and is only believed for that folder.
 */
import { readFileSync, statSync } from "node:fs"
import { isAbsolute, join } from "node:path"
import { digest53 } from "./digest.ts"
import { UnsafePath } from "./errors.ts"
import { homeFolder } from "./location.ts"

/** What is kept about a memory folder git tracks files in. */
export interface TrackedMemory {
  readonly folder: string
  /** Some of the tracked paths, as git names them (relative to the project). */
  readonly tracked: ReadonlyArray<string>
  /** How many paths git tracks there in all. */
  readonly count: number
  readonly checkedAt: string
}

/** `$XDG_STATE_HOME` (absolute only, as the XDG spec says), else `~/.local/state`. */
export const stateHome = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const xdg = env["XDG_STATE_HOME"]
  if (xdg !== undefined && isAbsolute(xdg)) return xdg
  const home = homeFolder(env)
  return home === undefined ? undefined : join(home, ".local", "state")
}

/** The name of a folder's record: a digest of its path (the record holds the path, checked on read). */
const folderKey = (folder: string): string => digest53(folder).toString(16).padStart(14, "0")

/** Where the verdict on `folder` is kept, or undefined with no home to keep it in. */
export const trackedMemoryRecordPath = (
  folder: string,
  env: Readonly<Record<string, string | undefined>> = process.env
): string | undefined => {
  const home = stateHome(env)
  return home === undefined ? undefined : join(home, "ralph-mem", "tracked-memory", `${folderKey(folder)}.json`)
}

/** What was found last time git was asked about `folder`, when it tracked something there. */
export const readTrackedMemory = (
  folder: string,
  env: Readonly<Record<string, string | undefined>> = process.env
): TrackedMemory | undefined => {
  const path = trackedMemoryRecordPath(folder, env)
  if (path === undefined) return undefined
  let text: string
  try {
    // Nearly always missing: a stat that builds no error for that is a fraction of a failed read.
    if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined
    text = readFileSync(path, "utf8")
  } catch {
    // Unreadable (no permission on the state folder): as if git had not been asked.
    return undefined
  }
  try {
    const record = JSON.parse(text) as Partial<TrackedMemory>
    if (record.folder !== folder) return undefined
    const tracked = Array.isArray(record.tracked) ? record.tracked.filter((p) => typeof p === "string") : []
    const count = typeof record.count === "number" ? record.count : tracked.length
    return { folder, tracked, count, checkedAt: String(record.checkedAt ?? "") }
  } catch {
    // A damaged record is still a refusal: it was only ever written for a tracked folder.
    return { folder, tracked: [], count: 0, checkedAt: "" }
  }
}

/** The refusal of a memory folder git tracks files in: what was found, why memory is off, how to fix it. */
export const trackedMemoryProblem = (found: TrackedMemory): UnsafePath => {
  // The names are the repository's (anyone's text): quoted, escaped and cut short.
  const shown = found.tracked.slice(0, 3).map((p) => JSON.stringify(p.slice(0, 80))).join(", ")
  const more = found.count > 3 ? ` and ${found.count - 3} more` : ""
  return new UnsafePath({
    path: found.folder,
    problem: "tracked_by_git",
    reason: `git tracks files in it (${shown || "?"}${more}): it came with the repository, or your memory is ` +
      "about to be committed; memory is off for this project, nothing is read from it or written to it",
    fix: "If someone else's repository brought it: `git rm -r --cached .ralph-mem` and delete the folder. " +
      "If it is your own memory: `git rm -r --cached .ralph-mem` (and commit that). " +
      "Or keep memory elsewhere with RALPH_MEM_DB. The next session (or `ralph-mem doctor`) checks again."
  })
}
