/**
 * Beliefs and tasks in the event log: the state is loaded by folding the stream, and a command is
 * decided against it and appended with the stream's version as the expected one. A writer that raced
 * (another process changing the same task) makes the append fail, and the command is decided again.
 */
import { type RalphMemEvent, type RecordedEvent, StorageError, WrongExpectedVersion } from "@ralph-mem/events"
import { decodeForProjection, eventsAfter, type Memory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { Refused } from "./refused.ts"

export interface Aggregate<S, C> {
  /** The state of a stream with no events. */
  readonly initial: S
  readonly evolve: (state: S, event: RalphMemEvent) => S
  readonly decide: (state: S, command: C) => ReadonlyArray<RalphMemEvent> | Refused
}

/** The state of a stream (folded over every event that was not forgotten) and its version. */
export const loadStream = <S>(memory: Memory, streamId: string, aggregate: Aggregate<S, never>) => {
  let state = aggregate.initial
  let version = 0
  for (const recorded of eventsAfter(memory.log, 0, { streamId })) {
    version = recorded.streamVersion
    const decoded = decodeForProjection(recorded)
    if (decoded !== undefined) state = aggregate.evolve(state, decoded.event)
  }
  return { state, version }
}

const MAX_RACES = 5

export interface Executed<S> {
  readonly state: S
  /** What the command wrote: nothing when it changed nothing. */
  readonly events: ReadonlyArray<RecordedEvent>
}

/** Decides and appends a command; on a lost race, decides again. */
export const execute = <S, C>(
  memory: Memory,
  streamId: string,
  aggregate: Aggregate<S, C>,
  command: C,
  writer: string
): Effect.Effect<Executed<S>, Refused | WrongExpectedVersion | StorageError> => {
  const attempt = (race: number): Effect.Effect<Executed<S>, Refused | WrongExpectedVersion | StorageError> =>
    Effect.suspend(() => {
      const { state, version } = loadStream(memory, streamId, aggregate)
      const decided = aggregate.decide(state, command)
      if (decided instanceof Refused) return Effect.fail(decided)
      if (decided.length === 0) return Effect.succeed({ state, events: [] })
      return memory.log.append(streamId, decided, { expectedVersion: version, writer }).pipe(
        Effect.map(({ events }) => ({ state: loadStream(memory, streamId, aggregate).state, events })),
        Effect.catchTag("WrongExpectedVersion", (error) => (race < MAX_RACES ? attempt(race + 1) : Effect.fail(error))),
        Effect.catchTag("InvalidEvent", (error) => Effect.die(error)),
        Effect.catchTag("IdempotencyConflict", (error) => Effect.die(error))
      )
    })
  return attempt(0)
}
