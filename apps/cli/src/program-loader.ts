/**
 * A bundled program compiled with a V8 code cache of its own (the hooks' programs, the memory server's): one
 * CommonJS bundle (`dist/chunks/<name>-<content hash>.cjs`, scripts/bundle.mjs), compiled with the cache written
 * after a run of it. Written after the run, the cache holds every function the run compiled; Node's compile
 * cache is written right after compiling, so it holds the top level only, and every process would compile
 * again each function it calls.
 *
 * The cache lives beside Node's own, in a private `ralph-mem` folder of Node's compile-cache folder:
 * NODE_COMPILE_CACHE moves it and NODE_DISABLE_COMPILE_CACHE turns it off. Its name carries the bundle's
 * content hash and the Node version, and V8 itself refuses a cache made by another V8, with other flags
 * or for another source: a refused cache is compiled from source and replaced.
 *
 * V8 checks a cache's versions, flags and length, not its contents: a cache damaged on disk makes the compile
 * abort the process. A hook, which runs for a moment and often, marks the cache while it runs (`markRun`): one
 * that dies with it leaves the mark, and the next hook drops the cache, so a damaged cache costs one hook. The
 * memory server, which Claude Code starts once a session and which runs for hours, cannot cost its session that:
 * its cache carries a checksum, checked before V8 sees it (`checked`).
 *
 * No imports: builtins come from process.getBuiltinModule (an ESM import of node:fs builds a namespace, which
 * loads fs.promises and the streams).
 */

export type Fs = typeof import("node:fs")

/** A folder only this user can write to (the cache is code: nobody else may plant one). */
const isPrivateFolder = (fs: Fs, folder: string): boolean => {
  const stats = fs.lstatSync(folder, { throwIfNoEntry: false })
  if (stats === undefined || !stats.isDirectory()) return false
  return process.platform === "win32" || (stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0)
}

/** os.tmpdir(), read from the environment on POSIX systems as it does, without loading node:os. */
const temporaryFolder = (): string => {
  if (process.platform === "win32") return process.getBuiltinModule("node:os").tmpdir()
  const folder = process.env["TMPDIR"] || process.env["TMP"] || process.env["TEMP"] || "/tmp"
  return folder.length > 1 && folder.endsWith("/") ? folder.slice(0, -1) : folder
}

/**
 * Where the code cache lives: `ralph-mem/` in Node's compile-cache folder (NODE_COMPILE_CACHE, else
 * `<tmpdir>/node-compile-cache`), or nowhere when NODE_DISABLE_COMPILE_CACHE is set. Node's own cache is
 * not turned on: the program runs no other module it would cover, and turning it on costs time.
 */
const cacheFolder = (path: typeof import("node:path")): string | undefined => {
  if ((process.env["NODE_DISABLE_COMPILE_CACHE"] ?? "") !== "") return undefined
  const configured = process.env["NODE_COMPILE_CACHE"] ?? ""
  const root = configured !== "" ? path.resolve(configured) : path.join(temporaryFolder(), "node-compile-cache")
  return path.join(root, "ralph-mem")
}

/** Error.stackTraceLimit may be frozen (--frozen-intrinsics): then it stays as it is. */
const setStackTraceLimit = (limit: number | undefined): void => {
  try {
    Error.stackTraceLimit = limit as number
  } catch {
    // Frozen.
  }
}

/**
 * The program's `require`: it asks for Node's modules (about twenty times, bundled better-sqlite3
 * included), which process.getBuiltinModule returns, and for the native SQLite module by its absolute
 * path, which process.dlopen loads; neither goes through the CommonJS loader (resolution, realpath,
 * the node_modules paths). Anything else goes to a real `require`.
 */
const requireFor = (file: string) => {
  let fallback: NodeJS.Require | undefined
  return (id: string): unknown => {
    const builtin = process.getBuiltinModule(id)
    if (builtin !== undefined) return builtin
    const path = process.getBuiltinModule("node:path")
    if (id.endsWith(".node") && path.isAbsolute(id)) {
      const addon = { exports: {} }
      process.dlopen(addon, path.toNamespacedPath(id))
      return addon.exports
    }
    return (fallback ??= process.getBuiltinModule("node:module").createRequire(file))(id)
  }
}

/**
 * Creating a file in the cache folder: only if nothing is there, never through a link (O_EXCL refuses an
 * existing link already; O_NOFOLLOW says so where the platform has it). The folder is checked private first.
 */
const writeNewFile = (fs: Fs, path: string, data: string | Uint8Array): void => {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants
  const fd = fs.openSync(path, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW ?? 0), 0o600)
  try {
    fs.writeFileSync(fd, data)
  } finally {
    fs.closeSync(fd)
  }
}

/** Longer than any hook runs (Claude Code's default hook timeout is a minute). */
const MARK_LIFETIME_MS = 10 * 60 * 1000

/**
 * V8 checks a code cache's versions, flags and length, not its contents: a cache damaged on disk makes
 * the compile abort the process (not reject the cache), and so every hook after it. A hook that runs with
 * the cache marks it (`<cache>.running`, holding its pid, created only if absent) and unmarks it once it
 * has run. A mark whose process is gone (or older than any hook runs, its pid perhaps reused) means a
 * hook died with this cache: it is dropped, and compiled again from source, so a damaged cache costs one
 * hook. (A checksum would cost every hook loading zlib and reading the whole cache once more.)
 * Returns the unmarking, or "crashed", or undefined when another live hook holds the mark.
 */
const markRun = (fs: Fs, cacheFile: string): (() => void) | "crashed" | undefined => {
  const mark = `${cacheFile}.running`
  try {
    writeNewFile(fs, mark, String(process.pid))
    return () => fs.unlinkSync(mark)
  } catch {
    // Marked already: by a hook running now, or by one that died.
  }
  try {
    const pid = Number(fs.readFileSync(mark, "latin1"))
    // A hook runs for seconds: an older mark is a dead hook's, whatever process has its pid now.
    const recent = fs.statSync(mark).mtimeMs > Date.now() - MARK_LIFETIME_MS
    if (recent && Number.isSafeInteger(pid) && pid > 0 && isAlive(pid)) return undefined
    fs.rmSync(cacheFile, { force: true })
    fs.rmSync(mark, { force: true })
  } catch {
    // The mark went away meanwhile: its hook finished.
    return undefined
  }
  return "crashed"
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's (a pid reused since).
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A loaded program, with what its cache needs once it has run. */
export interface LoadedProgram<Program> {
  readonly program: Program
  /** Writes the cache when it was missing or refused (once): call it after a run that went through the program. */
  readonly save: () => void
  /** Unmarks the cache (see markRun): the program ran to its end, with or without an error. */
  readonly release: () => void
}

/** A checked cache starts with the CRC-32 of the rest. */
const CHECKSUM_BYTES = 4

/** A checked cache's contents, or undefined when its checksum does not match them. */
const verified = (stored: Buffer): Buffer | undefined => {
  if (stored.length <= CHECKSUM_BYTES) return undefined
  const contents = stored.subarray(CHECKSUM_BYTES)
  return process.getBuiltinModule("node:zlib").crc32(contents) === stored.readUInt32LE(0) ? contents : undefined
}

const withChecksum = (contents: Buffer): Buffer => {
  const checksum = Buffer.alloc(CHECKSUM_BYTES)
  checksum.writeUInt32LE(process.getBuiltinModule("node:zlib").crc32(contents))
  return Buffer.concat([checksum, contents])
}

/**
 * Loads the bundled program `file` through its code cache, one per `use` (a hook's event, `mcp`): each use runs
 * its own part of the program. `checked`: the cache carries a checksum instead of being marked while it runs.
 */
export const loadProgram = <Program>(
  fs: Fs,
  file: string,
  use: string | undefined,
  options: { readonly checked?: boolean } = {}
): LoadedProgram<Program> => {
  const vm = process.getBuiltinModule("node:vm")
  const path = process.getBuiltinModule("node:path")
  // Known uses only (the name becomes part of a file name); any other runs without a cache.
  const folder = use === undefined || !/^[A-Za-z]{1,40}$/.test(use) ? undefined : cacheFolder(path)
  const prefix = `${path.basename(file, ".cjs")}-`
  // Every version of the program: `hook-` or `mcp-`, then its group (for a hook) and its content hash.
  const family = prefix.slice(0, prefix.indexOf("-") + 1)
  const cacheName = `${prefix}${use}-${process.version}-${process.arch}.cache`
  const cacheFile = folder === undefined ? undefined : path.join(folder, cacheName)
  let cachedData: Buffer | undefined
  try {
    if (cacheFile !== undefined && isPrivateFolder(fs, folder!)) cachedData = fs.readFileSync(cacheFile)
  } catch {
    // No cache yet.
  }
  let running: ReturnType<typeof markRun> = undefined
  if (cachedData !== undefined && options.checked === true) {
    cachedData = verified(cachedData)
    // Damaged: compiled from source, and written again after the run.
    if (cachedData === undefined) fs.rmSync(cacheFile!, { force: true })
  } else if (cachedData !== undefined) {
    running = markRun(fs, cacheFile!)
    if (running === "crashed") cachedData = undefined
  }
  // The file is the function a CommonJS module body runs in, and ASCII (scripts/bundle.mjs checks).
  const script = new vm.Script(fs.readFileSync(file, "latin1"), {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const module = { exports: {} as Program }
  // No stack traces while the program's modules evaluate: Effect probes at load whether a trace shows
  // its internal frames (`internalCall`, effect/Utils), and formatting that first trace is slow.
  // Without traces Effect takes its other variant, which only changes how its own frames appear in traces.
  const limit = Error.stackTraceLimit
  setStackTraceLimit(0)
  try {
    ;(script.runInThisContext() as (...args: Array<unknown>) => void)(
      module.exports,
      requireFor(file),
      module,
      file,
      path.dirname(file)
    )
  } finally {
    setStackTraceLimit(limit)
  }
  let saved = cachedData !== undefined && !script.cachedDataRejected
  const save = (): void => {
    if (cacheFile === undefined || saved) return
    saved = true
    try {
      fs.mkdirSync(folder!, { recursive: true, mode: 0o700 })
      if (!isPrivateFolder(fs, folder!)) return
      // Written aside and renamed: a reader sees a whole cache or none (V8 checks versions, flags and
      // lengths, not contents).
      const temporary = `${cacheFile}.${process.pid}.tmp`
      try {
        fs.rmSync(temporary, { force: true })
        const contents = script.createCachedData()
        writeNewFile(fs, temporary, options.checked === true ? withChecksum(contents) : contents)
        fs.renameSync(temporary, cacheFile)
      } catch (error) {
        fs.rmSync(temporary, { force: true })
        throw error
      }
      // The caches of earlier versions of the bundle are dead weight, once a day has passed without
      // them being written (sooner, two versions in use at once would keep replacing each other's).
      for (const name of fs.readdirSync(folder!)) {
        if (!name.startsWith(family) || name.startsWith(prefix) || !name.endsWith(cacheName.slice(prefix.length))) {
          continue
        }
        const other = path.join(folder!, name)
        if ((fs.statSync(other, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < Date.now() - 24 * 60 * 60 * 1000) {
          fs.rmSync(other, { force: true })
        }
      }
    } catch {
      // A cache that cannot be written only makes the next run slower.
    }
  }
  const release = (): void => {
    try {
      if (typeof running === "function") running()
    } catch {
      // A mark left behind costs the next hook one compile from source.
    }
  }
  return { program: module.exports, save, release }
}
