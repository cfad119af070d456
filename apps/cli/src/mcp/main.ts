/**
 * Starts the memory server for the session Claude Code started it in: the project is Claude Code's
 * (CLAUDE_PROJECT_DIR, else the working folder Claude Code gave it), the database is found as the hooks
 * find it (`--db`, then RALPH_MEM_DB, then the project's), the session is CLAUDE_CODE_SESSION_ID.
 */
import { findProjectRoot, resolveDatabasePath, useBundledNativeBinding } from "@ralph-mem/events"
import { statSync } from "node:fs"
import { serveMemoryTools } from "./server.ts"

export const startMemoryServer = (
  options: {
    readonly db?: string | undefined
    readonly parentPid?: number
    readonly afterFirstAnswer?: (() => void) | undefined
  } = {}
): Promise<void> => {
  useBundledNativeBinding(import.meta.url)
  const env = process.env
  const given = env["CLAUDE_PROJECT_DIR"]
  const folder =
    given !== undefined && given !== "" && statSync(given, { throwIfNoEntry: false })?.isDirectory() === true
      ? given
      : process.cwd()
  const sessionId = env["CLAUDE_CODE_SESSION_ID"]
  return serveMemoryTools({
    databasePath: resolveDatabasePath({
      cwd: folder,
      env: options.db === undefined ? env : { ...env, RALPH_MEM_DB: options.db }
    }),
    project: findProjectRoot(folder),
    sessionId: sessionId === undefined || sessionId === "" ? undefined : sessionId,
    env,
    parentPid: options.parentPid ?? process.ppid,
    afterFirstAnswer: options.afterFirstAnswer
  })
}
