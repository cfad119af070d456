/** Printing results: JSON for machines (`--json`), aligned text for people. */
import { findProjectRoot } from "@ralph-mem/events"
import { type PathContext, relativeText, relativeValues } from "@ralph-mem/projections"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** `key  value` lines with the keys padded to one width. */
export const printFields = (fields: ReadonlyArray<readonly [string, string | number]>) => {
  const width = Math.max(...fields.map(([key]) => key.length))
  return Console.log(fields.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n"))
}

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
  home: process.env["HOME"] ?? process.env["USERPROFILE"]
})

export const forReading = (text: string): string => relativeText(text, readingContext())

/** Every string of plain data for reading (see `forReading`): before a listing cuts its lines short. */
export const valuesForReading = <T>(value: T): T => relativeValues(value, readingContext())

/** Console.log of text for reading (see `forReading`). */
export const printText = (text: string) => Console.log(forReading(text))
