/**
 * Folders that hook processes wrote into. A SessionEnd hook starts `ralph-mem maintain` detached (packing,
 * then a backup), and it may still be writing into the folder when a test reads it or ends: a test that
 * looks for the backup must wait for that maintenance to finish, and a plain recursive removal races it
 * and fails with ENOTEMPTY. So both first wait for that maintenance to exit, however slow the machine.
 */
import { readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"

/** Generous: a backup on a busy 2-core machine can take seconds; a test must not fail because of it. */
const SETTLE_TIMEOUT_MS = 120_000

/** A process's NUL-separated /proc file, or nothing when it exited meanwhile. */
const procFile = (pid: string, what: "cmdline" | "environ"): Array<string> | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${what}`, "utf8").split("\0")
  } catch {
    return undefined
  }
}

/**
 * The command line and environment of each running `maintain` (Linux's /proc; elsewhere none are known and
 * only the retries help). Only a maintenance's environment is read: most processes are something else.
 */
const maintenanceProcesses = (): Array<{ readonly argv: Array<string>; readonly env: Array<string> }> => {
  let pids: Array<string>
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
  return pids.flatMap((pid) => {
    const argv = procFile(pid, "cmdline")
    if (argv === undefined || !argv.includes("maintain")) return []
    const env = procFile(pid, "environ")
    return env === undefined ? [] : [{ argv, env }]
  })
}

/** The folder's path as given and as resolved (a temporary folder may be reached through a link). */
const spellings = (folder: string): Array<string> => {
  try {
    return [...new Set([folder, realpathSync(folder)])]
  } catch {
    return [folder]
  }
}

/** Whether some `ralph-mem maintain` works inside `folder`: its database, or its home or TMPDIR, is there. */
const maintenanceRunsIn = (folder: string): boolean => {
  const inside = spellings(folder).map((path) => `${path}/`)
  return maintenanceProcesses().some(({ argv, env }) =>
    [...argv, ...env.map((entry) => entry.slice(entry.indexOf("=") + 1))].some((value) =>
      inside.some((prefix) => value.startsWith(prefix))
    )
  )
}

/**
 * Waits until no maintenance works inside `folder` (a SessionEnd's backup is then complete). Throws when
 * one still runs after SETTLE_TIMEOUT_MS: a test waiting on it gives a timeout of its own above that.
 */
export const maintenanceSettled = async (folder: string): Promise<void> => {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS
  while (maintenanceRunsIn(folder)) {
    if (Date.now() > deadline) {
      throw new Error(`ralph-mem maintain still runs in ${folder} after ${SETTLE_TIMEOUT_MS} ms`)
    }
    await sleep(50)
  }
}

/** Waits until no maintenance works inside `folder`, then removes it (retrying what still races). */
export const removeWhenSettled = async (folder: string): Promise<void> => {
  await maintenanceSettled(folder).catch(() => undefined) // removed anyway: the retries may still win
  rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
}

/** A test that waits for maintenance: room for the wait and for the test's own processes. */
export const SETTLE_TEST_TIMEOUT_MS = SETTLE_TIMEOUT_MS + 60_000
