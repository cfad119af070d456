import { describe, expect, it } from "vitest"
import { extractFailures, fingerprintFailure, normalizeLine } from "../src/failures/fingerprint.ts"

const vitestRun = (opts: { ms: number; clock: string; line: number; tmp: string; failing: ReadonlyArray<string> }) =>
  [
    `\u001b[31m FAIL \u001b[39m src/auth.test.ts > auth > ${opts.failing[0]}`,
    ...opts.failing.map((name) => `   × ${name} ${opts.ms}ms`),
    `   ✓ logs in ${opts.ms + 3}ms`,
    `AssertionError: expected 401 to be 200`,
    ` ❯ ${opts.tmp}/src/auth.test.ts:${opts.line}:17`,
    ` Test Files  1 failed (1)`,
    `   Start at  ${opts.clock}`,
    `   Duration  ${(opts.ms / 1000).toFixed(2)}s (transform ${opts.ms}ms, setup 0ms)`
  ].join("\n")

describe("fingerprintFailure", () => {
  it("is the same when only durations, clock times, line numbers and temp folders differ", () => {
    const first = vitestRun({ ms: 12, clock: "10:21:33", line: 42, tmp: "/tmp/vitest-a1b2", failing: ["refreshes"] })
    const second = vitestRun({ ms: 3401, clock: "23:02:07", line: 57, tmp: "/tmp/vitest-zz99", failing: ["refreshes"] })
    expect(first).not.toBe(second)
    expect(fingerprintFailure(first)).toBe(fingerprintFailure(second))
  })

  it("differs when a different test fails, or one more does", () => {
    const base = { ms: 12, clock: "10:21:33", line: 42, tmp: "/tmp/x" }
    const refreshes = fingerprintFailure(vitestRun({ ...base, failing: ["refreshes"] }))
    expect(fingerprintFailure(vitestRun({ ...base, failing: ["logs out"] }))).not.toBe(refreshes)
    expect(fingerprintFailure(vitestRun({ ...base, failing: ["refreshes", "logs out"] }))).not.toBe(refreshes)
  })

  it("does not depend on the order failures were printed in", () => {
    const a = "--- FAIL: TestA (0.01s)\n--- FAIL: TestB (0.20s)"
    const b = "--- FAIL: TestB (1.50s)\n--- FAIL: TestA (0.00s)"
    expect(fingerprintFailure(a)).toBe(fingerprintFailure(b))
  })

  it("reads as a 16-hex digest and the first failure, without escape codes or timings", () => {
    const fingerprint = fingerprintFailure(
      vitestRun({ ms: 12, clock: "10:21:33", line: 42, tmp: "/tmp/x", failing: ["refreshes"] })
    )
    expect(fingerprint).toBe(`${fingerprint.slice(0, 16)} FAIL src/auth.test.ts > auth > refreshes`)
    expect(fingerprint.slice(0, 16)).toMatch(/^[0-9a-f]{16}$/)
  })

  it("makes project paths relative", () => {
    const a = fingerprintFailure("/home/me/proj/src/a.ts(3,5): error TS2322: nope", { projectRoots: ["/home/me/proj"] })
    const b = fingerprintFailure("src/a.ts(9,1): error TS2322: nope")
    expect(a).toBe(b)
  })

  it("falls back to the first three error lines, then to the given reason", () => {
    const output = "building...\nError: cannot find module 'x'\nsomething error-ish\nerror three\nerror four"
    const fourth = fingerprintFailure(output)
    expect(fingerprintFailure(output.replace("error four", "error five"))).toBe(fourth)
    expect(fingerprintFailure(output.replace("error three", "error 3"))).not.toBe(fourth)
    expect(fingerprintFailure("", { fallback: "exit code 2" })).toMatch(/^[0-9a-f]{16} exit code 2$/)
  })

  it("always includes how a run ended when told to", () => {
    const output = "--- FAIL: TestA (0.01s)"
    expect(fingerprintFailure(output, { alwaysInclude: ["timed out"] })).not.toBe(fingerprintFailure(output))
  })
})

describe("extractFailures per tool", () => {
  const extract = (output: string) => extractFailures(output.split("\n")).map((line) => normalizeLine(line, []))

  it.each(
    [
      ["vitest", " FAIL  src/a.test.ts > suite > adds 12ms\n   × adds 3ms", [
        "FAIL src/a.test.ts > suite > adds",
        "× adds"
      ]],
      ["jest", "FAIL src/a.test.js (5.123 s)\n  ✕ adds (4 ms)\n  ● Console\n  ● suite › adds", [
        "FAIL src/a.test.js",
        "× adds",
        "● suite › adds"
      ]],
      ["pytest", "FAILED tests/test_a.py::test_adds - assert 3 == 4\nERROR tests/test_b.py::test_db", [
        "FAILED tests/test_a.py::test_adds",
        "ERROR tests/test_b.py::test_db"
      ]],
      ["go test", "--- FAIL: TestAdds (0.00s)\nFAIL\texample.com/calc\t0.004s", [
        "--- FAIL: TestAdds",
        "FAIL example.com/calc"
      ]],
      ["cargo test", "test tests::adds ... FAILED\ntest tests::subs ... ok", ["test tests::adds ... FAILED"]],
      [
        "tsc",
        "src/a.ts(3,5): error TS2322: Type 'string' is not assignable\n"
        + "src/b.ts:7:1 - error TS2304: Cannot find name 'x'.",
        ["src/a.ts error TS2322", "src/b.ts error TS2304"]
      ],
      [
        "eslint stylish",
        "/repo/src/a.js\n  1:10  error  'x' is defined but never used  no-unused-vars\n"
        + "  4:2   warning  Unexpected console  no-console",
        ["/repo/src/a.js error no-unused-vars", "/repo/src/a.js warning no-console"]
      ],
      ["eslint unix", "src/a.js:1:10: 'x' is defined but never used. [Error/no-unused-vars]", [
        "src/a.js error no-unused-vars"
      ]],
      ["mypy", "src/a.py:3: error: Incompatible types in assignment  [assignment]", ["src/a.py error [assignment]"]],
      ["ruff", "src/a.py:1:8: F401 [*] `os` imported but unused", ["src/a.py F401"]],
      ["rustc", "error[E0308]: mismatched types\n --> src/main.rs:3:5", ["error[E0308]: mismatched types"]]
    ] as const
  )("%s", (_, output, expected) => {
    expect(extract(output)).toEqual(expected)
  })
})

describe("normalizeLine", () => {
  it("strips durations, timestamps, line:column, temp folders and addresses", () => {
    expect(normalizeLine("2026-11-22T02:36:36.123Z at /tmp/tmp.Ab12/src/a.ts:12:5 took 35ms ptr 0x7ffd1234", [])).toBe(
      "<time> at <tmp>/src/a.ts took ptr 0x"
    )
    expect(normalizeLine("/var/folders/xy/abc123/T/vitest-9/src/a.ts line 4, col 2", [])).toBe("<tmp>/src/a.ts line")
  })
})
