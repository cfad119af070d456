/**
 * A loop's stream through the decider runtime: its state is loaded by folding the stream, and a command is
 * handled by deciding against that state and appending with the stream's version as the expected one (a
 * stop issued from another process makes a racing append decide again: nothing is overwritten).
 */
import { streams } from "@ralph-mem/events"
import { handleCommand, loadState, type MemoryStore } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { type LoopCommand, loopDecider } from "./decide.ts"
import type { Loop, LoopState } from "./state.ts"

export const loadLoop = (
  memory: Pick<MemoryStore, "log">,
  loopId: string
): { readonly state: LoopState; readonly version: number } => loadState(memory, streams.loop(loopId), loopDecider)

/** Decides and appends a command; returns the loop after it. */
export const execute = (memory: Pick<MemoryStore, "log">, loopId: string, command: LoopCommand, writer: string) =>
  handleCommand(memory, streams.loop(loopId), loopDecider, command, writer).pipe(
    // A command the decider accepts always leaves a started loop.
    Effect.map((handled): Loop => handled.state!)
  )
