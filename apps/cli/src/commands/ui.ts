/** `ralph-mem ui`: the local web viewer (apps/cli/src/ui/server.ts), until Ctrl-C. */
import { findProjectRoot, openReadOnly } from "@ralph-mem/events"
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import { databasePath } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { findAssets, startViewer } from "../ui/server.ts"

/** The only addresses the viewer binds to: the loopback interface, by number or by name. */
const LOOPBACK = new Set(["127.0.0.1", "localhost"])

/** Why the file at `path` cannot be read as a memory, or undefined when it can. */
const readFailure = (path: string): string | undefined => {
  try {
    openReadOnly(path).close()
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** Opens the URL in the user's browser; a failure to do so only leaves the URL to click. */
const openBrowser = (url: string) => {
  const { spawn } = process.getBuiltinModule("node:child_process")
  const [command, args] = process.platform === "darwin"
    ? ["open", [url]]
    : process.platform === "win32"
    ? ["cmd", ["/c", "start", "", url]]
    : ["xdg-open", [url]]
  const child = spawn(command, args as Array<string>, { detached: true, stdio: "ignore" })
  child.on("error", () => undefined)
  child.unref()
}

export const ui = Command.make(
  "ui",
  {
    port: Flag.Int("port").pipe(Flag.withDescription("The port (default: any free one)"), Flag.withDefault(0)),
    host: Flag.String("host").pipe(
      Flag.withDescription("Only 127.0.0.1 (or localhost): the viewer never listens on another address"),
      Flag.withDefault("127.0.0.1")
    ),
    open: Flag.Boolean("open").pipe(Flag.withDescription("Open the viewer in the browser"), Flag.withDefault(false)),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      if (!LOOPBACK.has(input.host)) {
        return yield* flags.failWith(
          `--host ${input.host}: the viewer listens on 127.0.0.1 only (your memory holds your code and prompts)`
        )
      }
      if (input.port < 0 || input.port > 65_535) {
        return yield* flags.failWith(`--port ${input.port}: use 1-65535, or 0 for any free port`)
      }
      const path = databasePath(input.db)
      if (!existsSync(path)) {
        return yield* flags.failWith(
          `no memory at ${path} yet: it is made by the first Claude Code session with ralph-mem here`
        )
      }
      // Refused now, not on every page: a file that is no memory (empty, another program's database, text).
      const unreadable = readFailure(path)
      if (unreadable !== undefined) {
        return yield* flags.failWith(`${path} cannot be read as a ralph-mem memory: ${unreadable}`)
      }
      const assets = findAssets()
      if (assets === undefined) {
        return yield* flags.failWith("the viewer's assets (dist/ui) are missing: run npm run build")
      }
      const viewer = yield* Effect.tryPromise({
        try: () =>
          startViewer({ databasePath: path, project: findProjectRoot(process.cwd()), port: input.port, assets }),
        catch: (error) => error as Error
      }).pipe(Effect.catch((error) => flags.failWith(`the viewer could not start: ${error.message}`)))
      yield* input.json
        ? Console.log(JSON.stringify({ url: viewer.url, port: viewer.port }))
        : Console.log(
          `ralph-mem ui: ${viewer.url}\n(read-only; only this URL, with its token, is let in; Ctrl-C stops it)`
        )
      if (input.open) openBrowser(viewer.url)
      // Runs until interrupted: closing the server lets the process exit.
      yield* Effect.callback<void>((resume) => {
        const stop = () => void viewer.close().then(() => resume(Effect.void))
        process.once("SIGINT", stop)
        process.once("SIGTERM", stop)
      })
    })
).pipe(
  Command.withDescription(
    "A local, read-only web viewer of the memory: sessions, injections, search, loops, health (127.0.0.1 only)"
  )
)
