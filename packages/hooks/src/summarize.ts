/**
 * The default session summariser: local and deterministic (no network, no model, no cost). It keeps
 * what a later session needs: the goal, what failed, what passed, and the files touched.
 */
import { type ObservationHit, oneLine } from "@ralph-mem/projections"

export const LOCAL_SUMMARIZER = "local-v1"

export interface SessionFacts {
  readonly goal: string | undefined
  readonly observations: ReadonlyArray<ObservationHit & { readonly files: string }>
}


export const summarizeSession = ({ goal, observations }: SessionFacts): string | undefined => {
  const errors = observations.filter((o) => o.type === "error")
  const successes = observations.filter((o) => o.type === "success")
  const files = [...new Set(observations.flatMap((o) => JSON.parse(o.files) as Array<string>))]
  const describe = (o: ObservationHit) => oneLine([o.inputSummary ?? o.toolName, o.errorMessage ?? o.content].filter(Boolean).join(": "), 120)
  const parts = [
    goal === undefined ? undefined : `Goal: ${oneLine(goal, 200).replace(/[.!?\u2026]+$/, "")}`,
    errors.length === 0 ? undefined : `Errors (${errors.length}): ${errors.slice(-3).map(describe).join("; ")}`,
    successes.length === 0 ? undefined : `Passed (${successes.length}): ${successes.slice(-3).map(describe).join("; ")}`,
    files.length === 0 ? undefined : `Files: ${files.slice(0, 12).join(", ")}${files.length > 12 ? ` and ${files.length - 12} more` : ""}`
  ].filter((p): p is string => p !== undefined)
  return parts.length === 0 ? undefined : parts.join(". ")
}
