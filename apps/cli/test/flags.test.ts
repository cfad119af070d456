/** Duration and time flags read the one duration grammar of settings, leniently about spaces. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import { parseDurationFlag, parseTime } from "../src/flags.ts"

const run = <A>(effect: Effect.Effect<A, { readonly message: string }>) =>
  Effect.runSync(Effect.match(effect, { onFailure: (e) => `error: ${e.message}`, onSuccess: (a) => a }))

describe("duration flags", () => {
  it("read 0 and every unit of the grammar, weeks included", () => {
    expect(run(parseDurationFlag("idle", "0"))).toBe(0)
    expect(run(parseDurationFlag("idle", "30m"))).toBe(1_800_000)
    expect(run(parseDurationFlag("idle", "2w"))).toBe(1_209_600_000)
    expect(run(parseDurationFlag("idle", "1h30m"))).toBe(5_400_000)
  })

  it("allow spaces a user types", () => expect(run(parseDurationFlag("idle", " 7 d "))).toBe(604_800_000))

  it("refuse a bare number other than 0", () =>
    expect(run(parseDurationFlag("idle", "30"))).toMatch(/--idle "30" is not a duration/))
})

describe("time flags", () => {
  const now = Date.UTC(2026, 10, 20)

  it("read an age back from now", () => expect(run(parseTime("since", Option.some("7d"), now))).toBe(now - 604_800_000))

  it("read ISO 8601", () =>
    expect(run(parseTime("since", Option.some("2026-11-19T00:00:00Z"), now))).toBe(Date.UTC(2026, 10, 19)))

  it("refuse what is neither", () =>
    expect(run(parseTime("since", Option.some("last week"), now))).toMatch(/--since "last week" is not a date/))
})
