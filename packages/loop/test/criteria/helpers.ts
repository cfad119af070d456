/** Test helpers: throwaway project folders with real files, and checks on real processes. */
import * as Effect from "effect/Effect"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach } from "vitest"

const folders: Array<string> = []
const strayPids: Array<number> = []

afterEach(() => {
  for (const pid of strayPids.splice(0)) killQuietly(pid)
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** A fresh folder holding `files` (path -> content), removed after the test. */
export const tempProject = (files: Readonly<Record<string, string>> = {}): string => {
  const root = mkdtempSync(join(tmpdir(), "ralph-mem-criteria-"))
  folders.push(root)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

export const run = <A>(effect: Effect.Effect<A>): Promise<A> => Effect.runPromise(effect)

export const readJson = <A>(path: string): A => JSON.parse(readFileSync(path, "utf8")) as A

/** Kills a process the test started if it is still around when the test ends. */
export const killAfterTest = (pid: number): void => {
  strayPids.push(pid)
}

const killQuietly = (pid: number) => {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // already gone
  }
}

/** Alive = exists and is not a zombie (an orphan can stay a zombie where PID 1 does not reap). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return true
  }
}

/**
 * Polls `condition` until it holds or `timeoutMs` passes; returns whether it held. The default leaves room
 * for a loaded machine: a condition that holds returns at once.
 */
export const eventually = async (condition: () => boolean, timeoutMs = 60_000): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return condition()
}

/** Waits until a file exists (a script's "I have started" signal). */
export const waitForFile = (path: string, timeoutMs = 60_000): Promise<boolean> =>
  eventually(() => {
    try {
      readFileSync(path)
      return true
    } catch {
      return false
    }
  }, timeoutMs)
