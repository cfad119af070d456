/** The decider for PRD loops (one story per iteration) and plan loops (the plan saved with the success). */
import type { CriterionResult, LoopConfig, PrdStory, RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { goalMet, nextStory } from "../src/state.ts"
import { given, refusal } from "./given.ts"

const config: LoopConfig = { maxIterations: 10, noProgressThreshold: 3, cooldownMs: 0, contextBudget: 0.6, successCriteria: [{ kind: "test_pass" }] }
const L = "l1"
const story = (id: string, priority: number, passes = false): PrdStory => ({ id, title: `story ${id}`, description: "", acceptanceCriteria: [], priority, passes })
const stories = [story("US-001", 2), story("US-002", 1), story("US-003", 3, true), story("US-004", 1)]
const prdStarted: RalphMemEvent = { _tag: "LoopStarted", loopId: L, goal: "the PRD", projectPath: "/p", driver: "external", config, prd: { path: "/p/prd.json", stories } }
const planStarted: RalphMemEvent = { _tag: "LoopStarted", loopId: L, goal: "a plan", projectPath: "/p", driver: "session", sessionId: "s1", config, plan: { path: "/p/plan.md" } }
const results = (passed: boolean): ReadonlyArray<CriterionResult> => [{ kind: "test_pass", passed, durationMs: 1, outputTail: "" }]
const begun = (n: number, storyId?: string): RalphMemEvent => ({ _tag: "LoopIterationStarted", loopId: L, iteration: n, ...(storyId === undefined ? {} : { storyId }) })
const evaluated = (n: number, passed: boolean): RalphMemEvent => ({ _tag: "LoopCriteriaEvaluated", loopId: L, iteration: n, results: results(passed) })
const completed = (n: number, passed: boolean): RalphMemEvent => ({ _tag: "LoopIterationCompleted", loopId: L, iteration: n, passed, filesChanged: [] })
const storyPassed = (n: number, storyId: string): RalphMemEvent => ({ _tag: "LoopStoryPassed", loopId: L, storyId, iteration: n })


describe("a PRD loop", () => {
  it("works on the highest-priority story that does not pass; file order breaks ties", () => {
    expect(given(prdStarted).when({ _tag: "BeginIteration" })).toEqual([begun(1, "US-002")])
    const afterFirst = given(prdStarted, begun(1, "US-002"), evaluated(1, true), completed(1, true), storyPassed(1, "US-002"))
    expect(afterFirst.when({ _tag: "BeginIteration" })).toEqual([begun(2, "US-004")])
  })

  it("stays on a story until the harness's criteria pass for it", () => {
    const failed = given(prdStarted, begun(1, "US-002"), evaluated(1, false), completed(1, false))
    expect(failed.when({ _tag: "BeginIteration" })).toEqual([begun(2, "US-002")])
  })

  it("marks the story passing in the same append as a passing iteration, and only then", () => {
    const open = given(prdStarted, begun(1, "US-002"), evaluated(1, true))
    expect(open.when({ _tag: "CompleteIteration", passed: true, filesChanged: [] })).toEqual([completed(1, true), storyPassed(1, "US-002")])
    const failing = given(prdStarted, begun(1, "US-002"), evaluated(1, false))
    expect(failing.when({ _tag: "CompleteIteration", passed: false, filesChanged: [] })).toEqual([completed(1, false)])
  })

  it("succeeds only once every story passes", () => {
    const one = given(prdStarted, begun(1, "US-002"), evaluated(1, true), completed(1, true), storyPassed(1, "US-002"))
    expect(goalMet(one.state!)).toBe(false)
    expect(refusal(one.when({ _tag: "Succeed" }))).toMatch(/stories of the PRD do not pass yet/)
    const all = given(
      prdStarted,
      begun(1, "US-002"), evaluated(1, true), completed(1, true), storyPassed(1, "US-002"),
      begun(2, "US-004"), evaluated(2, true), completed(2, true), storyPassed(2, "US-004"),
      begun(3, "US-001"), evaluated(3, true), completed(3, true), storyPassed(3, "US-001")
    )
    expect(nextStory(all.state!)).toBeUndefined()
    expect(goalMet(all.state!)).toBe(true)
    expect(all.when({ _tag: "Succeed" })).toEqual([{ _tag: "LoopSucceeded", loopId: L, iteration: 3 }])
  })

  it("refuses to start without stories, or as both a PRD and a plan loop", () => {
    const start = { _tag: "Start", loopId: L, goal: "g", projectPath: "/p", driver: "external", config } as const
    expect(refusal(given().when({ ...start, prd: { path: "x", stories: [] } }))).toMatch(/no stories/)
    expect(refusal(given().when({ ...start, prd: { path: "x", stories }, plan: { path: "y" } }))).toMatch(/either a PRD loop or a plan loop/)
  })
})

describe("a plan loop", () => {
  const passedOnce = [planStarted, begun(1), evaluated(1, true), completed(1, true)]

  it("succeeds with its final plan, recorded in the same append", () => {
    expect(given(...passedOnce).when({ _tag: "Succeed", plan: { path: "/p/plan.md", text: "# Plan" } })).toEqual([
      { _tag: "LoopPlanSaved", loopId: L, iteration: 1, path: "/p/plan.md", plan: "# Plan" },
      { _tag: "LoopSucceeded", loopId: L, iteration: 1 }
    ])
  })

  it("never succeeds without the plan, and a build loop never takes one", () => {
    expect(refusal(given(...passedOnce).when({ _tag: "Succeed" }))).toMatch(/succeeds with its final plan/)
    const build: RalphMemEvent = { _tag: "LoopStarted", loopId: L, goal: "code", projectPath: "/p", driver: "session", sessionId: "s1", config }
    expect(refusal(given(build, begun(1), evaluated(1, true), completed(1, true)).when({ _tag: "Succeed", plan: { path: "x", text: "y" } }))).toMatch(/not a plan loop/)
  })

  it("does not succeed while the gate fails", () => {
    expect(refusal(given(planStarted, begun(1), evaluated(1, false), completed(1, false)).when({ _tag: "Succeed", plan: { path: "x", text: "y" } }))).toMatch(
      /did not pass its criteria/
    )
  })
})
