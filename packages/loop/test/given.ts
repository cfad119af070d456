/** Decider tests in the given-when-then style: given events (one second apart), when a command, then events or a refusal. */
import type { RalphMemEvent } from "@ralph-mem/events"
import { expect } from "vitest"
import { decide, IllegalTransition, type LoopCommand } from "../src/decide.ts"
import { fold } from "../src/state.ts"

export const given = (...events: ReadonlyArray<RalphMemEvent>) => {
  const state = fold(events.map((event, i) => ({ event, occurredAt: 1000 * i })))
  return { state, when: (command: LoopCommand) => decide(state, command) }
}

/** The refusal's message; fails the test when the command was not refused. */
export const refusal = (outcome: unknown): string => {
  expect(outcome).toBeInstanceOf(IllegalTransition)
  return (outcome as IllegalTransition).message
}
