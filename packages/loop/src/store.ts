/**
 * Loops in the event log: a loop's state is loaded by folding its stream, and a command is executed by
 * deciding against that state and appending with the stream's version as the expected one. A writer
 * that raced (a stop issued from another process) makes the append fail, and the command is decided
 * again against the new state: nothing is overwritten.
 */
import { StorageError, streams, WrongExpectedVersion } from "@ralph-mem/events"
import { decodeForProjection, eventsAfter, type Memory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { decide, IllegalTransition, type LoopCommand } from "./decide.ts"
import { fold, type Loop, type LoopState } from "./state.ts"

export const loadLoop = (memory: Pick<Memory, "log">, loopId: string): { readonly state: LoopState; readonly version: number } => {
  const events = []
  let version = 0
  for (const recorded of eventsAfter(memory.log, 0, { streamId: streams.loop(loopId) })) {
    version = recorded.streamVersion
    const decoded = decodeForProjection(recorded)
    if (decoded !== undefined) events.push({ event: decoded.event, occurredAt: decoded.occurredAt })
  }
  return { state: fold(events), version }
}

const MAX_RACES = 5

/** Decides and appends a command; on a lost race, decides again. Returns the loop after the command. */
export const execute = (
  memory: Memory,
  loopId: string,
  command: LoopCommand,
  writer: string
): Effect.Effect<Loop, IllegalTransition | WrongExpectedVersion | StorageError> => {
  const attempt = (race: number): Effect.Effect<Loop, IllegalTransition | WrongExpectedVersion | StorageError> =>
    Effect.suspend(() => {
      const { state, version } = loadLoop(memory, loopId)
      const events = decide(state, command)
      if (events instanceof IllegalTransition) return Effect.fail(events)
      return memory.log.append(streams.loop(loopId), events, { expectedVersion: version, writer }).pipe(
        Effect.map(() => loadLoop(memory, loopId).state!),
        Effect.catchTag("WrongExpectedVersion", (error) => (race < MAX_RACES ? attempt(race + 1) : Effect.fail(error))),
        Effect.catchTag("InvalidEvent", (error) => Effect.die(error)),
        Effect.catchTag("IdempotencyConflict", (error) => Effect.die(error))
      )
    })
  return attempt(0)
}

/** The running loop bound to a session, if any: a loop never bleeds into another session. */
export const activeLoopForSession = (memory: Memory, sessionId: string): string | undefined =>
  memory.db
    .prepare("SELECT loop_id FROM loop_runs WHERE session_id = ? AND status = 'running' ORDER BY started_at DESC LIMIT 1")
    .pluck()
    .get(sessionId) as string | undefined

/** The most recent loop of a project (running first), for commands that name none. */
export const latestLoop = (memory: Memory, projectPath: string): string | undefined =>
  memory.db
    .prepare(
      `SELECT loop_id FROM loop_runs WHERE project_path = ?
       ORDER BY status = 'running' DESC, started_at DESC LIMIT 1`
    )
    .pluck()
    .get(projectPath) as string | undefined
