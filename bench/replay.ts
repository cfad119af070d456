/**
 * Replay throughput and memory. Target (issue 3): >= 100,000 events/s (1M events in under 10 s),
 * with memory that does not grow with the log's size.
 *
 * The time is the median of three replays of the same database (all three are reported).
 * Measured as users run it: the bundled `ralph-mem replay --json` in a process of its own, on a database
 * whose read models are current (the log is written with its projections inline first), so a replay
 * also drops the read models it replaces, and whose sessions are packed as maintenance leaves them (every
 * payload is inflated from its block). The throughput is the CLI's own report (the rebuild, from
 * its transaction's start to its commit).
 *
 * Memory: the process's peak resident set, as run, and then in a second replay under fixed V8 heap caps
 * (NODE_OPTIONS below; the fold worker caps its own young generation). Left alone, V8 sizes its heaps
 * by the allocation rate, so the uncapped peak moves with the run's length; a replay that completes
 * under the same caps at every size is one whose memory does not grow with the log.
 */
import { compactLog, type RalphMemEvent } from "@ralph-mem/events"
import { openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { withTempFolder } from "./measure.ts"

const CLI = join(import.meta.dirname, "..", "dist", "ralph-mem.mjs")

/** A realistic mix: per session a start, prompts, mostly tool observations, an end. */
const sessionEvents = (session: number): Array<RalphMemEvent> => {
  const sessionId = `s${session}`
  const events: Array<RalphMemEvent> = [{
    _tag: "SessionStarted",
    sessionId,
    projectPath: "/work/app",
    source: "startup"
  }]
  for (let i = 0; i < 96; i++) {
    events.push(
      i % 12 === 0
        ? { _tag: "PromptSubmitted", sessionId, prompt: `make the ${i}th parser test pass without breaking the cache` }
        : {
          _tag: "ObservationRecorded",
          sessionId,
          kind: i % 9 === 0 ? "error" : i % 7 === 0 ? "success" : "tool_use",
          toolName: i % 3 === 0 ? "Edit" : "Bash",
          inputSummary: `npm test -- parser-${i}`,
          content: `PASS src/parser/ParserState${i}.test.ts (12 tests)\n  at TokenStream.next (src/lexer.ts:${i}:7)`,
          files: [`src/parser/ParserState${i}.ts`]
        }
    )
  }
  events.push({ _tag: "SessionEnded", sessionId, reason: "exit" }, {
    _tag: "SessionSummarized",
    sessionId,
    summary: "parser fixed",
    summarizer: "local"
  })
  return events
}

const replayRun = (events: number) =>
  withTempFolder((folder) => {
    const path = join(folder, "replay.db")
    const memory = Effect.runSync(openMemory({ path }))
    for (let session = 0; session * 99 < events; session++) {
      Effect.runSync(
        memory.log.append(`session:s${session}`, sessionEvents(session), { expectedVersion: "any", writer: "bench" })
      )
    }
    // As maintenance leaves a log: every settled session's payloads packed, so a replay inflates them all.
    compactLog(memory.db, { idleMs: 0 })
    memory.db.close()
    // This machine's speed moves between runs by up to a third: the median of three replays, each reported.
    const runs = [replay(path, {}), replay(path, {}), replay(path, {})]
    const median = [...runs].sort((a, b) => a.ms - b.ms)[1]!
    const capped = replay(path, { NODE_OPTIONS: HEAP_CAPS })
    return {
      events: median.events,
      ms: median.ms,
      eventsPerSecond: median.eventsPerSecond,
      threads: median.threads,
      peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
      runsMs: runs.map((r) => r.ms),
      cappedHeaps: { ms: capped.ms, peakRssMb: capped.peakRssMb }
    }
  })

/** The V8 heap caps of the memory run: 64 MB of old space, 4 MB semi-spaces. */
const HEAP_CAPS = "--max-old-space-size=64 --max-semi-space-size=4"

const replay = (path: string, env: Record<string, string>) => {
  const run = spawnSync(process.execPath, [CLI, "replay", "--db", path, "--json"], {
    encoding: "utf8",
    env: { ...process.env, ...env }
  })
  if (run.status !== 0) throw new Error(`ralph-mem replay failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as {
    events: number
    ms: number
    eventsPerSecond: number
    threads: number
    peakRssMb: number
  }
}

export const replayBench = (sizes: ReadonlyArray<number>) => ({
  target: ">= 100000 events/s; memory flat across sizes",
  heapCaps: HEAP_CAPS,
  runs: sizes.map(replayRun)
})
