/** Every read model, in the order they are applied. */
import { failures } from "./failures/projection.ts"
import { loopRuns } from "./loop-runs.ts"
import { observations } from "./observations.ts"
import type { Projection } from "./projection.ts"
import { sessions } from "./sessions.ts"
import { beliefs } from "./working/beliefs.ts"
import { decisions } from "./working/decisions.ts"
import { tasks } from "./working/tasks.ts"

export const allProjections: ReadonlyArray<Projection> = [
  sessions,
  observations,
  loopRuns,
  failures,
  decisions,
  beliefs,
  tasks
]
