/** How the memory tools show observations and search hits: one line each, or in full. */
import { forgottenEventIds, formatTime, type MemoryStore, oneLine } from "@ralph-mem/projections"
import type { IndexHit, ObservationDetail } from "@ralph-mem/projections/search"

export const quoted = (value: string) => JSON.stringify(oneLine(value, 200))

const what = (d: ObservationDetail) => [d.toolName, d.inputSummary].filter(Boolean).join(" ")

/** One observation on one line: id, time, kind, what ran, and the start of what it said. */
export const observationLine = (d: ObservationDetail, chars: number, mark = "-") => {
  const action = what(d)
  const body = d.errorMessage !== null && !d.content.includes(d.errorMessage)
    ? `${d.errorMessage}: ${d.content}`
    : d.content
  const ran = action === "" ? "" : `\`${oneLine(action, 160)}\`: `
  return `${mark} ${d.id} ${formatTime(d.createdAt)} [${d.type}] ${ran}${oneLine(body, chars)}`
}

/** An observation in full: what layer 3 shows. */
export const observationInFull = (d: ObservationDetail) =>
  [
    `## ${d.id} [${d.type}] ${formatTime(d.createdAt)}${d.sessionId === null ? "" : `, session ${d.sessionId}`}`,
    ...(d.toolName === null ? [] : [`tool: ${d.toolName}`]),
    ...(d.inputSummary === null ? [] : [`input: ${d.inputSummary}`]),
    ...(d.errorMessage === null ? [] : [`error: ${d.errorMessage}`]),
    ...(d.files.length === 0 ? [] : [`files: ${d.files.join(", ")}`]),
    ...(d.metadata["truncated"] === true ? ["(the output was trimmed when it was recorded)"] : []),
    d.content
  ].join("\n")

export const hitLine = (hit: IndexHit, rank: number) =>
  `${rank}. ${hit.id} ${formatTime(hit.createdAt)} [${hit.kind === "session" ? "session summary" : hit.type}] ` +
  hit.title

export const idList = (ids: ReadonlyArray<string>) => JSON.stringify(ids)

/** The closing line of an answer whose one item was cut to fit: the command that prints it whole, run in Bash. */
export const cutShort = (budget: number, command: string) =>
  `Cut short to fit ${budget} tokens; \`${command}\` (Bash) prints it whole.`

/**
 * The closing lines of an answer whose first item alone may be cut (`fullCommand` prints it whole) and whose later
 * items may be left out (`leftOut` says how to reach them).
 */
export const cutOrLeftOut =
  (budget: number, fullCommand: string, leftOut: (omitted: number) => string) =>
  ({ omitted, clipped }: { readonly omitted: number; readonly clipped: boolean }): string =>
    [clipped ? cutShort(budget, fullCommand) : undefined, omitted === 0 ? undefined : leftOut(omitted)]
      .filter(Boolean)
      .join("\n")

/** Unknown and forgotten ids, said apart: a forgotten one is gone for good, an unknown one may be mistyped. */
export const missingLine = (db: MemoryStore["db"], missing: ReadonlyArray<string>) => {
  if (missing.length === 0) return undefined
  const forgotten = forgottenEventIds(db, missing)
  const unknown = missing.filter((id) => !forgotten.has(id))
  return [
    forgotten.size === 0
      ? undefined
      : `Forgotten (erased from memory by ralph-mem forget; nothing of them is left): ${[...forgotten].join(", ")}.`,
    unknown.length === 0
      ? undefined
      : `No observation with id ${unknown.join(", ")} in this memory (ids come from search and timeline).`
  ]
    .filter((line) => line !== undefined)
    .join("\n")
}
