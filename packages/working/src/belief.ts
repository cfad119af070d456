/** A belief's stream holds its values over time: its state is the current value, if it is set. */
import type { RalphMemEvent } from "@ralph-mem/events"
import { type Decider, refuse, type Refused } from "@ralph-mem/projections"

export type BeliefState = string | undefined

export type BeliefCommand =
  | { readonly _tag: "Set"; readonly projectPath: string; readonly key: string; readonly value: string }
  | { readonly _tag: "Unset"; readonly projectPath: string; readonly key: string }

const evolveBelief = (state: BeliefState, event: RalphMemEvent): BeliefState =>
  event._tag === "BeliefSet" ? event.value : event._tag === "BeliefUnset" ? undefined : state

/** Setting the value a belief already has changes nothing (no event); unsetting one that is not set is refused. */
const decideBelief = (state: BeliefState, command: BeliefCommand): ReadonlyArray<RalphMemEvent> | Refused => {
  if (command._tag === "Unset") {
    return state === undefined
      ? refuse(`there is no belief ${command.key}`)
      : [{ _tag: "BeliefUnset", projectPath: command.projectPath, key: command.key }]
  }
  const value = command.value.trim()
  if (value === "") {
    return refuse(`the value of ${command.key} is empty (to remove a belief: ralph-mem belief unset ${command.key})`)
  }
  return value === state ? [] : [{ _tag: "BeliefSet", projectPath: command.projectPath, key: command.key, value }]
}

export const beliefDecider: Decider<BeliefState, BeliefCommand> = {
  initialState: undefined,
  evolve: evolveBelief,
  decide: decideBelief
}
