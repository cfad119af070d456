/**
 * No-progress detection on real outputs: two runs of the same failure must get one fingerprint, whatever
 * noise they print (durations, temp folders, pids, race addresses, goroutine numbers, shifted lines), and a
 * run where something else fails must get another, or a real change would be taken for no progress.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fingerprintFailure } from "../../src/criteria/index.ts"

const TOOLS = ["jest", "pytest", "go", "cargo", "tsc"] as const

const run = (tool: string, name: string) =>
  readFileSync(join(import.meta.dirname, "fixtures", tool, `${name}.txt`), "utf8")
const fingerprint = (tool: string, name: string) =>
  fingerprintFailure(run(tool, name), { projectRoots: [`/tmp/fp/${tool}`] })

describe.each(TOOLS)("the fingerprint of a real %s failure", (tool) => {
  it("is the same for two runs of the same failure, though their outputs differ", () => {
    expect(run(tool, "run1")).not.toBe(run(tool, "run2"))
    expect(fingerprint(tool, "run1")).toBe(fingerprint(tool, "run2"))
  })

  it("changes when another test fails too", () => {
    expect(fingerprint(tool, "other")).not.toBe(fingerprint(tool, "run1"))
  })

  it("names what failed, not the noise", () => {
    expect(fingerprint(tool, "run1")).not.toMatch(/\d+(\.\d+)?\s?m?s\b|0x[0-9a-f]{4,}|pytest-\d|goroutine \d/)
  })
})
