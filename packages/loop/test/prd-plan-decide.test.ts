/** The decider for PRD loops (one story per iteration) and plan loops (the plan saved with the success). */
import type { CriterionResult, LoopConfig, PrdStory, RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { deciderSpecification } from "../../projections/test/decider-specification.ts"
import { loopDecider } from "../src/decide.ts"
import { goalMet, nextStory } from "../src/state.ts"

const spec = deciderSpecification(loopDecider)

const config: LoopConfig = {
  maxIterations: 10,
  noProgressThreshold: 3,
  cooldownMs: 0,
  contextBudget: 0.6,
  successCriteria: [{ kind: "test_pass" }]
}
const L = "l1"
const story = (id: string, priority: number, passes = false): PrdStory => ({
  id,
  title: `story ${id}`,
  description: "",
  acceptanceCriteria: [],
  priority,
  passes
})
const stories = [story("US-001", 2), story("US-002", 1), story("US-003", 3, true), story("US-004", 1)]
const prdStarted: RalphMemEvent = {
  _tag: "LoopStarted",
  loopId: L,
  goal: "the PRD",
  projectPath: "/p",
  driver: "external",
  config,
  prd: { path: "/p/prd.json", stories }
}
const planStarted: RalphMemEvent = {
  _tag: "LoopStarted",
  loopId: L,
  goal: "a plan",
  projectPath: "/p",
  driver: "session",
  sessionId: "s1",
  config,
  plan: { path: "/p/plan.md" }
}
const results = (
  passed: boolean
): ReadonlyArray<CriterionResult> => [{ kind: "test_pass", passed, durationMs: 1, outputTail: "" }]
const begun = (n: number, storyId?: string): RalphMemEvent => ({
  _tag: "LoopIterationStarted",
  loopId: L,
  iteration: n,
  ...(storyId === undefined ? {} : { storyId })
})
const evaluated = (n: number, passed: boolean): RalphMemEvent => ({
  _tag: "LoopCriteriaEvaluated",
  loopId: L,
  iteration: n,
  results: results(passed)
})
const completed = (n: number, passed: boolean): RalphMemEvent => ({
  _tag: "LoopIterationCompleted",
  loopId: L,
  iteration: n,
  passed,
  filesChanged: []
})
const storyPassed = (n: number, storyId: string): RalphMemEvent => ({
  _tag: "LoopStoryPassed",
  loopId: L,
  storyId,
  iteration: n
})

describe("a PRD loop", () => {
  const firstPassed = [
    prdStarted,
    begun(1, "US-002"),
    evaluated(1, true),
    completed(1, true),
    storyPassed(1, "US-002")
  ] as const
  const allPassed = [
    ...firstPassed,
    begun(2, "US-004"),
    evaluated(2, true),
    completed(2, true),
    storyPassed(2, "US-004"),
    begun(3, "US-001"),
    evaluated(3, true),
    completed(3, true),
    storyPassed(3, "US-001")
  ] as const
  const start = { _tag: "Start", loopId: L, goal: "g", projectPath: "/p", driver: "external", config } as const

  it("works first on the highest-priority story that does not pass", () =>
    spec.given(prdStarted).when({ _tag: "BeginIteration" }).then([begun(1, "US-002")]))

  it("breaks a tie of priorities by file order", () =>
    spec.given(...firstPassed).when({ _tag: "BeginIteration" }).then([begun(2, "US-004")]))

  it("stays on a story until the harness's criteria pass for it", () =>
    spec.given(prdStarted, begun(1, "US-002"), evaluated(1, false), completed(1, false)).when({
      _tag: "BeginIteration"
    }).then([begun(2, "US-002")]))

  it("marks the story passing in the same append as a passing iteration", () =>
    spec.given(prdStarted, begun(1, "US-002"), evaluated(1, true)).when({
      _tag: "CompleteIteration",
      passed: true,
      filesChanged: []
    })
      .then([completed(1, true), storyPassed(1, "US-002")]))

  it("does not mark the story passing when the iteration failed", () =>
    spec.given(prdStarted, begun(1, "US-002"), evaluated(1, false)).when({
      _tag: "CompleteIteration",
      passed: false,
      filesChanged: []
    }).then([completed(1, false)]))

  it("does not succeed while stories do not pass", () => {
    expect(goalMet(spec.given(...firstPassed).state()!)).toBe(false)
    spec.given(...firstPassed).when({ _tag: "Succeed" }).thenRefused(/stories of the PRD do not pass yet/)
  })

  it("succeeds once every story passes", () => {
    expect(nextStory(spec.given(...allPassed).state()!)).toBeUndefined()
    expect(goalMet(spec.given(...allPassed).state()!)).toBe(true)
    spec.given(...allPassed).when({ _tag: "Succeed" }).then([{ _tag: "LoopSucceeded", loopId: L, iteration: 3 }])
  })

  it("refuses to start without stories", () =>
    spec.given().when({ ...start, prd: { path: "x", stories: [] } }).thenRefused(/no stories/))

  it("refuses to start as both a PRD and a plan loop", () =>
    spec.given().when({ ...start, prd: { path: "x", stories }, plan: { path: "y" } }).thenRefused(
      /either a PRD loop or a plan loop/
    ))
})

describe("a plan loop", () => {
  const passedOnce = [planStarted, begun(1), evaluated(1, true), completed(1, true)] as const

  it("succeeds with its final plan, recorded in the same append", () =>
    spec.given(...passedOnce).when({ _tag: "Succeed", plan: { path: "/p/plan.md", text: "# Plan" } }).then([
      { _tag: "LoopPlanSaved", loopId: L, iteration: 1, path: "/p/plan.md", plan: "# Plan" },
      { _tag: "LoopSucceeded", loopId: L, iteration: 1 }
    ]))

  it("never succeeds without the plan", () =>
    spec.given(...passedOnce).when({ _tag: "Succeed" }).thenRefused(/succeeds with its final plan/))

  it("is the only kind of loop that takes a plan", () => {
    const build: RalphMemEvent = {
      _tag: "LoopStarted",
      loopId: L,
      goal: "code",
      projectPath: "/p",
      driver: "session",
      sessionId: "s1",
      config
    }
    spec.given(build, begun(1), evaluated(1, true), completed(1, true)).when({
      _tag: "Succeed",
      plan: { path: "x", text: "y" }
    }).thenRefused(/not a plan loop/)
  })

  it("does not succeed while the gate fails", () =>
    spec.given(planStarted, begun(1), evaluated(1, false), completed(1, false)).when({
      _tag: "Succeed",
      plan: { path: "x", text: "y" }
    })
      .thenRefused(/did not pass its criteria/))
})
