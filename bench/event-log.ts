/**
 * Event log throughput: batched appends, one event per transaction, and paged reads.
 * Targets (issue 2): >= 50,000 events/s batched; single-event transaction p50 < 0.2 ms.
 */
import { catalog, makeEventLog, openDatabase, type RalphMemEvent, readEvents } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { join } from "node:path"
import { elapsedMs, round, summarize, withTempFolder } from "./measure.ts"

const observation = (i: number): RalphMemEvent => ({
  _tag: "ObservationRecorded",
  sessionId: `s${i % 50}`,
  kind: i % 7 === 0 ? "error" : "tool_use",
  toolName: "Bash",
  inputSummary: `npm test -- --grep case-${i}`,
  content: `ran case ${i}: ${"output line ".repeat(8)}`,
  files: [`src/module-${i % 100}.ts`]
})

export const eventLogBench = (options: { batched: number; batchSize: number; single: number }) =>
  withTempFolder((folder) => {
    const db = Effect.runSync(openDatabase(join(folder, "bench.db")))
    const log = makeEventLog(db, catalog)
    const append = (stream: string, events: Array<RalphMemEvent>) =>
      Effect.runSync(log.append(stream, events, { expectedVersion: "any", writer: "bench" }))

    let start = process.hrtime.bigint()
    for (let i = 0; i < options.batched; i += options.batchSize) {
      append(`session:${i % 50}`, Array.from({ length: options.batchSize }, (_, j) => observation(i + j)))
    }
    const batchedMs = elapsedMs(start)

    const singles: Array<number> = []
    for (let i = 0; i < options.single; i++) {
      const t = process.hrtime.bigint()
      append(`session:single-${i % 20}`, [observation(i)])
      singles.push(elapsedMs(t))
    }

    start = process.hrtime.bigint()
    let read = 0
    Effect.runSync(Stream.runForEach(readEvents(log), () => Effect.sync(() => void read++)))
    const readMs = elapsedMs(start)
    db.close()

    return {
      batchedAppend: {
        events: options.batched,
        batchSize: options.batchSize,
        eventsPerSecond: Math.round(options.batched / (batchedMs / 1000)),
        target: ">= 50000 events/s"
      },
      singleEventTransaction: { ...summarize(singles), target: "p50 < 0.2 ms" },
      read: { events: read, eventsPerSecond: Math.round(read / (readMs / 1000)), ms: round(readMs, 1) }
    }
  })
