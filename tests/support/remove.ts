/**
 * Removing a folder that hook processes wrote into. A SessionEnd hook starts `ralph-mem maintain` detached
 * (packing, then a backup), and it may still be writing into the folder when a test ends: a plain recursive
 * removal then races it and fails with ENOTEMPTY. So the removal first waits for that maintenance to exit.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"

/** Generous: a backup on a busy 2-core machine can take seconds; a test must not fail because of it. */
const SETTLE_TIMEOUT_MS = 120_000

/**
 * The command line and environment of each running process (Linux's /proc; elsewhere none are known and only
 * the retries help).
 */
const processes = (): Array<{ readonly argv: Array<string>; readonly env: Array<string> }> => {
  let pids: Array<string>
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
  return pids.flatMap((pid) => {
    try {
      const read = (what: string) => readFileSync(`/proc/${pid}/${what}`, "utf8").split("\0")
      return [{ argv: read("cmdline"), env: read("environ") }]
    } catch {
      return [] // exited while listed
    }
  })
}

/** Whether some `ralph-mem maintain` works inside `folder`: its database, or its home or TMPDIR, is there. */
const maintenanceRunsIn = (folder: string): boolean =>
  processes().some(({ argv, env }) =>
    argv.includes("maintain") &&
    [...argv, ...env.map((entry) => entry.slice(entry.indexOf("=") + 1))].some((value) => value.startsWith(`${folder}/`))
  )

/** Waits until no maintenance works inside `folder`, then removes it (retrying what still races). */
export const removeWhenSettled = async (folder: string): Promise<void> => {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS
  while (maintenanceRunsIn(folder) && Date.now() < deadline) await sleep(50)
  rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
}
