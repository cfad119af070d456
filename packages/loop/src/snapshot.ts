/**
 * Snapshots of the working tree, so a loop can be rolled back. They never disturb the user's git state:
 * in a git repository a snapshot is a commit built through a temporary index (so untracked files are
 * included and the real index, HEAD and working tree are untouched), kept alive by a private ref under
 * refs/ralph-mem/. Outside git, a snapshot is a copy of the project's files under .ralph-mem/snapshots
 * (0700 folders, 0600 files), without the files the privacy rules would mask (`.env`, `<private>` blocks,
 * secrets), which a rollback leaves as they are. Git runs without a shell, with argv arrays.
 */
import { createPrivateFile, ensureMemorySubfolder, redactText, writePrivateFile } from "@ralph-mem/events"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from "node:fs"
import { basename, dirname, join, relative } from "node:path"

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
const names = (cwd: string, args: ReadonlyArray<string>): Array<string> => gitRaw(cwd, args).split("\0").filter(Boolean)

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
  const manifest: Manifest = { files: {}, links: {}, skipped: [] }
  // Each folder is walked down to (and checked) once, not once for every file in it.
  const made = new Set<string>()
  for (const entry of entriesBelow(projectRoot)) {
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

/** Files and links below `root` (relative paths), never following a link, skipping what snapshots skip. */
const entriesBelow = (root: string, dir = root): Array<Entry> =>
  readdirSync(dir).flatMap((name): Array<Entry> => {
    if (dir === root && SKIPPED.has(name)) return []
    const path = join(dir, name)
    const stats = lstatSync(path)
    if (stats.isDirectory()) return entriesBelow(root, path)
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
const removeFile = (path: string): void => {
  try {
    if (lstatSync(path).isDirectory()) return
  } catch {
    return
  }
  rmSync(path, { force: true })
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
    withTemporaryIndex(projectRoot, (env) => {
      // -z: without it git quotes any name with a quote, a newline or a non-ASCII letter (한글.txt), and a
      // file the loop created under such a name would be looked for under its quoted form and survive.
      const wanted = new Set(names(projectRoot, ["ls-tree", "-r", "-z", "--name-only", commit]))
      const present = names(projectRoot, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
      for (const file of present) if (!wanted.has(file)) removeFile(join(projectRoot, file))
      git(projectRoot, ["read-tree", commit], env)
      git(projectRoot, ["checkout-index", "--all", "--force"], env)
    })
    return
  }
  const { source, manifest } = readManifest(projectRoot, ref)
  const kept = new Set([...Object.keys(manifest.files), ...Object.keys(manifest.links), ...manifest.skipped])
  for (const entry of entriesBelow(projectRoot)) {
    if (!kept.has(entry.path)) rmSync(join(projectRoot, entry.path), { force: true })
  }
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
