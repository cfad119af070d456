/** Every read model, in the order they are applied. */
import { loopRuns } from "./loop-runs.ts"
import { observations } from "./observations.ts"
import type { Projection } from "./projection.ts"
import { sessions } from "./sessions.ts"

export const allProjections: ReadonlyArray<Projection> = [sessions, observations, loopRuns]
