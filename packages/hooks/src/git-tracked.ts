/**
 * Asks git whether it tracks anything in a project's memory folder, and keeps the answer where every
 * open of the folder finds it (packages/events/src/tracked-memory.ts). Run once a session (SessionStart),
 * by `doctor` and by the CLI's commands, never by the tool-call hooks: it costs a process.
 *
 * `git ls-files` reads the index, so a folder git tracks is found whatever the repository's .gitignore or
 * a planted `.ralph-mem/.gitignore` say, in a worktree (a `.git` file) as in a clone. Git runs in the
 * project with its location variables (GIT_DIR and the like) removed, so it reads that project's index,
 * and with the file-system monitor off: a hostile `.git/config` (a project copied with its `.git`, not
 * cloned) could name a command there, which ls-files could otherwise start.
 */
import {
  MEMORY_FOLDER,
  readTrackedMemory,
  trackedMemoryProblem,
  trackedMemoryRecordPath,
  UnsafePath,
  writePrivateFile
} from "@ralph-mem/events"
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { basename, dirname, join } from "node:path"

/** Longer than ls-files takes on the largest index; a SessionStart may take this much more at worst. */
const GIT_TIMEOUT_MS = 5000
/** Paths kept in the record to show the user (the count says how many there are). */
const SHOWN_PATHS = 20

export type TrackedCheck =
  | { readonly _tag: "NotApplicable" }
  | { readonly _tag: "Clean" }
  | {
    readonly _tag: "Tracked"
    readonly paths: ReadonlyArray<string>
    readonly count: number
    /** Why the verdict could not be kept for later processes (they would not know): refuse by this one. */
    readonly unkept?: string
  }
  /** Git could not say (not installed, refused the repository, timed out): the last verdict stands. */
  | { readonly _tag: "Unknown"; readonly reason: string }

/** Environment variables that would make git read another repository or index than the project's. */
const GIT_LOCATION = /^GIT_(DIR|WORK_TREE|INDEX_FILE|COMMON_DIR|OBJECT_DIRECTORY|NAMESPACE|CEILING_DIRECTORIES)$/

/** The paths git tracks below `<projectRoot>/.ralph-mem`, or why git could not say. */
const askGit = (projectRoot: string): TrackedCheck => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !GIT_LOCATION.test(key)))
  // Loaded here only: child_process costs every hook that loads it.
  const { spawnSync } = process.getBuiltinModule("node:child_process")
  // A case-insensitive file system holds `.Ralph-Mem` where `.ralph-mem` is looked for.
  const pathspec = process.platform === "darwin" || process.platform === "win32"
    ? `:(icase)${MEMORY_FOLDER}`
    : MEMORY_FOLDER
  const result = spawnSync(
    "git",
    ["-c", "core.fsmonitor=false", "ls-files", "-z", "--cached", "--", pathspec],
    {
      cwd: projectRoot,
      env: { ...env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
      encoding: "utf8",
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 4 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true
    }
  )
  const paths = (result.stdout ?? "").split("\0").filter((path) => path !== "")
  // A path git printed is in its index, even when it was cut short (past the buffer, past the time).
  if (paths.length > 0) return { _tag: "Tracked", paths: paths.slice(0, SHOWN_PATHS), count: paths.length }
  if (result.error !== undefined) {
    const code = (result.error as NodeJS.ErrnoException).code
    return { _tag: "Unknown", reason: code === "ENOENT" ? "git is not installed (not on PATH)" : result.error.message }
  }
  if (result.status !== 0) {
    const said = (result.stderr ?? "").trim().split("\n")[0]?.slice(0, 300) ?? ""
    return { _tag: "Unknown", reason: `git ls-files exited ${result.status ?? result.signal}: ${said}` }
  }
  return { _tag: "Clean" }
}

/**
 * Checks the memory folder of `databasePath` when it is the project's own `.ralph-mem` in a git repository
 * (a folder the user chose with RALPH_MEM_DB or --db is theirs), and records the verdict: a record while
 * git tracks something there, none once it does not. An unknown answer changes nothing.
 */
export const checkTrackedMemory = (projectRoot: string, databasePath: string): TrackedCheck => {
  const folder = dirname(databasePath)
  if (basename(folder) !== MEMORY_FOLDER || folder !== join(projectRoot, MEMORY_FOLDER)) {
    return { _tag: "NotApplicable" }
  }
  // Not a repository: git tracks nothing there (a record left from when it was one goes).
  const check = existsSync(join(projectRoot, ".git")) ? askGit(projectRoot) : ({ _tag: "Clean" } as const)
  const record = trackedMemoryRecordPath(folder)
  if (record === undefined) {
    const unkept = "no home folder (HOME, XDG_STATE_HOME) to keep the verdict in"
    return check._tag === "Tracked" ? { ...check, unkept } : check
  }
  try {
    if (check._tag === "Tracked") {
      mkdirSync(dirname(record), { recursive: true, mode: 0o700 })
      const kept = { folder, tracked: check.paths, count: check.count, checkedAt: new Date().toISOString() }
      writePrivateFile(record, `${JSON.stringify(kept)}\n`)
    } else if (check._tag === "Clean" && readTrackedMemory(folder) !== undefined) {
      rmSync(record, { force: true })
    }
  } catch (error) {
    const unkept = `cannot keep the verdict in ${record}: ${(error as Error).message}`
    // This process still knows, and refuses by what it found; a record left from before stays.
    return check._tag === "Tracked" ? { ...check, unkept } : { _tag: "Unknown", reason: unkept }
  }
  return check
}

/** The refusal a check found, for the process that made it (the record may not have been kept). */
export const trackedRefusal = (check: TrackedCheck, databasePath: string): UnsafePath | undefined => {
  if (check._tag !== "Tracked") return undefined
  const found = { folder: dirname(databasePath), tracked: check.paths, count: check.count, checkedAt: "" }
  const problem = trackedMemoryProblem(found)
  if (check.unkept === undefined) return problem
  // Said, so the user knows the hooks after this one cannot tell, and fixes it now.
  const warning = `; WARNING: ${check.unkept}, so the hooks after this one may use that memory`
  return new UnsafePath({ ...problem, reason: `${problem.reason}${warning}` })
}
