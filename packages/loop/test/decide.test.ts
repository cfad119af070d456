import type { CriterionResult, LoopConfig, RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { stopCondition } from "../src/conditions.ts"
import type { LoopCommand } from "../src/decide.ts"
import { fold } from "../src/state.ts"
import { given, refusal } from "./given.ts"

const config: LoopConfig = { maxIterations: 3, noProgressThreshold: 2, cooldownMs: 0, contextBudget: 0.6, successCriteria: [{ kind: "test_pass" }] }
const L = "l1"
const started: RalphMemEvent = { _tag: "LoopStarted", loopId: L, goal: "green tests", projectPath: "/p", driver: "session", sessionId: "s1", config }
const iteration = (n: number): RalphMemEvent => ({ _tag: "LoopIterationStarted", loopId: L, iteration: n })
const failing: ReadonlyArray<CriterionResult> = [{ kind: "test_pass", passed: false, durationMs: 5, outputTail: "1 failed", fingerprint: "fp-auth" }]
const passing: ReadonlyArray<CriterionResult> = [{ kind: "test_pass", passed: true, durationMs: 5, outputTail: "ok" }]
const evaluated = (n: number, results = failing): RalphMemEvent => ({ _tag: "LoopCriteriaEvaluated", loopId: L, iteration: n, results })
const completed = (n: number, passed = false, filesChanged: ReadonlyArray<string> = []): RalphMemEvent => ({ _tag: "LoopIterationCompleted", loopId: L, iteration: n, passed, filesChanged })


describe("the loop decider", () => {
  it("starts a loop", () => {
    expect(given().when({ _tag: "Start", loopId: L, goal: "green tests", projectPath: "/p", driver: "session", sessionId: "s1", config })).toEqual([started])
  })

  it("runs an iteration: begin, record criteria, complete", () => {
    expect(given(started).when({ _tag: "BeginIteration" })).toEqual([iteration(1)])
    expect(given(started, iteration(1)).when({ _tag: "RecordCriteria", results: failing })).toEqual([evaluated(1)])
    expect(given(started, iteration(1), evaluated(1)).when({ _tag: "CompleteIteration", passed: false, filesChanged: ["a.ts"], snapshotRef: "snap-1" })).toEqual([
      { _tag: "LoopIterationCompleted", loopId: L, iteration: 1, passed: false, filesChanged: ["a.ts"], snapshotRef: "snap-1" }
    ])
    expect(given(started, iteration(1), evaluated(1), completed(1)).when({ _tag: "BeginIteration" })).toEqual([iteration(2)])
  })

  it("succeeds only after an iteration passed", () => {
    expect(given(started, iteration(1), evaluated(1, passing), completed(1, true)).when({ _tag: "Succeed" })).toEqual([{ _tag: "LoopSucceeded", loopId: L, iteration: 1 }])
    expect(refusal(given(started, iteration(1), evaluated(1), completed(1)).when({ _tag: "Succeed" }))).toMatch(/did not pass/)
    expect(refusal(given(started, iteration(1)).when({ _tag: "Succeed" }))).toMatch(/did not pass/)
  })

  it("stops, with or without a rollback, fails, changes config, resumes", () => {
    const running = given(started, iteration(1), evaluated(1), completed(1))
    expect(running.when({ _tag: "Stop", reason: "user", requestedBy: "cli" })).toEqual([{ _tag: "LoopStopped", loopId: L, reason: "user", requestedBy: "cli" }])
    expect(running.when({ _tag: "Stop", reason: "user", requestedBy: "cli", rollback: { toIteration: 0, snapshotRef: "s0", rescueSnapshotRef: "r" } })).toEqual([
      { _tag: "LoopStopped", loopId: L, reason: "user", requestedBy: "cli" },
      { _tag: "LoopRolledBack", loopId: L, toIteration: 0, snapshotRef: "s0", rescueSnapshotRef: "r" }
    ])
    expect(running.when({ _tag: "Fail", reason: "block cap" })).toEqual([{ _tag: "LoopFailed", loopId: L, reason: "block cap" }])
    expect(running.when({ _tag: "ChangeConfig", config: { ...config, maxIterations: 9 } })).toEqual([{ _tag: "LoopConfigChanged", loopId: L, config: { ...config, maxIterations: 9 } }])
    expect(running.when({ _tag: "Resume", driver: "external" })).toEqual([{ _tag: "LoopResumed", loopId: L, iteration: 1, driver: "external" }])
  })

  describe("refuses every illegal transition", () => {
    const start: LoopCommand = { _tag: "Start", loopId: L, goal: "g", projectPath: "/p", driver: "external", config }
    const commands: ReadonlyArray<LoopCommand> = [
      { _tag: "BeginIteration" },
      { _tag: "RecordCriteria", results: failing },
      { _tag: "CompleteIteration", passed: false, filesChanged: [] },
      { _tag: "Succeed" },
      { _tag: "Fail", reason: "x" },
      { _tag: "Stop", reason: "x", requestedBy: "cli" },
      { _tag: "ChangeConfig", config },
      { _tag: "Resume", driver: "session" },
      { _tag: "WaitForLimit", limit: "rate_limit", until: 1, resetReported: false, message: "429" },
      { _tag: "Interrupt", error: "rate_limit", message: "429" }
    ]

    it.each(commands.map((c) => [c._tag, c] as const))("%s on a loop that does not exist", (_, command) => {
      expect(refusal(given().when(command))).toMatch(/there is no such loop/)
    })

    it.each(commands.map((c) => [c._tag, c] as const))("%s on a loop that has ended", (_, command) => {
      for (const end of [{ _tag: "LoopStopped", loopId: L, reason: "u", requestedBy: "cli" }, { _tag: "LoopFailed", loopId: L, reason: "r" }] as const) {
        expect(refusal(given(started, end).when(command))).toMatch(/the loop has ended/)
      }
    })

    it("a second start, or an empty goal", () => {
      expect(refusal(given(started).when(start))).toMatch(/already exists/)
      expect(refusal(given().when({ ...start, goal: "  " }))).toMatch(/the goal is empty/)
    })

    it("beginning while an iteration is open, or past the limit", () => {
      expect(refusal(given(started, iteration(1)).when({ _tag: "BeginIteration" }))).toMatch(/iteration 1 is still open/)
      const atLimit = given(started, iteration(1), evaluated(1), completed(1), iteration(2), evaluated(2), completed(2), iteration(3), evaluated(3), completed(3))
      expect(refusal(atLimit.when({ _tag: "BeginIteration" }))).toMatch(/limit of 3 iterations/)
    })

    it("recording or completing with no open iteration, completing without results", () => {
      expect(refusal(given(started).when({ _tag: "RecordCriteria", results: failing }))).toMatch(/no iteration is open/)
      expect(refusal(given(started, iteration(1), evaluated(1), completed(1)).when({ _tag: "CompleteIteration", passed: true, filesChanged: [] }))).toMatch(/no iteration is open/)
      expect(refusal(given(started, iteration(1)).when({ _tag: "CompleteIteration", passed: true, filesChanged: [] }))).toMatch(/no criteria results yet/)
    })

    it("rolling back to an iteration that never was", () => {
      expect(refusal(given(started, iteration(1)).when({ _tag: "Stop", reason: "x", requestedBy: "cli", rollback: { toIteration: 5, snapshotRef: "s", rescueSnapshotRef: "r" } }))).toMatch(/no iteration 5/)
      expect(refusal(given(started, iteration(1), { _tag: "LoopFailed", loopId: L, reason: "r" }).when({ _tag: "RollBack", toIteration: 2, snapshotRef: "s", rescueSnapshotRef: "r" }))).toMatch(/no iteration 2/)
    })

    it("waiting for a limit with no iteration open", () => {
      const wait: LoopCommand = { _tag: "WaitForLimit", limit: "usage_limit", until: 5000, resetReported: true, message: "limit" }
      expect(refusal(given(started).when(wait))).toMatch(/no iteration is open/)
      expect(refusal(given(started, iteration(1), evaluated(1), completed(1)).when(wait))).toMatch(/no iteration is open/)
    })
  })

  describe("after the end", () => {
    const ended = [
      ["failed", { _tag: "LoopFailed", loopId: L, reason: "max iterations" }],
      ["stopped", { _tag: "LoopStopped", loopId: L, reason: "u", requestedBy: "cli" }],
      ["succeeded", { _tag: "LoopSucceeded", loopId: L, iteration: 2 }]
    ] as const

    it.each(ended)("a %s loop can still be rolled back, to any iteration it reached", (_, end) => {
      const history = given(started, iteration(1), evaluated(1), completed(1), iteration(2), evaluated(2), completed(2), end)
      expect(history.when({ _tag: "RollBack", toIteration: 1, snapshotRef: "s1", rescueSnapshotRef: "r" })).toEqual([
        { _tag: "LoopRolledBack", loopId: L, toIteration: 1, snapshotRef: "s1", rescueSnapshotRef: "r" }
      ])
      expect(history.when({ _tag: "RollBack", toIteration: 0, snapshotRef: "s0", rescueSnapshotRef: "r" })).toHaveLength(1)
    })
  })

  describe("limits", () => {
    it("records a wait for a limit's reset on the open iteration, and the iteration stays open", () => {
      const open = given(started, iteration(1))
      const wait = { limit: "usage_limit", until: 9000, resetReported: true, message: "Claude AI usage limit reached|9" } as const
      const waited = open.when({ _tag: "WaitForLimit", ...wait })
      expect(waited).toEqual([{ _tag: "LoopWaited", loopId: L, iteration: 1, ...wait }])
      const after = fold([started, iteration(1), ...(waited as ReadonlyArray<RalphMemEvent>)].map((event, i) => ({ event, occurredAt: 1000 * i })))!
      expect(after.waits).toEqual([{ iteration: 1, at: 2000, ...wait }])
      expect(after.iterations.at(-1)?.completedAt).toBeUndefined()
    })

    it("records an interruption (StopFailure), cleared once the iteration completes", () => {
      const interrupted = given(started, iteration(1)).when({ _tag: "Interrupt", error: "rate_limit", message: "API Error: 429" })
      expect(interrupted).toEqual([{ _tag: "LoopInterrupted", loopId: L, iteration: 1, error: "rate_limit", message: "API Error: 429" }])
      const events = [started, iteration(1), ...(interrupted as ReadonlyArray<RalphMemEvent>)]
      expect(fold(events.map((event, i) => ({ event, occurredAt: i })))!.interruption).toEqual({ iteration: 1, error: "rate_limit", message: "API Error: 429" })
      expect(fold([...events, evaluated(1), completed(1)].map((event, i) => ({ event, occurredAt: i })))!.interruption).toBeUndefined()
    })

    it("keeps the usage an iteration reported", () => {
      const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheCreationTokens: 1, costUsd: 0.5 }
      expect(given(started, iteration(1), evaluated(1)).when({ _tag: "CompleteIteration", passed: false, filesChanged: [], usage })).toEqual([
        { _tag: "LoopIterationCompleted", loopId: L, iteration: 1, passed: false, filesChanged: [], usage }
      ])
    })
  })
})

describe("stop conditions", () => {
  const state = (...events: ReadonlyArray<RalphMemEvent>) => fold(events.map((event, i) => ({ event, occurredAt: 1000 * i })))!

  it("max iterations", () => {
    const loop = state(started, iteration(1), evaluated(1), completed(1, false, ["a"]), iteration(2), evaluated(2, [{ ...failing[0]!, fingerprint: "other" }]), completed(2, false, ["b"]), iteration(3), evaluated(3), completed(3, false, ["c"]))
    expect(stopCondition(loop, 10_000)).toBe("max iterations (3) reached")
    expect(stopCondition(state(started, iteration(1), evaluated(1), completed(1, false, ["a"])), 10_000)).toBeUndefined()
  })

  it("max duration", () => {
    const loop = state({ ...started, config: { ...config, maxDurationMs: 60_000 } } as RalphMemEvent, iteration(1), evaluated(1), completed(1, false, ["a"]))
    expect(stopCondition(loop, 59_000)).toBeUndefined()
    expect(stopCondition(loop, 61_000)).toBe("max duration (60 s) reached")
  })

  const used = (n: number, tokens: number, costUsd?: number): RalphMemEvent => ({
    _tag: "LoopIterationCompleted",
    loopId: L,
    iteration: n,
    passed: false,
    filesChanged: [`f${n}`],
    usage: { inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, ...(costUsd === undefined ? {} : { costUsd }) }
  })

  it("max tokens: every token the iterations reported, cache included", () => {
    const budget = { ...started, config: { ...config, maxIterations: 10, maxTokens: 1000 } } as RalphMemEvent
    expect(stopCondition(state(budget, iteration(1), evaluated(1), used(1, 600)), 5000)).toBeUndefined()
    expect(stopCondition(state(budget, iteration(1), evaluated(1), used(1, 600), iteration(2), evaluated(2), used(2, 400)), 5000)).toBe(
      "max tokens (1000) reached: 1000 used"
    )
  })

  it("max cost: only what was reported counts, and nothing reported never stops the loop", () => {
    const budget = { ...started, config: { ...config, maxIterations: 10, maxCostUsd: 1 } } as RalphMemEvent
    const twice = (a?: number, b?: number) =>
      stopCondition(state(budget, iteration(1), evaluated(1), used(1, 10, a), iteration(2), evaluated(2), used(2, 10, b)), 5000)
    expect(twice(0.4, 0.4)).toBeUndefined()
    expect(twice(0.6, 0.4)).toBe("max cost ($1) reached: $1.0000 spent")
    expect(twice(undefined, undefined)).toBeUndefined()
  })

  it("no progress: the same fingerprint and no file change, N times in a row", () => {
    expect(stopCondition(state(started, iteration(1), evaluated(1), completed(1), iteration(2), evaluated(2), completed(2)), 5000)).toMatch(/^no progress/)
    expect(stopCondition(state(started, iteration(1), evaluated(1), completed(1), iteration(2), evaluated(2), completed(2, false, ["a.ts"])), 5000)).toBeUndefined()
    const other = evaluated(2, [{ ...failing[0]!, fingerprint: "fp-other" }])
    expect(stopCondition(state(started, iteration(1), evaluated(1), completed(1), iteration(2), other, completed(2)), 5000)).toBeUndefined()
  })
})
