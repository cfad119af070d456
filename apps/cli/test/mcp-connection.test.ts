/**
 * The memory tools' connection checkpoints the write-ahead log when the server is idle, never inside a call:
 * a real SQLite file, written the way the server records its calls, the log's progress read from its WAL index.
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../../packages/events/test/helpers.ts"
import { walProgress } from "../../../tests/support/wal.ts"
import { memoryConnection } from "../src/mcp/connection.ts"

/** Polls `check` until it holds; no fixed sleep, so a slow machine only waits longer. */
const eventually = async (check: () => boolean, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await sleep(20)
  }
}

const opened = (path: string, failures: Array<string> = []) => {
  const connection = memoryConnection(path, (reason) => failures.push(reason))
  const memory = Effect.runSync(connection.current({ create: true }))!
  /** One call's record, appended as the server appends it. */
  const recordCall = (n: number) =>
    Effect.runSync(
      memory.log.append("memory-tools", [{
        _tag: "MemoryToolCalled",
        tool: "search",
        query: `q${n}`,
        returned: [],
        tokens: 0
      }], {
        expectedVersion: "any",
        writer: "mcp:search"
      })
    )
  return { connection, memory, recordCall }
}

describe("the memory tools' connection", () => {
  it("lets the log grow through a run of calls, and checkpoints it once the server is idle", async () => {
    const path = join(tempFolder(), "memory.db")
    const failures: Array<string> = []
    const { connection, recordCall } = opened(path, failures)
    // Past SQLite's automatic checkpoint (1000 frames), with no turn of the event loop between the calls.
    let calls = 0
    while (walProgress(path).frames <= 1200 && calls < 5000) {
      recordCall(calls++)
      connection.wrote()
    }
    const during = walProgress(path)
    expect(during.frames).toBeGreaterThan(1200)
    // No call copied the log into the database: that waits for the idle moment.
    expect(during.checkpointed).toBe(0)
    await eventually(() => walProgress(path).checkpointed === walProgress(path).frames, "the log is checkpointed")
    expect(failures).toEqual([])
    connection.close()
  })

  it("checkpoints a long run of calls without a pause all the same, after a call's answer", async () => {
    const path = join(tempFolder(), "memory.db")
    const { connection, recordCall } = opened(path)
    let checkpointedDuringTheRun = false
    for (let calls = 0; calls < 700 && !checkpointedDuringTheRun; calls++) {
      recordCall(calls)
      connection.wrote()
      // The next call comes right after the answer: far less than the idle pause, however slow the machine.
      await sleep(1)
      checkpointedDuringTheRun = walProgress(path).checkpointed > 0
    }
    expect(checkpointedDuringTheRun).toBe(true)
    connection.close()
  })

  it("says where doctor looks when a checkpoint fails, and answers on", async () => {
    const path = join(tempFolder(), "memory.db")
    const failures: Array<string> = []
    const { connection, memory, recordCall } = opened(path, failures)
    recordCall(0)
    // A pragma that fails: the connection is closed under the pending checkpoint's feet, behind its back.
    const pragma = memory.db.pragma.bind(memory.db)
    memory.db.pragma = ((source: string, options?: object) => {
      if (source.startsWith("wal_checkpoint")) throw new Error("disk I/O error")
      return pragma(source, options)
    }) as typeof memory.db.pragma
    connection.wrote()
    await eventually(() => failures.length > 0, "the failure is reported")
    expect(failures[0]).toContain("could not checkpoint the write-ahead log: Error: disk I/O error")
    connection.close()
  })
})
