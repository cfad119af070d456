/**
 * Snapshots of the working tree, so a loop can be rolled back. They never disturb the user's git state:
 * in a git repository a snapshot is a commit built through a temporary index (so untracked files are
 * included and the real index, HEAD and working tree are untouched), kept alive by a private ref under
 * refs/ralph-mem/. Outside git, a snapshot is a copy of the project's files under .ralph-mem/snapshots
 * (0700 folders, 0600 files), without the files the privacy rules would mask (`.env`, `<private>` blocks,
 * secrets), which a rollback leaves as they are. Git runs without a shell, with argv arrays.
 */
import { createPrivateFile, ensureMemorySubfolder, redactText, writePrivateFile } from "@ralph-mem/events"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  symlinkSync
} from "node:fs"
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path"

/** Left out of file-copy snapshots, and never deleted by a restore. */
const SKIPPED = new Set([".git", ".ralph-mem", "node_modules"])

const gitRaw = (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): string =>
  process.getBuiltinModule("node:child_process").execFileSync("git", args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    // The file lists of a large project pass the default 1 MiB, which failed a rollback with ENOBUFS.
    maxBuffer: 512 * 1024 * 1024
  })

const git = (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): string =>
  gitRaw(cwd, args, env).trim()

/** The NUL-separated names a `-z` listing prints, as they are (no trimming: a name may start with a space). */
const names = (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): Array<string> =>
  gitRaw(cwd, args, env).split("\0").filter(Boolean)

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

/** A label as a ref or folder name: plain characters, never `.` or `..`. */
const safeLabel = (label: string) => label.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^\./, "-")

/**
 * The line of a git snapshot's message naming the folders that held no file when it was taken (a commit cannot hold
 * an empty folder): a rollback keeps them. A snapshot without it (taken by an earlier ralph-mem) removes no folder.
 */
const EMPTY_FOLDERS = "ralph-mem-empty-folders: "

/** The empty folders a git snapshot recorded, or undefined when it recorded none (see EMPTY_FOLDERS). */
const recordedEmptyFolders = (projectRoot: string, commit: string): ReadonlyArray<string> | undefined => {
  try {
    // The last such line: the first line holds the loop's label.
    const line = gitRaw(projectRoot, ["cat-file", "commit", commit]).split("\n").findLast((l) =>
      l.startsWith(EMPTY_FOLDERS)
    )
    if (line === undefined) return undefined
    const folders: unknown = JSON.parse(line.slice(EMPTY_FOLDERS.length))
    return Array.isArray(folders) && folders.every((f) => typeof f === "string") ? folders : undefined
  } catch {
    return undefined
  }
}

/** How many folders of empty trees a git snapshot names one by one; past it, a tree is named whole. */
const EMPTY_FOLDERS_LISTED = 10_000

/**
 * Every folder of the empty trees git names (a folder below one is the user's too), never through a link. A tree
 * past EMPTY_FOLDERS_LISTED is named whole, with a `/` at the end: a rollback keeps every folder in it.
 */
const foldersOfEmptyTrees = (projectRoot: string, outermost: ReadonlyArray<string>): Array<string> => {
  const listed: Array<string> = []
  for (const top of outermost) {
    const tree: Array<string> = []
    const below = [top]
    let whole = false
    for (let folder = below.pop(); folder !== undefined; folder = below.pop()) {
      if (listed.length + tree.length >= EMPTY_FOLDERS_LISTED) {
        whole = true
        break
      }
      tree.push(folder)
      try {
        for (const entry of readdirSync(join(projectRoot, folder), { withFileTypes: true })) {
          if (entry.isDirectory()) below.push(join(folder, entry.name))
        }
      } catch {
        // A folder that cannot be listed is kept; what is below it, the rollback cannot empty either.
      }
    }
    if (whole) listed.push(`${top}/`)
    else listed.push(...tree)
  }
  return listed
}

/** Whether the snapshot had `folder` empty: named, or inside a tree named whole (see foldersOfEmptyTrees). */
const wasEmptyFolder = (folder: string, keptEmpty: ReadonlyArray<string>): boolean =>
  keptEmpty.some((kept) => {
    if (!kept.endsWith("/")) return folder === kept
    const path = relative(kept.slice(0, -1), folder)
    return path === "" || (path !== ".." && !path.startsWith(`..${sep}`) && !isAbsolute(path))
  })

/**
 * Removes the folders a rollback emptied: those above each file it removed (relative paths), deepest first, each
 * only if it holds nothing now, and never one the snapshot had as an empty folder (`keptEmpty`). Never the project's
 * root, never a folder that still holds anything (rmdir, not a recursive remove), never a link. A folder that was
 * empty before the rollback is above no removed file, and stays.
 */
const removeEmptiedFolders = (
  projectRoot: string,
  removed: ReadonlyArray<string>,
  keptEmpty: ReadonlyArray<string>
): void => {
  const above = new Set<string>()
  for (const file of removed) {
    for (let folder = dirname(file); folder !== "." && folder !== "" && !above.has(folder); folder = dirname(folder)) {
      above.add(folder)
    }
  }
  const depth = (folder: string) => folder.split(/[\\/]/).length
  for (const folder of [...above].sort((a, b) => depth(b) - depth(a))) {
    if (wasEmptyFolder(folder, keptEmpty)) continue
    const path = join(projectRoot, folder)
    try {
      if (lstatSync(path).isDirectory() && readdirSync(path).length === 0) rmdirSync(path)
    } catch {
      // Gone already, or not empty after all: left as it is.
    }
  }
}

/** Takes a snapshot named `label` for a loop; returns its ref (`git:<sha>` or `files:<dir>`). */
export const takeSnapshot = (projectRoot: string, loopId: string, label: string): string => {
  if (isGitRepository(projectRoot)) {
    return withTemporaryIndex(projectRoot, (env) => {
      git(projectRoot, ["add", "-A", "--", "."], env)
      const tree = git(projectRoot, ["write-tree"], env)
      // With every file in the temporary index, the folders git still calls untracked hold no file it would commit.
      const emptyFolders = foldersOfEmptyTrees(
        projectRoot,
        names(projectRoot, ["ls-files", "-z", "--others", "--directory", "--exclude-standard"], env).map((name) =>
          name.replace(/\/$/, "")
        )
      )
      let parent: Array<string> = []
      try {
        parent = ["-p", git(projectRoot, ["rev-parse", "--verify", "HEAD"])]
      } catch {
        // A repository without commits: the snapshot has no parent.
      }
      // From a file beside the temporary index: thousands of folder names are more than one argument may hold.
      const message = `${env["GIT_INDEX_FILE"]}-message`
      writePrivateFile(
        message,
        `ralph-mem snapshot ${loopId} ${label}\n\n${EMPTY_FOLDERS}${JSON.stringify(emptyFolders)}\n`
      )
      let commit: string
      try {
        commit = git(projectRoot, ["commit-tree", tree, ...parent, "-F", message], {
          ...env,
          GIT_AUTHOR_NAME: "ralph-mem",
          GIT_AUTHOR_EMAIL: "ralph-mem@localhost",
          GIT_COMMITTER_NAME: "ralph-mem",
          GIT_COMMITTER_EMAIL: "ralph-mem@localhost"
        })
      } finally {
        rmSync(message, { force: true })
      }
      git(projectRoot, ["update-ref", `refs/ralph-mem/${safeLabel(loopId)}/${safeLabel(label)}`, commit])
      return `git:${commit}`
    })
  }
  const target = join(projectRoot, ".ralph-mem", "snapshots", safeLabel(loopId), safeLabel(label))
  return `files:${relative(projectRoot, copySnapshot(projectRoot, target))}`
}

/** A snapshot that was taken, or why none could be (the error's first line, bounded): either goes into the log. */
export type SnapshotTaken = { readonly snapshotRef: string } | { readonly snapshotProblem: string }

/**
 * `takeSnapshot`, whose failure (no disk space, a file too large to copy, a broken repository) is a value: it must not
 * end the loop, and must not pass unseen either, since no rollback can return to that point.
 */
export const trySnapshot = (projectRoot: string, loopId: string, label: string): SnapshotTaken => {
  try {
    return { snapshotRef: takeSnapshot(projectRoot, loopId, label) }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { snapshotProblem: message.split("\n")[0]!.slice(0, 300) }
  }
}

/**
 * What a file-copy snapshot holds besides its files: each copied file's mode (copies are 0600), the
 * project's links (kept as links, never followed), and the files left out because the privacy rules would
 * mask them, which a restore leaves exactly as they are then.
 */
interface Manifest {
  readonly files: Record<string, number>
  readonly links: Record<string, string>
  readonly skipped: ReadonlyArray<string>
  /** Folders that held no file or link, each of them: a rollback keeps them. Absent: an older snapshot. */
  readonly emptyFolders?: ReadonlyArray<string>
}

const MANIFEST = "manifest.json"
const FILES = "files"

/**
 * Files of secrets by name, whatever they hold: `.env`, `.env.local`, `prod.env`; key stores and password
 * databases (`.p12`, `.pfx`, `.jks`, `.keystore`, `.kdbx`, PuTTY's `.ppk`), which are binary, so the filter never
 * reads what they hold; key files (`.pem`, `id_rsa`) and credential files (`.netrc`, `.pgpass`). `.key` is
 * KEY_FILE's.
 */
const SECRET_FILE = new RegExp(
  String.raw`^(?:\.env(?:[._-].+)?|.+\.env|.+\.(?:p12|pfx|jks|jceks|bks|keystore|kdbx|kdb|ppk|pem)`
    + String.raw`|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|[._]netrc|\.pgpass)$`,
  "i"
)

/**
 * `.key` names keys (`server.key` in PEM, a DER key, which is binary, a WireGuard or age key on one base64 line) and
 * Apple Keynote's documents. A document is a zip package (on macOS also a folder bundle, whose files have names of
 * their own and are copied like any other). So a `.key` file is taken for a key, whatever it holds, unless it starts as
 * a zip does, and holds no PEM private key stored uncompressed: a test for keys by their shape (`-----BEGIN`) would let
 * the base64 and DER ones into the snapshot.
 */
const KEY_FILE = /^.+\.key$/i
const ZIP_STARTS = [Buffer.from("PK\x03\x04", "latin1"), Buffer.from("PK\x05\x06", "latin1")]
const isKeyFile = (name: string, content: Buffer): boolean =>
  KEY_FILE.test(name)
  && (!ZIP_STARTS.some((start) => content.subarray(0, start.length).equals(start))
    || content.includes("PRIVATE KEY-----"))

/**
 * Would the privacy filter change this file (a `<private>` block, a secret in any shape it knows)? A binary
 * file (a NUL in its first 8000 bytes, git's test) is not text the filter reads, and is copied as it is.
 */
const isPrivate = (name: string, content: Buffer): boolean => {
  if (SECRET_FILE.test(name) || isKeyFile(name, content)) return true
  return !content.subarray(0, 8000).includes(0) && redactText(content.toString("utf8")).redactions > 0
}

/**
 * Copies the project into `target` (0700 folders, 0600 files), leaving out what the privacy rules mask. A copy that
 * fails (a file too large to read, a full disk) is removed: half a snapshot would restore half a tree.
 */
const copySnapshot = (projectRoot: string, target: string): string => {
  ensureMemorySubfolder(dirname(target))
  rmSync(target, { recursive: true, force: true })
  try {
    return copyInto(projectRoot, target)
  } catch (error) {
    rmSync(target, { recursive: true, force: true })
    throw error
  }
}

/** A project file's bytes; one that cannot be read (too large, unreadable) is named in the error the user sees. */
const projectFileBytes = (from: string, path: string): Buffer => {
  try {
    return readFileSync(from)
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

const copyInto = (projectRoot: string, target: string): string => {
  ensureMemorySubfolder(join(target, FILES))
  const emptyFolders: Array<string> = []
  const manifest: Manifest = { files: {}, links: {}, skipped: [], emptyFolders }
  // Each folder is walked down to (and checked) once, not once for every file in it.
  const made = new Set<string>()
  for (const entry of entriesBelow(projectRoot, projectRoot, emptyFolders)) {
    const from = join(projectRoot, entry.path)
    if (entry.kind === "link") {
      manifest.links[entry.path] = readlinkSync(from)
      continue
    }
    const content = projectFileBytes(from, entry.path)
    if (isPrivate(basename(entry.path), content)) {
      ;(manifest.skipped as Array<string>).push(entry.path)
      continue
    }
    const folder = dirname(join(target, FILES, entry.path))
    if (!made.has(folder)) ensureMemorySubfolder(folder)
    made.add(folder)
    createPrivateFile(join(target, FILES, entry.path), content)
    manifest.files[entry.path] = entry.mode
  }
  writePrivateFile(join(target, MANIFEST), `${JSON.stringify(manifest)}\n`)
  return target
}

interface Entry {
  readonly path: string
  readonly kind: "file" | "link"
  readonly mode: number
}

/**
 * Files and links below `root` (relative paths), never following a link, skipping what snapshots skip. With
 * `emptyFolders`, every folder that holds no file or link, at any depth, is added to it.
 */
const entriesBelow = (root: string, dir = root, emptyFolders?: Array<string>): Array<Entry> =>
  readdirSync(dir).flatMap((name): Array<Entry> => {
    if (dir === root && SKIPPED.has(name)) return []
    const path = join(dir, name)
    const stats = lstatSync(path)
    if (stats.isDirectory()) {
      const entries = entriesBelow(root, path, emptyFolders)
      if (entries.length === 0) emptyFolders?.push(relative(root, path))
      return entries
    }
    const kind = stats.isSymbolicLink() ? "link" : stats.isFile() ? "file" : undefined
    return kind === undefined ? [] : [{ path: relative(root, path), kind, mode: stats.mode & 0o7777 }]
  })

/** A file-copy snapshot's folder and manifest. */
const readManifest = (projectRoot: string, ref: string): { readonly source: string; readonly manifest: Manifest } => {
  if (!ref.startsWith("files:")) throw new Error(`unknown snapshot ${ref}`)
  const source = join(projectRoot, ref.slice(6))
  if (!existsSync(source)) throw new Error(`snapshot ${ref} is missing`)
  if (!existsSync(join(source, MANIFEST))) {
    throw new Error(`snapshot ${ref} was taken by an older ralph-mem (no manifest): copy its files back from ${source}`)
  }
  return { source, manifest: JSON.parse(readFileSync(join(source, MANIFEST), "utf8")) as Manifest }
}

/**
 * Removes a file or link the snapshot did not hold. The index can still name a path the user deleted and the
 * loop then made a folder: that folder's files are listed (and removed) one by one, and checkout-index
 * replaces what is left of it when the snapshot holds a file there.
 */
const removeFile = (path: string): boolean => {
  try {
    if (lstatSync(path).isDirectory()) return false
  } catch {
    return false
  }
  rmSync(path, { force: true })
  return true
}

/**
 * Why a snapshot cannot be restored (its commit or its folder is gone, or it is not one of ours), or undefined
 * when it can. Asked before a rollback is recorded, so the record never claims a rollback that cannot happen.
 */
export const snapshotProblem = (projectRoot: string, ref: string): string | undefined => {
  if (ref.startsWith("git:")) {
    try {
      git(projectRoot, ["cat-file", "-e", `${ref.slice(4)}^{commit}`])
      return undefined
    } catch {
      return `snapshot ${ref} is missing from the repository`
    }
  }
  try {
    readManifest(projectRoot, ref)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** Makes the working tree what the snapshot holds: its files written back, files it did not have removed. */
export const restoreSnapshot = (projectRoot: string, ref: string): void => {
  if (ref.startsWith("git:")) {
    const commit = ref.slice(4)
    const keptEmpty = recordedEmptyFolders(projectRoot, commit)
    withTemporaryIndex(projectRoot, (env) => {
      // -z: without it git quotes any name with a quote, a newline or a non-ASCII letter (한글.txt), and a
      // file the loop created under such a name would be looked for under its quoted form and survive.
      const wanted = new Set(names(projectRoot, ["ls-tree", "-r", "-z", "--name-only", commit]))
      const present = names(projectRoot, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
      const removed = present.filter((file) => !wanted.has(file) && removeFile(join(projectRoot, file)))
      git(projectRoot, ["read-tree", commit], env)
      git(projectRoot, ["checkout-index", "--all", "--force"], env)
      // After the checkout: a folder the snapshot holds files in is filled again, not removed.
      if (keptEmpty !== undefined) removeEmptiedFolders(projectRoot, removed, keptEmpty)
    })
    return
  }
  const { source, manifest } = readManifest(projectRoot, ref)
  const kept = new Set([...Object.keys(manifest.files), ...Object.keys(manifest.links), ...manifest.skipped])
  const removed = entriesBelow(projectRoot).filter((entry) => !kept.has(entry.path)).map((entry) => entry.path)
  for (const file of removed) rmSync(join(projectRoot, file), { force: true })
  for (const [file, mode] of Object.entries(manifest.files)) {
    const to = join(projectRoot, file)
    mkdirSync(dirname(to), { recursive: true })
    rmSync(to, { force: true })
    writePrivateFile(to, readFileSync(join(source, FILES, file)), mode & 0o777)
  }
  for (const [file, target] of Object.entries(manifest.links)) {
    const to = join(projectRoot, file)
    mkdirSync(dirname(to), { recursive: true })
    rmSync(to, { force: true })
    symlinkSync(target, to)
  }
  if (manifest.emptyFolders !== undefined) removeEmptiedFolders(projectRoot, removed, manifest.emptyFolders)
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
  const { source, manifest } = readManifest(projectRoot, ref)
  const present = entriesBelow(projectRoot).filter((entry) => !manifest.skipped.includes(entry.path))
  const held = Object.keys(manifest.files).length + Object.keys(manifest.links).length
  return present.length === held && present.every((entry) => {
    const from = join(projectRoot, entry.path)
    if (entry.kind === "link") {
      return Object.hasOwn(manifest.links, entry.path) && manifest.links[entry.path] === readlinkSync(from)
    }
    if (!Object.hasOwn(manifest.files, entry.path)) return false
    return readFileSync(join(source, FILES, entry.path)).equals(readFileSync(from))
  })
}

/** Files that differ between two snapshots (git snapshots only; a file-copy snapshot reports none). */
export const changedFiles = (
  projectRoot: string,
  from: string | undefined,
  to: string | undefined
): ReadonlyArray<string> => {
  if (from === undefined || to === undefined || !from.startsWith("git:") || !to.startsWith("git:")) return []
  try {
    return git(projectRoot, ["diff", "--name-only", from.slice(4), to.slice(4)]).split("\n").filter(Boolean)
  } catch {
    return []
  }
}
