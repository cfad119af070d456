/**
 * The hook executable: `node dist/hook.mjs <Event>`, with the hook's JSON on stdin.
 * It always exits 0 and prints only valid hook output: Claude Code is never blocked by ralph-mem.
 *
 * Every hook is a fresh process, so starting is most of what a hook costs. A hook program is one CommonJS
 * bundle, `dist/chunks/hook-<group>-<content hash>.cjs` (scripts/bundle.mjs), one per group of hooks (a
 * tool call's, a prompt's, a turn's end: hook-programs/), so a hook compiles only the code its group runs.
 * This entry compiles its event's program with a V8 code cache of its own, one per event, written after the
 * first run of that event that recorded its events (program-loader.ts). With the bundle being CommonJS, there
 * are no ESM namespaces of Node's modules to build and no module graph to link.
 */
import { nodeIsRecent, oldNodeMessage, runUnderProvisionedNode } from "./old-node.ts"
import { type Fs, loadProgram } from "./program-loader.ts"

// No other imports: builtins come from process.getBuiltinModule once the version check has passed.

/** Set by scripts/bundle.mjs: for each hook, the program that runs it, relative to this file. */
declare const HOOK_PROGRAMS: Readonly<Record<string, string>> | undefined

/** What a hook program (hook-programs/, through hook-program.ts) exports. */
interface HookProgram {
  /** Runs the hook; true when it recorded its events. */
  readonly main: (hook: string | undefined, readStdin: () => string | undefined) => Promise<boolean>
}

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
    const { O_APPEND, O_CREAT, O_WRONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants
    // The events package's failureLogPath, spelled out: nothing of the packages is loaded yet. Non-blocking, as
    // appendPrivateFile opens it: a FIFO planted there would otherwise hold SessionStart until a reader came.
    const fd = fs.openSync(
      path.join(folder, "hooks.log"),
      O_APPEND | O_CREAT | O_WRONLY | O_NOFOLLOW | O_NONBLOCK,
      0o600
    )
    try {
      // Only a regular file of one name is a log: a device or another file's second name is left alone.
      const stats = fs.fstatSync(fd)
      if (!stats.isFile() || stats.nlink > 1) return
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
        const file = process.getBuiltinModule("node:url").fileURLToPath(new URL(programPath, import.meta.url))
        const { program, save, release } = loadProgram<HookProgram>(fs, file, hook)
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
