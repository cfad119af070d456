/** Where a project's memory lives, and the user's home folder. */
import { existsSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

/** The git top level of `cwd` (nearest ancestor holding `.git`, a folder or a worktree file), else `cwd`. */
export const findProjectRoot = (cwd: string): string => {
  const start = resolve(cwd)
  for (let dir = start;; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir
    if (dirname(dir) === dir) return start
  }
}

/** `RALPH_MEM_DB` wins; otherwise `<project root>/.ralph-mem/memory.db`. */
export const resolveDatabasePath = (options: {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
}): string => {
  const explicit = options.env["RALPH_MEM_DB"]
  if (explicit !== undefined && explicit !== "") return resolve(options.cwd, explicit)
  return join(findProjectRoot(options.cwd), ".ralph-mem", "memory.db")
}

/** The database of a project whose root is already known (no second walk up the folders). */
export const projectDatabasePath = (projectRoot: string, env: Readonly<Record<string, string | undefined>>): string => {
  const explicit = env["RALPH_MEM_DB"]
  if (explicit !== undefined && explicit !== "") return resolve(projectRoot, explicit)
  return join(projectRoot, ".ralph-mem", "memory.db")
}

/**
 * Whether `path` is the memory `projectRoot` keeps in its own folder, which holds that project only (a database named
 * by RALPH_MEM_DB or --db may be shared by several).
 */
export const isProjectDatabase = (path: string, projectRoot: string): boolean =>
  resolve(path) === projectDatabasePath(resolve(projectRoot), {})

/** The user's home folder (`HOME`, else Windows' `USERPROFILE`), or undefined when neither names one. */
export const homeFolder = (env: Readonly<Record<string, string | undefined>>): string | undefined =>
  env["HOME"] || env["USERPROFILE"] || undefined
