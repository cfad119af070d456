/** Printing results: JSON for machines (`--json`), aligned text for people. */
import { findProjectRoot, homeFolder, projectStream } from "@ralph-mem/events"
import { type PathContext, relativePath, relativeText, stringsMapped } from "@ralph-mem/projections"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { inert } from "./inert.ts"

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/**
 * Characters a terminal draws two columns wide (East Asian Wide and Fullwidth): Hangul, CJK ideographs and
 * punctuation, kana, Yi, full-width forms. Padded by character count, a Korean key pushed what follows it one
 * column further right for each of its characters.
 */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x20000, 0x3fffd]
]

/**
 * A grapheme a terminal draws as an emoji, two columns wide: one with emoji presentation by default (✅, 🚀, a
 * flag's regional indicators, a ZWJ sequence starting with one), or a pictograph or keycap asked for as an
 * emoji by U+FE0F (❤️, 1️⃣), or pictographs joined by a zero-width joiner.
 */
const EMOJI = /\p{Emoji_Presentation}|\p{Emoji}\uFE0F|\p{Emoji}\u20E3|\p{Extended_Pictographic}\u200D/u

/** What a terminal draws no column for: combining marks, variation selectors, joiners and other format marks. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" })

/** The columns one grapheme takes: an emoji two, else as its first drawn character does (see `WIDE`). */
const graphemeWidth = (grapheme: string): number => {
  if (EMOJI.test(grapheme)) return 2
  for (const char of grapheme) {
    if (ZERO_WIDTH.test(char)) continue
    const code = char.codePointAt(0)!
    return WIDE.some(([low, high]) => code >= low && code <= high) ? 2 : 1
  }
  return 0
}

/**
 * How many terminal columns the text takes, grapheme by grapheme (what a user sees as one character): two
 * for a wide character or an emoji, none for a mark that draws nothing of its own, one for any other.
 */
export const displayWidth = (text: string): number => {
  let width = 0
  for (const { segment } of graphemes.segment(text)) width += graphemeWidth(segment)
  return width
}

/** The text with spaces after it up to `width` terminal columns. */
export const padToWidth = (text: string, width: number): string =>
  text + " ".repeat(Math.max(0, width - displayWidth(text)))

/**
 * `key  value` lines with the keys padded to one width, inert (see `inert`): a value may hold what a file gave (a
 * PRD's description as a loop's goal, a belief).
 */
export const printFields = (fields: ReadonlyArray<readonly [string, string | number]>) => {
  const width = Math.max(...fields.map(([key]) => displayWidth(key)))
  return Console.log(inert(fields.map(([key, value]) => `${padToWidth(key, width)}  ${value}`).join("\n")))
}

/**
 * The last line of a listing that was cut short (by `--limit` or its default): how many of how many matching it
 * shows, which end of them (`newest` or `oldest`), and the flags that show more.
 */
export const cutShortLine = (shown: number, total: number, noun: string, which: "newest" | "oldest"): string =>
  `The ${which} ${shown} of ${total} ${noun}. More: --limit N (the ${which} N), --all (every one).`

/** Writes a JSON array item by item, so a long listing never has to sit in memory. */
export const jsonArrayWriter = () => {
  let first = true
  return {
    item: (value: unknown) =>
      Effect.sync(() => {
        process.stdout.write(`${first ? "[\n  " : ",\n  "}${JSON.stringify(value)}`)
        first = false
      }),
    end: Effect.sync(() => process.stdout.write(first ? "[]\n" : "\n]\n"))
  }
}

let pathContext: PathContext | undefined

/**
 * Text as the user (or Claude, running a command) reads it: paths relative to the project the command
 * runs in, the home folder as `~`. The log and `--json` keep full paths.
 */
const readingContext = () => (pathContext ??= {
  project: findProjectRoot(process.cwd()),
  home: homeFolder(process.env)
})

export { inert }

export const forReading = (text: string): string => inert(relativeText(text, readingContext()))

/** Every string of plain data for reading (see `forReading`): before a listing cuts its lines short. */
export const valuesForReading = <T>(value: T): T => stringsMapped(value, forReading)

/**
 * A stream id for reading: a belief's or task's project as a path for reading (this project: `belief:.#stack`),
 * any other stream id as `forReading` has it. The log and `--json` keep the id whole.
 */
export const streamForReading = (streamId: string): string => {
  const stream = projectStream(streamId)
  return stream === undefined
    ? forReading(streamId)
    : `${stream.kind}:${relativePath(stream.project, readingContext())}#${stream.name}`
}

/** Console.log of text for reading (see `forReading`). */
export const printText = (text: string) => Console.log(forReading(text))
