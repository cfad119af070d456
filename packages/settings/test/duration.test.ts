import { describe, expect, it } from "vitest"
import { formatDuration, parseDuration } from "../src/index.ts"

describe("durations", () => {
  it("read seconds, minutes, hours, days and milliseconds", () => {
    expect(parseDuration("90s")).toBe(90_000)
    expect(parseDuration("30m")).toBe(1_800_000)
    expect(parseDuration("2h")).toBe(7_200_000)
    expect(parseDuration("1d")).toBe(86_400_000)
    expect(parseDuration("250ms")).toBe(250)
  })

  it("read weeks, which the command line's ages use", () => expect(parseDuration("2w")).toBe(1_209_600_000))

  it("read compound and fractional forms", () => {
    expect(parseDuration("1h30m")).toBe(5_400_000)
    expect(parseDuration("1.5s")).toBe(1_500)
  })

  it("refuse bare numbers, spaces, unknown units and empty text", () => {
    for (const text of ["30", "30 m", "30min", "m", "", "-5s", "1h 30m"]) expect(parseDuration(text)).toBeUndefined()
  })

  it("print the shortest exact spelling", () => {
    expect(formatDuration(3_600_000)).toBe("1h")
    expect(formatDuration(5_400_000)).toBe("90m")
    expect(formatDuration(90_000)).toBe("90s")
    expect(formatDuration(1_500)).toBe("1500ms")
    expect(formatDuration(86_400_000)).toBe("1d")
  })

  it("round-trip through parse", () => {
    for (const ms of [1, 999, 1_000, 61_000, 7_200_000]) expect(parseDuration(formatDuration(ms))).toBe(ms)
  })
})
