import type { Criterion } from "@ralph-mem/events"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { evaluateCriteria } from "../../src/criteria/index.ts"
import { run, tempProject } from "./helpers.ts"

const project = () =>
  tempProject({
    "pass.js": `process.exit(0)`,
    "fail.js": `console.log("FAIL src/a.test.ts > adds"); process.exit(1)`,
    // Appends "<name> start" and, 200 ms later, "<name> end" to order.log: overlapping runs would interleave.
    "step.js": `const fs = require("node:fs"); const name = process.argv[2]
fs.appendFileSync("order.log", name + " start\\n")
setTimeout(() => fs.appendFileSync("order.log", name + " end\\n"), 200)`
  })

const passing: Criterion = { kind: "test_pass", command: ["node", "pass.js"] }
const failing: Criterion = { kind: "build_success", command: ["node", "fail.js"] }
const marker: Criterion = { kind: "marker" }
const DONE = "Finished. [RALPH_SUCCESS]"

describe("evaluateCriteria", () => {
  it("runs criteria one after another, in order", async () => {
    const root = project()
    const step = (name: string): Criterion => ({ kind: "custom", command: ["node", "step.js", name] })
    const evaluation = await run(evaluateCriteria([step("a"), step("b"), step("c")], { projectRoot: root }))
    expect(evaluation.passed).toBe(true)
    expect(readFileSync(join(root, "order.log"), "utf8")).toBe("a start\na end\nb start\nb end\nc start\nc end\n")
  })

  it("runs every criterion even after one fails, and passes only if all pass", async () => {
    const root = project()
    const evaluation = await run(evaluateCriteria([failing, passing], { projectRoot: root }))
    expect(evaluation.passed).toBe(false)
    expect(evaluation.results.map((result) => [result.kind, result.passed])).toEqual([
      ["build_success", false],
      ["test_pass", true]
    ])
    expect(evaluation.results[0]?.fingerprint).toContain("FAIL src/a.test.ts > adds")
  })

  describe("the marker rule", () => {
    it("a marker alone ends the loop when found", async () => {
      const found = await run(evaluateCriteria([marker], { projectRoot: project(), lastAssistantMessage: DONE }))
      expect(found.passed).toBe(true)
      const absent = await run(evaluateCriteria([marker], { projectRoot: project(), lastAssistantMessage: "not yet" }))
      expect(absent.passed).toBe(false)
    })

    it("a found marker cannot outvote a failing command criterion, but is still recorded", async () => {
      const evaluation = await run(
        evaluateCriteria([marker, failing], { projectRoot: project(), lastAssistantMessage: DONE })
      )
      expect(evaluation.passed).toBe(false)
      expect(evaluation.results.map((result) => [result.kind, result.passed])).toEqual([
        ["marker", true],
        ["build_success", false]
      ])
    })

    it("with command criteria, passing needs them to pass as well as the marker", async () => {
      const root = project()
      expect((await run(evaluateCriteria([passing, marker], { projectRoot: root, lastAssistantMessage: DONE }))).passed)
        .toBe(true)
      expect((await run(evaluateCriteria([passing, marker], { projectRoot: root, lastAssistantMessage: "hm" }))).passed)
        .toBe(false)
    })
  })

  it("an empty list verifies nothing, so it does not pass", async () => {
    const evaluation = await run(evaluateCriteria([], { projectRoot: project() }))
    expect(evaluation).toEqual({ results: [], passed: false })
  })
})
