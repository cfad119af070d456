/**
 * Counting a payload's lists and objects before it is parsed: brackets inside strings (escaped quotes and
 * backslashes around them) do not count, and a text too short to pass the limit is not read.
 */
import { describe, expect, it } from "vitest"
import { holdsMoreContainers, MAX_JSON_CONTAINERS } from "../src/json-containers.ts"

describe("counting a payload's lists and objects", () => {
  it("counts the ones outside strings, up to the limit and past it", () => {
    const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`
    expect(holdsMoreContainers(nested(5), 5)).toBe(false)
    expect(holdsMoreContainers(nested(6), 5)).toBe(true)
    expect(holdsMoreContainers(`{"a":[{},{}],"b":{}}`, 4)).toBe(true)
    expect(holdsMoreContainers(`{"a":[{},{}],"b":{}}`, 5)).toBe(false)
  })

  it("skips strings, whatever brackets, escaped quotes and backslashes they hold", () => {
    const brackets = "[{".repeat(20)
    expect(holdsMoreContainers(`["${brackets}"]`, 5)).toBe(false)
    // An escaped quote does not end the string; an escaped backslash before a quote does.
    expect(holdsMoreContainers(`["a\\"${brackets}"]`, 5)).toBe(false)
    expect(holdsMoreContainers(`["a\\\\",${"[]".repeat(10)}]`, 5)).toBe(true)
    expect(holdsMoreContainers(`["a\\\\\\"${brackets}\\\\"]`, 5)).toBe(false)
    // A string left open is no JSON: JSON.parse refuses it without building anything.
    expect(holdsMoreContainers(`[[["${brackets}`, 5)).toBe(false)
  })

  it("does not read a text too short to hold more than the limit", () => {
    expect(holdsMoreContainers("[]".repeat(5), 5)).toBe(false)
    expect(holdsMoreContainers("[".repeat(2 * MAX_JSON_CONTAINERS))).toBe(false)
    expect(holdsMoreContainers("[".repeat(2 * MAX_JSON_CONTAINERS + 1))).toBe(true)
  })
})
