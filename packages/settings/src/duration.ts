/**
 * The one duration grammar, in config files and in every flag (`--idle`, `--max-duration`, `--since 7d`):
 * short strings ("90s", "30m", "2h", "1h30m", "7d", "2w"), read as milliseconds; "0" is zero.
 * Any other bare number is refused on purpose: "timeout: 30" could mean seconds or minutes.
 */

const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const

/** "0", or one or more `<number><unit>` parts, no spaces; `ms` is listed before `m` and `s` so it wins. */
export const durationPattern = /^(?:0|(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+)$/

const durationPart = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g

/** How to write one, for error messages. */
export const DURATION_EXAMPLES = "90s, 30m, 12h, 7d, 2w or 1h30m"

/** Milliseconds, or undefined when the text is not a duration. */
export const parseDuration = (text: string): number | undefined => {
  if (!durationPattern.test(text)) return undefined
  let total = 0
  for (const [, amount, unit] of text.matchAll(durationPart)) {
    total += Number(amount) * unitMs[unit as keyof typeof unitMs]
  }
  return Math.round(total)
}

/** The shortest exact spelling, largest unit first: 5_400_000 -> "90m", 1_500 -> "1500ms". */
export const formatDuration = (ms: number): string => {
  for (const unit of ["w", "d", "h", "m", "s"] as const) {
    if (ms > 0 && ms % unitMs[unit] === 0) return `${ms / unitMs[unit]}${unit}`
  }
  return `${ms}ms`
}
