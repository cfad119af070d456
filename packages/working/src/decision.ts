/** Recording a decision: what was decided, why, and the alternatives rejected (`option: why not`). */
import type { Alternative, DecisionImpact, RalphMemEvent } from "@ralph-mem/events"
import { refuse, type Refused } from "@ralph-mem/projections"

export interface DecisionInput {
  readonly decisionId: string
  readonly projectPath: string
  readonly decision: string
  readonly rationale: string
  /** As typed: `<option>: <why it was rejected>`, or just the option. */
  readonly alternatives: ReadonlyArray<string>
  readonly impact: DecisionImpact
  readonly taskId?: string
}

/**
 * `Redis: too heavy for one user` -> the option and why it lost: the first `:` that ends the text or comes before a
 * space separates them (so URLs survive).
 */
const parseAlternative = (text: string): Alternative | Refused => {
  const split = /^(.*?):(?:\s+(.*))?$/s.exec(text.trim())
  const option = (split?.[1] ?? text).trim()
  const rejectedBecause = split?.[2]?.trim() ?? ""
  if (option === "") {
    return refuse(`--alternative ${JSON.stringify(text)} names no option; write "<option>: <why it was rejected>"`)
  }
  return rejectedBecause === "" ? { option } : { option, rejectedBecause }
}

export const decideDecision = (input: DecisionInput): ReadonlyArray<RalphMemEvent> | Refused => {
  const decision = input.decision.trim()
  const rationale = input.rationale.trim()
  if (decision === "") return refuse("the decision is empty")
  if (rationale === "") return refuse("the rationale is empty: say why with --why")
  const alternatives: Array<Alternative> = []
  for (const text of input.alternatives) {
    const alternative = parseAlternative(text)
    if (!("option" in alternative)) return alternative
    alternatives.push(alternative)
  }
  return [{
    _tag: "DecisionRecorded",
    decisionId: input.decisionId,
    projectPath: input.projectPath,
    decision,
    rationale,
    alternatives,
    impact: input.impact,
    ...(input.taskId === undefined ? {} : { taskId: input.taskId })
  }]
}
