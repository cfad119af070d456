/**
 * The one decider runtime (the shape Emmett's deciders have): a stream's state is the fold of its events
 * (`evolve` from `initialState`), and a command is decided against it (`decide`: the events it produces, or
 * why it is refused). `handleCommand` reads the stream, decides, appends with the stream's version as the
 * expected one, and returns the new state folded from the appended events, without reading the stream
 * again. A writer that raced (another process on the same stream) makes the append fail, and the command
 * is decided again against the new state: nothing is overwritten.
 */
import { type RalphMemEvent, type RecordedEvent, StorageError, WrongExpectedVersion } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { MemoryStore } from "./memory-store.ts"
import { decodeForProjection, eventsAfter } from "./runner.ts"

/**
 * A command that does not fit the stream's state (an empty goal, an ended loop, an unknown step): nothing is
 * written.
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  reason: Schema.String,
  /** The command refused, when the reason reads better with it ("cannot BeginIteration: ..."). */
  command: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    return this.command === undefined ? this.reason : `cannot ${this.command}: ${this.reason}`
  }
}

export const refuse = (reason: string, command?: string): Refused =>
  new Refused({ reason, ...(command === undefined ? {} : { command }) })

export interface Decider<S, C> {
  readonly initialState: S
  /** Applies one event; `occurredAt` is the event's time in the log (epoch ms). */
  readonly evolve: (state: S, event: RalphMemEvent, occurredAt: number) => S
  readonly decide: (state: S, command: C) => ReadonlyArray<RalphMemEvent> | Refused
}

/** A stream's state (folded over every event that was not forgotten) and its version. */
export const loadState = <S>(
  memory: Pick<MemoryStore, "log">,
  streamId: string,
  decider: Pick<Decider<S, never>, "initialState" | "evolve">
) => {
  let state = decider.initialState
  let version = 0
  for (const recorded of eventsAfter(memory.log, 0, { streamId })) {
    version = recorded.streamVersion
    const decoded = decodeForProjection(recorded)
    if (decoded !== undefined) state = decider.evolve(state, decoded.event, decoded.occurredAt)
  }
  return { state, version }
}

export interface Handled<S> {
  readonly state: S
  /** What the command wrote: nothing when it changed nothing. */
  readonly events: ReadonlyArray<RecordedEvent>
}

const MAX_RACES = 5

export const handleCommand = <S, C>(
  memory: Pick<MemoryStore, "log">,
  streamId: string,
  decider: Decider<S, C>,
  command: C,
  writer: string
): Effect.Effect<Handled<S>, Refused | WrongExpectedVersion | StorageError> => {
  const attempt = (race: number): Effect.Effect<Handled<S>, Refused | WrongExpectedVersion | StorageError> =>
    Effect.suspend(() => {
      const { state, version } = loadState(memory, streamId, decider)
      const decided = decider.decide(state, command)
      if (decided instanceof Refused) return Effect.fail(decided)
      if (decided.length === 0) return Effect.succeed({ state, events: [] })
      return memory.log.append(streamId, decided, { expectedVersion: version, writer }).pipe(
        Effect.map(({ events }) => ({
          // The appended events are what was decided, as the log stored them (privacy-filtered, timed).
          state: events.reduce((next, recorded) => {
            const decoded = decodeForProjection(recorded)
            return decoded === undefined ? next : decider.evolve(next, decoded.event, decoded.occurredAt)
          }, state),
          events
        })),
        Effect.catchTag("WrongExpectedVersion", (error) => (race < MAX_RACES ? attempt(race + 1) : Effect.fail(error))),
        Effect.catchTag("InvalidEvent", (error) => Effect.die(error)),
        Effect.catchTag("IdempotencyConflict", (error) => Effect.die(error))
      )
    })
  return attempt(0)
}
