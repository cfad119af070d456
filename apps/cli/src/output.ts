/** Printing results: JSON for machines (`--json`), aligned text for people. */
import * as Console from "effect/Console"

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** `key  value` lines with the keys padded to one width. */
export const printFields = (fields: ReadonlyArray<readonly [string, string | number]>) => {
  const width = Math.max(...fields.map(([key]) => key.length))
  return Console.log(fields.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n"))
}
