/** The loop's policy after an iteration closed: succeed, fail (with the reason) or continue. Given / when / then. */
import type { CriterionResult, LoopConfig, RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { nextStep, type PolicyContext } from "../src/policy.ts"
import { fold } from "../src/state.ts"

const config: LoopConfig = {
  maxIterations: 5,
  noProgressThreshold: 3,
  cooldownMs: 0,
  contextBudget: 0.6,
  successCriteria: [{ kind: "test_pass" }]
}
const L = "l1"
const started: RalphMemEvent = {
  _tag: "LoopStarted",
  loopId: L,
  goal: "g",
  projectPath: "/p",
  driver: "session",
  sessionId: "s1",
  config
}
const results = (
  passed: boolean
): ReadonlyArray<CriterionResult> => [{ kind: "test_pass", passed, durationMs: 1, outputTail: "", fingerprint: "fp" }]
const iteration = (n: number, passed: boolean, file = `f${n}`): ReadonlyArray<RalphMemEvent> => [
  { _tag: "LoopIterationStarted", loopId: L, iteration: n },
  { _tag: "LoopCriteriaEvaluated", loopId: L, iteration: n, results: results(passed) },
  { _tag: "LoopIterationCompleted", loopId: L, iteration: n, passed, filesChanged: [file] }
]

const given = (...events: ReadonlyArray<RalphMemEvent>) => ({
  when: (context: PolicyContext) => ({
    then: (verdict: ReturnType<typeof nextStep>) =>
      expect(nextStep(fold(events.map((event, i) => ({ event, occurredAt: 1000 * i })))!, context)).toEqual(verdict)
  })
})

describe("the loop's policy", () => {
  it("succeeds when the last iteration passed", () =>
    given(started, ...iteration(1, true)).when({ now: 5000 }).then({ _tag: "Succeed" }))

  it("continues after a failed iteration while no stop condition holds", () =>
    given(started, ...iteration(1, false)).when({ now: 5000 }).then({ _tag: "Continue" }))

  it("fails at the iteration limit, saying so", () =>
    given(started, ...[1, 2, 3, 4, 5].flatMap((n) => iteration(n, false))).when({ now: 99_000 }).then({
      _tag: "Fail",
      reason: "max iterations (5) reached"
    }))

  it("fails when the session used every continuation Claude Code allows", () =>
    given(started, ...iteration(1, false)).when({ now: 5000, continuations: { cap: 2, used: 2 } }).then({
      _tag: "Fail",
      reason: "Claude Code allows 2 consecutive Stop-hook continuations (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP); raise it,"
        + " or continue with ralph-mem ralph resume"
    }))

  it("continues below the cap", () =>
    given(started, ...iteration(1, false)).when({ now: 5000, continuations: { cap: 2, used: 1 } }).then({
      _tag: "Continue"
    }))

  it("ignores the cap when it is off (0)", () =>
    given(started, ...iteration(1, false)).when({ now: 5000, continuations: { cap: 0, used: 50 } }).then({
      _tag: "Continue"
    }))

  it("puts success before the cap: a passing iteration succeeds even at the cap", () =>
    given(started, ...iteration(1, true)).when({ now: 5000, continuations: { cap: 1, used: 1 } }).then({
      _tag: "Succeed"
    }))
})
