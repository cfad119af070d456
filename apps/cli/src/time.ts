/** Times as people type them: ISO 8601, or an age back from now in the config files' duration grammar (`7d`). */
import { parseDuration } from "@ralph-mem/settings"

/** Epoch milliseconds of an ISO 8601 time or of an age back from `now`; undefined when it is neither. */
export const pointInTime = (text: string, now: number): number | undefined => {
  const age = parseDuration(text.trim())
  if (age !== undefined) return now - age
  if (namesMissingDay(text)) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}

/**
 * Whether the text starts with a date whose month lacks that day (`2026-02-30`, `2026-04-31`): Date.parse
 * takes any day up to 31 and rolls it into the next month.
 */
const namesMissingDay = (text: string): boolean => {
  const date = /^\s*([+-]\d{6}|\d{4})-(\d{2})-(\d{2})/.exec(text)
  if (date === null) return false
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])]
  return day > daysIn(year, month)
}

const daysIn = (year: number, month: number): number => {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}
