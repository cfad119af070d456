/**
 * Snapshots of the working tree, so a loop can be rolled back. They never disturb the user's git state:
 * in a git repository a snapshot is a commit built through a temporary index (so untracked files are
 * included and the real index, HEAD and working tree are untouched), kept alive by a private ref under
 * refs/ralph-mem/. Outside git, a snapshot is a copy of the project's files under .ralph-mem/snapshots.
 * Git runs without a shell, with argv arrays.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { join, relative } from "node:path"

/** Left out of file-copy snapshots, and never deleted by a restore. */
const SKIPPED = new Set([".git", ".ralph-mem", "node_modules"])

const git = (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): string =>
  process.getBuiltinModule("node:child_process").execFileSync("git", args, { cwd, env: { ...process.env, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

const isGitRepository = (projectRoot: string): boolean => {
  try {
    return git(projectRoot, ["rev-parse", "--is-inside-work-tree"]) === "true"
  } catch {
    return false
  }
}

/** Runs `use` with a throwaway index file inside .git, removed afterwards. */
const withTemporaryIndex = <A>(projectRoot: string, use: (env: Record<string, string>) => A): A => {
  const gitDir = git(projectRoot, ["rev-parse", "--absolute-git-dir"])
  const index = join(gitDir, `ralph-mem-index-${process.pid}-${Date.now()}`)
  try {
    return use({ GIT_INDEX_FILE: index })
  } finally {
    rmSync(index, { force: true })
  }
}

const safeLabel = (label: string) => label.replace(/[^A-Za-z0-9._-]/g, "-")

/** Takes a snapshot named `label` for a loop; returns its ref (`git:<sha>` or `files:<dir>`). */
export const takeSnapshot = (projectRoot: string, loopId: string, label: string): string => {
  if (isGitRepository(projectRoot)) {
    return withTemporaryIndex(projectRoot, (env) => {
      git(projectRoot, ["add", "-A", "--", "."], env)
      const tree = git(projectRoot, ["write-tree"], env)
      let parent: Array<string> = []
      try {
        parent = ["-p", git(projectRoot, ["rev-parse", "--verify", "HEAD"])]
      } catch {
        // A repository without commits: the snapshot has no parent.
      }
      const commit = git(projectRoot, ["commit-tree", tree, ...parent, "-m", `ralph-mem snapshot ${loopId} ${label}`], {
        ...env,
        GIT_AUTHOR_NAME: "ralph-mem",
        GIT_AUTHOR_EMAIL: "ralph-mem@localhost",
        GIT_COMMITTER_NAME: "ralph-mem",
        GIT_COMMITTER_EMAIL: "ralph-mem@localhost"
      })
      git(projectRoot, ["update-ref", `refs/ralph-mem/${safeLabel(loopId)}/${safeLabel(label)}`, commit])
      return `git:${commit}`
    })
  }
  const target = join(projectRoot, ".ralph-mem", "snapshots", safeLabel(loopId), safeLabel(label))
  rmSync(target, { recursive: true, force: true })
  mkdirSync(target, { recursive: true, mode: 0o700 })
  for (const entry of readdirSync(projectRoot)) {
    if (!SKIPPED.has(entry)) cpSync(join(projectRoot, entry), join(target, entry), { recursive: true })
  }
  return `files:${relative(projectRoot, target)}`
}

/** Every file below `root` (relative paths), skipping what snapshots skip. */
const filesBelow = (root: string, dir = root): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    if (dir === root && SKIPPED.has(entry)) return []
    const path = join(dir, entry)
    return statSync(path).isDirectory() ? filesBelow(root, path) : [relative(root, path)]
  })

/** Makes the working tree what the snapshot holds: its files written back, files it did not have removed. */
export const restoreSnapshot = (projectRoot: string, ref: string): void => {
  if (ref.startsWith("git:")) {
    const commit = ref.slice(4)
    withTemporaryIndex(projectRoot, (env) => {
      const wanted = new Set(git(projectRoot, ["ls-tree", "-r", "--name-only", commit]).split("\n").filter(Boolean))
      const present = git(projectRoot, ["ls-files", "--cached", "--others", "--exclude-standard"]).split("\n").filter(Boolean)
      for (const file of present) if (!wanted.has(file)) rmSync(join(projectRoot, file), { force: true })
      git(projectRoot, ["read-tree", commit], env)
      git(projectRoot, ["checkout-index", "--all", "--force"], env)
    })
    return
  }
  if (!ref.startsWith("files:")) throw new Error(`unknown snapshot ${ref}`)
  const source = join(projectRoot, ref.slice(6))
  if (!existsSync(source)) throw new Error(`snapshot ${ref} is missing`)
  const wanted = new Set(filesBelow(source))
  for (const file of filesBelow(projectRoot)) if (!wanted.has(file)) rmSync(join(projectRoot, file), { force: true })
  for (const entry of readdirSync(source)) cpSync(join(source, entry), join(projectRoot, entry), { recursive: true })
}

/**
 * Whether the working tree holds exactly what the snapshot holds (files skipped by snapshots aside). A
 * rollback after a loop ended refuses to overwrite work done since unless told to go ahead.
 */
export const workingTreeMatches = (projectRoot: string, ref: string): boolean => {
  if (ref.startsWith("git:")) {
    return withTemporaryIndex(projectRoot, (env) => {
      git(projectRoot, ["add", "-A", "--", "."], env)
      return git(projectRoot, ["write-tree"], env) === git(projectRoot, ["rev-parse", `${ref.slice(4)}^{tree}`])
    })
  }
  if (!ref.startsWith("files:")) throw new Error(`unknown snapshot ${ref}`)
  const source = join(projectRoot, ref.slice(6))
  if (!existsSync(source)) throw new Error(`snapshot ${ref} is missing`)
  const { readFileSync } = process.getBuiltinModule("node:fs")
  const held = filesBelow(source).sort()
  const present = filesBelow(projectRoot).sort()
  return held.length === present.length &&
    held.every((file, i) => file === present[i] && readFileSync(join(source, file)).equals(readFileSync(join(projectRoot, file))))
}

/** Files that differ between two snapshots (git snapshots only; a file-copy snapshot reports none). */
export const changedFiles = (projectRoot: string, from: string | undefined, to: string | undefined): ReadonlyArray<string> => {
  if (from === undefined || to === undefined || !from.startsWith("git:") || !to.startsWith("git:")) return []
  try {
    return git(projectRoot, ["diff", "--name-only", from.slice(4), to.slice(4)]).split("\n").filter(Boolean)
  } catch {
    return []
  }
}
