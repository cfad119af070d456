/**
 * Replay throughput and memory. Target (issue 3): >= 100,000 events/s (1M events in under 10 s),
 * with memory that does not grow with the log's size.
 */
import { catalog, makeEventLog, type RalphMemEvent } from "@ralph-mem/events"
import { openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { withTempFolder } from "./measure.ts"

/** A realistic mix: per session a start, prompts, mostly tool observations, an end. */
const sessionEvents = (session: number): Array<RalphMemEvent> => {
  const sessionId = `s${session}`
  const events: Array<RalphMemEvent> = [{ _tag: "SessionStarted", sessionId, projectPath: "/work/app", source: "startup" }]
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
  events.push({ _tag: "SessionEnded", sessionId, reason: "exit" }, { _tag: "SessionSummarized", sessionId, summary: "parser fixed", summarizer: "local" })
  return events
}

const replayRun = (events: number) =>
  withTempFolder((folder) => {
    const path = join(folder, "replay.db")
    const memory = Effect.runSync(openMemory({ path }))
    // Written without projections: the log is what replay reads; projections are then built by it.
    const bare = makeEventLog(memory.db, catalog)
    for (let session = 0; session * 99 < events; session++) {
      Effect.runSync(bare.append(`session:s${session}`, sessionEvents(session), { expectedVersion: "any", writer: "bench" }))
    }
    const logged = memory.db.prepare("SELECT count(*) FROM events").pluck().get() as number
    let peakRss = process.memoryUsage().rss
    const baseRss = peakRss
    const report = memory.runner.rebuild(undefined, () => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
    })
    memory.db.close()
    return { events: logged, ms: report.ms, eventsPerSecond: report.eventsPerSecond, rssGrowthMb: Math.round((peakRss - baseRss) / 1e6) }
  })

export const replayBench = (sizes: ReadonlyArray<number>) => ({
  target: ">= 100000 events/s; memory flat across sizes",
  runs: sizes.map(replayRun)
})
