/**
 * The hook executable: `node dist/hook.mjs <Event>`, with the hook's JSON on stdin.
 * It always exits 0 and prints only valid hook output: Claude Code is never blocked by ralph-mem.
 *
 * Every hook is a fresh process, so starting is most of what a hook costs. A hook program is one CommonJS
 * bundle, `dist/chunks/hook-<group>-<content hash>.cjs` (scripts/bundle.mjs), one per group of hooks (a
 * tool call's, a prompt's, a turn's end: hook-programs/), so a hook compiles only the code its group runs.
 * This entry compiles its event's program with a V8 code cache of its own, one per event, written after the
 * first run of that event that recorded its events. Written after the run, the cache holds every function the
 * run compiled; Node's compile cache is written right after compiling, so it holds the top level only, and
 * every hook would compile again each function it calls. With the bundle being CommonJS (no ESM namespaces of
 * Node's modules, no module graph to link), this took a PostToolUse hook from about 26 to 15 ms over `node -e 0`.
 *
 * The cache lives beside Node's own, in a private `ralph-mem` folder of Node's compile-cache folder:
 * NODE_COMPILE_CACHE moves it and NODE_DISABLE_COMPILE_CACHE turns it off. Its name carries the bundle's
 * content hash and the Node version, and V8 itself refuses a cache made by another V8, with other flags
 * or for another source: a refused cache is compiled from source and replaced.
 */
import { nodeIsRecent, oldNodeMessage, runUnderProvisionedNode } from "./old-node.ts"

// No other imports: builtins come from process.getBuiltinModule once the version check has passed. (An ESM
// import of node:fs alone costs about 2 ms: the namespace it builds loads fs.promises and the streams.)

/** Set by scripts/bundle.mjs: for each hook, the program that runs it, relative to this file. */
declare const HOOK_PROGRAMS: Readonly<Record<string, string>> | undefined

/** What a hook program (hook-programs/, through hook-program.ts) exports. */
interface HookProgram {
  /** Runs the hook; true when it recorded its events. */
  readonly main: (hook: string | undefined, readStdin: () => string | undefined) => Promise<boolean>
}

type Fs = typeof import("node:fs")

/** Hook payloads carry tool output; past this, the input is refused (and logged) rather than read. */
const MAX_STDIN_BYTES = 64 * 1024 * 1024

const readStdin = (fs: Fs) => (): string | undefined => {
  const chunks: Array<Buffer> = []
  const buffer = Buffer.alloc(1 << 16)
  let total = 0
  for (;;) {
    let read: number
    try {
      read = fs.readSync(0, buffer, 0, buffer.length, null)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") continue
      if ((error as NodeJS.ErrnoException).code === "EOF") break
      throw error
    }
    if (read === 0) break
    total += read
    if (total > MAX_STDIN_BYTES) return undefined
    chunks.push(Buffer.from(buffer.subarray(0, read)))
  }
  return Buffer.concat(chunks).toString("utf8")
}

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
 * not turned on: the hook runs no other module it would cover, and turning it on costs 0.5 ms.
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
 * hook. (Checking the contents would cost 2-4 ms a hook.)
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

/** Loads the bundled hook program through the code cache; `save` writes the cache when it was missing or refused. */
const loadProgram = (fs: Fs, programPath: string, hook: string | undefined) => {
  const vm = process.getBuiltinModule("node:vm")
  const path = process.getBuiltinModule("node:path")
  const file = process.getBuiltinModule("node:url").fileURLToPath(new URL(programPath, import.meta.url))
  // Known events only (the name becomes part of a file name); any other exits at once anyway.
  const folder = hook === undefined || !/^[A-Za-z]{1,40}$/.test(hook) ? undefined : cacheFolder(path)
  const prefix = `${path.basename(file, ".cjs")}-`
  const cacheName = `${prefix}${hook}-${process.version}-${process.arch}.cache`
  const cacheFile = folder === undefined ? undefined : path.join(folder, cacheName)
  let cachedData: Buffer | undefined
  try {
    if (cacheFile !== undefined && isPrivateFolder(fs, folder!)) cachedData = fs.readFileSync(cacheFile)
  } catch {
    // No cache yet.
  }
  const running = cachedData === undefined ? undefined : markRun(fs, cacheFile!)
  if (running === "crashed") cachedData = undefined
  // The file is the function a CommonJS module body runs in, and ASCII (scripts/bundle.mjs checks).
  const script = new vm.Script(fs.readFileSync(file, "latin1"), {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const module = { exports: {} as HookProgram }
  // No stack traces while the program's modules evaluate: Effect probes at load whether a trace shows
  // its internal frames (`internalCall`, effect/Utils), and formatting that first trace cost 0.8 ms here.
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
  const save = (): void => {
    if (cacheFile === undefined || (cachedData !== undefined && !script.cachedDataRejected)) return
    try {
      fs.mkdirSync(folder!, { recursive: true, mode: 0o700 })
      if (!isPrivateFolder(fs, folder!)) return
      // Written aside and renamed: a reader sees a whole cache or none (V8 checks versions, flags and
      // lengths, not contents).
      const temporary = `${cacheFile}.${process.pid}.tmp`
      try {
        fs.rmSync(temporary, { force: true })
        writeNewFile(fs, temporary, script.createCachedData())
        fs.renameSync(temporary, cacheFile)
      } catch (error) {
        fs.rmSync(temporary, { force: true })
        throw error
      }
      // The caches of earlier versions of the bundle are dead weight, once a day has passed without
      // them being written (sooner, two versions in use at once would keep replacing each other's).
      for (const name of fs.readdirSync(folder!)) {
        if (!name.startsWith("hook-") || name.startsWith(prefix) || !name.endsWith(cacheName.slice(prefix.length))) {
          continue
        }
        const other = path.join(folder!, name)
        if ((fs.statSync(other, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < Date.now() - 24 * 60 * 60 * 1000) {
          fs.rmSync(other, { force: true })
        }
      }
    } catch {
      // A cache that cannot be written only makes the next hook slower.
    }
  }
  /** Unmarks the cache (see markRun): the program ran to its end, with or without an error. */
  const release = (): void => {
    try {
      if (typeof running === "function") running()
    } catch {
      // A mark left behind costs the next hook one compile from source.
    }
  }
  return { program: module.exports, save, release }
}

/**
 * On a Node older than ralph-mem needs: the hook runs again under the Node set-up provisioned, if there is
 * one; else memory is off, and SessionStart (once a session) tells the user so and why, and leaves the
 * reason in hooks.log, where `ralph-mem doctor` and `status` find it.
 */
const onOldNode = async (hook: string | undefined): Promise<void> => {
  const { fileURLToPath } = await import("node:url")
  if ((await runUnderProvisionedNode(fileURLToPath(import.meta.url))) !== undefined) return
  if (hook !== "SessionStart") return
  // A compaction starts no new session: the user was told when it started.
  const { source, session_id: sessionId } = await sessionStartPayload()
  if (source === "compact") return
  const reason = `memory is off: ${oldNodeMessage()}`
  process.stdout.write(`${JSON.stringify({ systemMessage: `ralph-mem: ${reason}` })}\n`)
  await logOldNode(hook, reason, typeof sessionId === "string" ? sessionId : undefined)
}

/** SessionStart's payload, read whole (it is small), or nothing when it is not JSON. */
const sessionStartPayload = async (): Promise<{ readonly source?: unknown; readonly session_id?: unknown }> => {
  try {
    const { readFileSync } = await import("node:fs")
    const payload: unknown = JSON.parse(readFileSync(0, "utf8"))
    return typeof payload === "object" && payload !== null ? payload : {}
  } catch {
    return {}
  }
}

/**
 * One line in `<memory folder>/hooks.log` (the memory folder as the CLI finds it: RALPH_MEM_DB's, else
 * `.ralph-mem` at the git top level). Nothing follows a symbolic link: a hostile repository's planted
 * `.ralph-mem` link is not written through.
 */
const logOldNode = async (hook: string, reason: string, sessionId: string | undefined): Promise<void> => {
  try {
    const fs = await import("node:fs")
    const path = await import("node:path")
    const explicit = process.env["RALPH_MEM_DB"] ?? ""
    const start = path.resolve(process.env["CLAUDE_PROJECT_DIR"] || process.cwd())
    let root = start
    for (let dir = start;; dir = path.dirname(dir)) {
      if (fs.existsSync(path.join(dir, ".git"))) {
        root = dir
        break
      }
      if (path.dirname(dir) === dir) break
    }
    const folder = explicit !== "" ? path.dirname(path.resolve(start, explicit)) : path.join(root, ".ralph-mem")
    const existing = fs.lstatSync(folder, { throwIfNoEntry: false })
    if (existing === undefined) {
      fs.mkdirSync(folder, { mode: 0o700 })
      if (explicit === "") fs.writeFileSync(path.join(folder, ".gitignore"), "*\n", { flag: "wx", mode: 0o600 })
    } else if (!existing.isDirectory()) return
    const { O_APPEND, O_CREAT, O_WRONLY, O_NOFOLLOW = 0 } = fs.constants
    // The events package's failureLogPath, spelled out: nothing of the packages is loaded yet.
    const fd = fs.openSync(path.join(folder, "hooks.log"), O_APPEND | O_CREAT | O_WRONLY | O_NOFOLLOW, 0o600)
    try {
      const entry = { time: new Date().toISOString(), hook, reason, ...(sessionId === undefined ? {} : { sessionId }) }
      fs.writeSync(fd, `${JSON.stringify(entry)}\n`)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // The user was told in the session; a log that cannot be written changes nothing.
  }
}

if (nodeIsRecent) {
  const fs = process.getBuiltinModule("node:fs")
  const hook = process.argv[2]
  try {
    if (typeof HOOK_PROGRAMS === "object") {
      // An event no program runs (a newer Claude Code, a mistyped hooks.json): nothing is loaded, nothing said.
      const programPath = hook !== undefined && Object.hasOwn(HOOK_PROGRAMS, hook) ? HOOK_PROGRAMS[hook] : undefined
      if (programPath !== undefined) {
        const { program, save, release } = loadProgram(fs, programPath, hook)
        try {
          if (await program.main(hook, readStdin(fs))) save()
        } finally {
          release()
        }
      }
    } else {
      // Unbundled (development): the hook's program module directly, without the cache.
      const groups = (await import(new URL("./hook-programs/groups.ts", import.meta.url).href)) as {
        readonly hookPrograms: Readonly<Record<string, ReadonlyArray<string>>>
      }
      const name = Object.keys(groups.hookPrograms).find((group) => groups.hookPrograms[group]!.includes(hook ?? ""))
      if (name !== undefined) {
        const program = (await import(new URL(`./hook-programs/${name}.ts`, import.meta.url).href)) as HookProgram
        await program.main(hook, readStdin(fs))
      }
    }
  } catch (error) {
    // The program could not even load (the program itself logs its failures): fail open all the same.
    process.stderr.write(
      `ralph-mem: the hook could not run: ${error instanceof Error ? error.message : String(error)}\n`
    )
  }
} else {
  await onOldNode(process.argv[2])
}
process.exit(0)
