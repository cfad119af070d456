/**
 * Decider tests in the given / when / then style (Emmett's DeciderSpecification): given the events of a
 * stream (one second apart), when a command is decided, then these events, nothing, or a refusal.
 *
 *   const spec = deciderSpecification(loopDecider)
 *   it("begins the first iteration", () => spec.given(started).when({ _tag: "BeginIteration" }).then([iteration(1)]))
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import { expect } from "vitest"
import { type Decider, Refused } from "../src/decider.ts"

export const deciderSpecification = <S, C>(decider: Decider<S, C>) => ({
  given: (...events: ReadonlyArray<RalphMemEvent>) => ({
    /** The state the given events fold to, for assertions on the state itself. */
    state: () => events.reduce((state, event, i) => decider.evolve(state, event, 1000 * i), decider.initialState),
    when: (command: C) => {
      const state = events.reduce((s, event, i) => decider.evolve(s, event, 1000 * i), decider.initialState)
      const outcome = decider.decide(state, command)
      return {
        then: (expected: ReadonlyArray<RalphMemEvent>) => {
          expect(outcome, outcome instanceof Refused ? outcome.message : undefined).toEqual(expected)
        },
        thenNothingHappens: () => {
          expect(outcome, outcome instanceof Refused ? outcome.message : undefined).toEqual([])
        },
        thenRefused: (reason: string | RegExp) => {
          expect(outcome).toBeInstanceOf(Refused)
          expect((outcome as Refused).message).toMatch(reason)
        },
        /** The events decided, for tests that look at them further (they fail the test when refused). */
        events: (): ReadonlyArray<RalphMemEvent> => {
          expect(outcome, outcome instanceof Refused ? outcome.message : undefined).not.toBeInstanceOf(Refused)
          return outcome as ReadonlyArray<RalphMemEvent>
        }
      }
    }
  })
})
