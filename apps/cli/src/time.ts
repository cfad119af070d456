/** Times as people type them: ISO 8601, or an age back from now in the config files' duration grammar (`7d`). */
import { parseDuration } from "@ralph-mem/settings"

/** Epoch milliseconds of an ISO 8601 time or of an age back from `now`; undefined when it is neither. */
export const pointInTime = (text: string, now: number): number | undefined => {
  const age = parseDuration(text.trim())
  if (age !== undefined) return now - age
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}
