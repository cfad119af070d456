/**
 * Committed events known to be missing. The head mark (a file the appends keep) names the newest
 * committed event: when the log opens without it, events were lost (a WAL cut short or a damaged frame,
 * which SQLite drops silently), and an EventsLost event records it before anything is appended (a new
 * append would take the lost positions and hide the loss). A restore records what it could not read the
 * same way. `verify` and `doctor` report every loss until the user acknowledges it (`doctor --repair`).
 */
import { memoryIdOf, readOwnHeadMark, streams, writeHeadMark } from "@ralph-mem/events"
import type { SqliteDatabase } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import type { MemoryStore } from "./memory-store.ts"

/**
 * Records a loss the head mark shows, if any; never fails (a loss it cannot record is found next time). Only a mark
 * written for this memory is read (head-mark.ts): one that came with the project's files names events it never had.
 */
export const detectLostEvents = (memory: MemoryStore): Effect.Effect<number> =>
  Effect.suspend(() => {
    const { mark } = readOwnHeadMark(memory.path, memoryIdOf(memory.db))
    if (mark === undefined) return Effect.succeed(0)
    const present =
      memory.db.prepare("SELECT 1 FROM event_rows WHERE event_id = ?").pluck().get(mark.eventId) !== undefined
    if (present) return Effect.succeed(0)
    const head = memory.db.prepare("SELECT coalesce(max(position), 0) FROM event_rows").pluck().get() as number
    const count = Math.max(1, mark.position - head)
    const detail = head < mark.position
      ? `the log ends at position ${head}, yet events up to position ${mark.position} had been committed ` +
        "(the WAL lost them)"
      : `event ${mark.eventId} at position ${mark.position} had been committed and is not in the log ` +
        "(the WAL lost it)"
    return memory.log
      .append(streams.maintenance, [{ _tag: "EventsLost", count, detail }], {
        expectedVersion: "any",
        writer: "loss-check"
      })
      .pipe(
        Effect.tap(({ events }) =>
          Effect.sync(() =>
            writeHeadMark(memory.path, { ...markOf(events.at(-1)!), memory: memoryIdOf(memory.db) }, true)
          )
        ),
        Effect.as(count),
        Effect.catchCause(() => Effect.succeed(0))
      )
  })

const markOf = (event: { readonly position: number; readonly eventId: string }) => ({
  position: event.position,
  eventId: event.eventId
})

export interface Loss {
  readonly eventId: string
  readonly at: number
  readonly count: number
  readonly detail: string
}

/** Losses recorded and not yet acknowledged, oldest first. */
export const unacknowledgedLosses = (db: SqliteDatabase): Array<Loss> =>
  db
    .prepare(
      `SELECT event_id AS eventId, occurred_at AS at, json_extract(payload, '$.count') AS count,
              json_extract(payload, '$.detail') AS detail
       FROM events WHERE type = 'EventsLost' AND redacted_by IS NULL AND event_id NOT IN (
         SELECT j.value FROM events a, json_each(json_extract(a.payload, '$.lossEventIds')) j
         WHERE a.type = 'LossAcknowledged')
       ORDER BY position`
    )
    .all() as Array<Loss>

export const describeLoss = (loss: Loss): string =>
  `${loss.count} committed event(s) missing, found ${new Date(loss.at).toISOString()}: ${loss.detail}`

/** The user has seen them: they are no longer reported as a problem. */
export const acknowledgeLosses = (memory: MemoryStore, losses: ReadonlyArray<Loss>) =>
  memory.log.append(streams.maintenance, [{ _tag: "LossAcknowledged", lossEventIds: losses.map((l) => l.eventId) }], {
    expectedVersion: "any",
    writer: "cli:doctor"
  })
