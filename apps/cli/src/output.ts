/** Printing results: JSON for machines (`--json`), aligned text for people. */
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
