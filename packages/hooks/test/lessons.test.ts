import {
  type Activity,
  estimateTokens,
  type FailureRecord,
  recogniseFailure,
  type Resolution
} from "@ralph-mem/projections"
import { describe, expect, it } from "vitest"
import { fitToBudget, type InjectionItem, untold } from "../src/inject.ts"
import { currentFailure, fixParts, RECALL_BUDGET, recallMatch, recallText, splitFailures } from "../src/lessons.ts"
import { changedLines } from "../src/observe.ts"

const T0 = Date.parse("2026-11-20T09:00:00Z")
const VITEST = "Exit code 1\n FAIL  src/auth.test.ts > login > refreshes the token\nTokenExpiredError: jwt expired"

const resolution = (position: number): Resolution => ({
  position,
  eventId: `pass-${position}`,
  at: T0 + position * 1000
})
/** A failure as the read model keeps it: recognised from its output (VITEST unless given) as the fold does. */
const failure = (
  position: number,
  { output = VITEST, ...fields }: Partial<FailureRecord> & { readonly output?: string } = {}
): FailureRecord => ({
  position,
  eventId: `fail-${position}`,
  sessionId: "s1",
  family: "test",
  command: "npm test -- auth",
  ...recogniseFailure(output),
  failedAt: T0 + position * 1000,
  resolution: null,
  ...fields
})
const nothing: Activity = { edits: [], commands: [], notes: [], decisions: [] }
const item = (at: number, eventId: string, text: string) => ({ position: at, eventId, text })

describe("splitting failures into open errors and lessons", () => {
  it("gives one open error per command (latest, with how often), one lesson per passing run, newest first", () => {
    const { open, lessons } = splitFailures([
      failure(9),
      failure(8, { command: "npm run lint", family: "lint" }),
      failure(7),
      failure(5, { resolution: resolution(6) }),
      failure(4, { command: "npm test", resolution: resolution(6) }),
      failure(2, { resolution: resolution(3) })
    ])
    expect(open.map((o) => [o.latest.position, o.times, o.sources])).toEqual([
      [9, 2, ["fail-9", "fail-7"]],
      [8, 1, ["fail-8"]]
    ])
    expect(lessons.map((l) => [l.failure.position, l.resolution.position, l.sources])).toEqual([
      [5, 6, ["pass-6", "fail-5", "fail-4"]],
      [2, 3, ["pass-3", "fail-2"]]
    ])
  })
})

describe("recalling a failure seen before", () => {
  const fixed = failure(2, { resolution: resolution(5) })

  it("matches the same failure of the same family, resolved, by what failed", () => {
    expect(recallMatch(currentFailure("npm test -- auth 2>&1 | tail", VITEST.replace("Exit code 1", "")), [fixed]))
      .toBe(fixed)
    // Another command of the family failing the same way is the same failure.
    expect(recallMatch(currentFailure("npx vitest run src/auth.test.ts", VITEST), [fixed])).toBe(fixed)
  })

  it("never matches a failure never fixed, another family, another failure, or a failure that names nothing", () => {
    expect(recallMatch(currentFailure("npm test -- auth", VITEST), [failure(2)])).toBeUndefined()
    expect(recallMatch(currentFailure("npm run build", VITEST), [fixed])).toBeUndefined()
    expect(
      recallMatch(currentFailure("npm test", "Exit code 1\n FAIL  src/parser.test.ts > dates\nSyntaxError: bad"), [
        fixed
      ])
    ).toBeUndefined()
    const silent = failure(2, { output: "Exit code 1", resolution: resolution(5) })
    expect(recallMatch(currentFailure("npm test -- auth", "Exit code 1"), [silent])).toBeUndefined()
  })

  it("matches a command that is not a check only when it is the same command", () => {
    const seed = failure(2, {
      family: "command",
      command: "node seed.js",
      output: "Error: connect ECONNREFUSED 127.0.0.1:5432",
      resolution: resolution(4)
    })
    expect(recallMatch(currentFailure("node seed.js", "Error: connect ECONNREFUSED 127.0.0.1:5432"), [seed])).toBe(seed)
    expect(recallMatch(currentFailure("node other.js", "Error: connect ECONNREFUSED 127.0.0.1:5432"), [seed]))
      .toBeUndefined()
  })

  it("says when, what failed, what came between and the ids, within its budget however much happened", () => {
    const activity: Activity = {
      edits: [item(4, "e4", "/work/app/src/auth.ts"), item(3, "e3", "/work/app/src/token.ts")],
      commands: [item(4, "c4", "grep -n expiresIn src/auth.ts")],
      notes: [item(3, "n3", "tokens live an hour")],
      decisions: []
    }
    const text = recallText({ ...fixed, resolution: resolution(5) }, activity, "/work/app")
    expect(text).toBe(
      "ralph-mem: this failure was seen before. 2026-11-20 09:00 `npm test -- auth` failed @2: " +
        "FAIL src/auth.test.ts > login > refreshes the token: TokenExpiredError: jwt expired. " +
        "It passed 2026-11-20 09:00 @5 after: " +
        "edited src/auth.ts @4, src/token.ts @3; noted \"tokens live an hour\" @3; " +
        "ran `grep -n expiresIn src/auth.ts` @4. " +
        "Open any @id with ralph-mem show <id>."
    )
    const busy: Activity = {
      edits: Array.from(
        { length: 3 },
        (_, i) => item(i, `e${i}`, `/work/app/src/${"deeply/nested/".repeat(8)}file${i}.ts`)
      ),
      commands: Array.from({ length: 3 }, (_, i) => item(i, `c${i}`, "x".repeat(300))),
      notes: Array.from({ length: 3 }, (_, i) => item(i, `n${i}`, "a long note ".repeat(40))),
      decisions: Array.from({ length: 3 }, (_, i) => item(i, `d${i}`, "a long decision ".repeat(40)))
    }
    const long = recallText({ ...fixed, resolution: resolution(5) }, busy, "/work/app")
    expect(estimateTokens(long)).toBeLessThanOrEqual(RECALL_BUDGET)
    expect(long).toMatch(/after: edited …\S*\/nested\/file0\.ts @0, …\S*\/file1\.ts @1/)
    expect(recallText({ ...fixed, resolution: resolution(5) }, nothing, "/work/app")).toContain(
      "It passed 2026-11-20 09:00 @5. Open"
    )
  })

  it("shows what an edit changed: the new lines, bounded, or the lines a deletion took", () => {
    const fix = {
      ...item(4, "e4", "/work/app/src/db/client.ts"),
      change: "- new Pool({ max: 10 })\n+ new Pool({ max: 40 })"
    }
    expect(fixParts({ ...nothing, edits: [fix] }, "/work/app", 3)).toEqual([
      "edited src/db/client.ts (`new Pool({ max: 40 })`) @4"
    ])
    const fixture = "- @pytest.fixture\ndef engine():\n+ @pytest.fixture(scope=\"session\")\ndef engine():"
    expect(changedLines(fixture)).toEqual(["@pytest.fixture(scope=\"session\")"])
    expect(changedLines("- a\nb\nc\n+ a\nc")).toEqual(["- b"])
    expect(changedLines("+ export const x = 1")).toEqual(["export const x = 1"])
    expect(changedLines("created src/x.ts (3 lines)")).toBeUndefined()
    const long = { ...fix, change: `- x\n+ ${"y".repeat(500)}` }
    const [part] = fixParts({ ...nothing, edits: [long] }, "/work/app", 3)
    expect(part!.length).toBeLessThan(160)
    // A Write records no code: only its file is named.
    const written = { ...item(5, "w5", "/work/app/src/x.ts"), change: "created /work/app/src/x.ts (3 lines)" }
    expect(fixParts({ ...nothing, edits: [written] }, "/work/app", 3)).toEqual(["edited src/x.ts @5"])
  })

  it("names edits relative to the project and leaves out what was not recorded", () => {
    expect(fixParts({ ...nothing, edits: [item(4, "e4", "/elsewhere/x.ts")] }, "/work/app", 3)).toEqual([
      "edited /elsewhere/x.ts @4"
    ])
    expect(fixParts(nothing, "/work/app", 3)).toEqual([])
  })
})

describe("nothing told twice", () => {
  const items: Array<InjectionItem> = [
    { section: "A", full: "- a", compact: "- a", sources: ["e1"] },
    { section: "A", full: "- b", compact: "- b", sources: ["e1", "e2"] },
    { section: "B", full: "- c", compact: "- c" }
  ]

  it("leaves out an item whose every source was told, keeps one with something new, and items without sources", () => {
    expect(untold(items, new Set(["e1"])).map((i) => i.full)).toEqual(["- b", "- c"])
    expect(untold(items, new Set(["e1", "e2"])).map((i) => i.full)).toEqual(["- c"])
    expect(fitToBudget(untold(items.slice(0, 2), new Set(["e1", "e2"])), 1000)).toBeUndefined()
  })
})
