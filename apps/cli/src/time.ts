/** Times as people type them: ISO 8601, or an age back from now (`30m`, `12h`, `7d`, `2w`). */

const AGE = /^(\d+)\s*(m|h|d|w)$/
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const

/** An age (`30m`, `12h`, `7d`, `2w`) in milliseconds, or undefined when the text is not one. */
export const ageMs = (text: string): number | undefined => {
  const age = AGE.exec(text.trim())
  return age === null ? undefined : Number(age[1]) * UNIT_MS[age[2] as keyof typeof UNIT_MS]
}

/** Epoch milliseconds of an ISO 8601 time or of an age back from `now`; undefined when it is neither. */
export const pointInTime = (text: string, now: number): number | undefined => {
  const age = ageMs(text)
  if (age !== undefined) return now - age
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}
