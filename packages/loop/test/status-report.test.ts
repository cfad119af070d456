/** A loop's report: the data `--json` prints and its text form, from a real fold of loop events. */
import type { LoopConfig, RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { fold } from "../src/state.ts"
import { endMessage, statusFields, statusReport } from "../src/status-report.ts"

const config: LoopConfig = {
  maxIterations: 3,
  maxTokens: 5000,
  noProgressThreshold: 2,
  cooldownMs: 0,
  contextBudget: 0.6,
  successCriteria: [{ kind: "test_pass" }]
}
const L = "l1"
const events: ReadonlyArray<RalphMemEvent> = [
  {
    _tag: "LoopStarted",
    loopId: L,
    goal: "green tests",
    projectPath: "/p",
    driver: "external",
    config,
    snapshotRef: "s0"
  },
  { _tag: "LoopIterationStarted", loopId: L, iteration: 1 },
  {
    _tag: "LoopCriteriaEvaluated",
    loopId: L,
    iteration: 1,
    results: [{ kind: "test_pass", passed: false, durationMs: 5, outputTail: "x", fingerprint: "fp" }]
  },
  {
    _tag: "LoopIterationCompleted",
    loopId: L,
    iteration: 1,
    passed: false,
    filesChanged: [],
    snapshotRef: "s1",
    usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheCreationTokens: 0, costUsd: 0.25 }
  },
  { _tag: "LoopFailed", loopId: L, reason: "no progress" }
]
const at = (i: number) => Date.UTC(2026, 10, 20, 9, 0, i)
const loop = fold(events.map((event, i) => ({ event, occurredAt: at(i) })))

describe("a loop's status report", () => {
  it("holds the stop conditions, spend and snapshots", () => {
    const report = statusReport(loop!, at(60))
    expect(report.status).toBe("failed")
    expect(report.stopConditions).toEqual({
      maxIterations: 3,
      maxDurationMs: null,
      maxTokens: 5000,
      maxCostUsd: null,
      noProgressThreshold: 2
    })
    expect(report.spend).toEqual({ tokens: 120, costUsd: 0.25 })
    expect(report.snapshots).toEqual([{ iteration: 0, ref: "s0" }, { iteration: 1, ref: "s1" }])
  })

  it("prints the checks, the limits and how to roll back", () => {
    const fields = Object.fromEntries(statusFields(loop!, at(60)))
    expect(fields["last checks"]).toBe("test_pass failed (fp)")
    expect(fields["stops at"]).toBe("3 iterations, 5000 tokens, or 2 iterations without progress")
    expect(fields["roll back"]).toBe(`ralph-mem ralph stop --loop ${L} --rollback --to N (0-1)`)
  })

  it("ends with the rollback command when the loop did not succeed", () =>
    expect(endMessage(loop!)).toMatch(
      /^The loop ended: failed \(no progress\) after 1 iteration\(s\)\. To undo its changes: ralph-mem ralph stop/
    ))
})
