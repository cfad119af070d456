/** The loop decider and its stop conditions, one scenario per test, given / when / then. */
import type { CriterionResult, LoopConfig, RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { deciderSpecification } from "../../projections/test/decider-specification.ts"
import { type LoopCommand, loopDecider } from "../src/decide.ts"
import { fold } from "../src/state.ts"
import { stopCondition } from "../src/stop-conditions.ts"

const spec = deciderSpecification(loopDecider)
const config: LoopConfig = {
  maxIterations: 3,
  noProgressThreshold: 2,
  cooldownMs: 0,
  contextBudget: 0.6,
  successCriteria: [{ kind: "test_pass" }]
}
const L = "l1"
const started: RalphMemEvent = {
  _tag: "LoopStarted",
  loopId: L,
  goal: "green tests",
  projectPath: "/p",
  driver: "session",
  sessionId: "s1",
  config
}
const iteration = (n: number): RalphMemEvent => ({ _tag: "LoopIterationStarted", loopId: L, iteration: n })
const failing: ReadonlyArray<CriterionResult> = [{
  kind: "test_pass",
  passed: false,
  durationMs: 5,
  outputTail: "1 failed",
  fingerprint: "fp-auth"
}]
const passing: ReadonlyArray<CriterionResult> = [{ kind: "test_pass", passed: true, durationMs: 5, outputTail: "ok" }]
const evaluated = (n: number, results = failing): RalphMemEvent => ({
  _tag: "LoopCriteriaEvaluated",
  loopId: L,
  iteration: n,
  results
})
const completed = (n: number, passed = false, filesChanged: ReadonlyArray<string> = []): RalphMemEvent => ({
  _tag: "LoopIterationCompleted",
  loopId: L,
  iteration: n,
  passed,
  filesChanged
})
const closedIteration = [started, iteration(1), evaluated(1), completed(1)] as const

describe("the loop decider", () => {
  it("starts a loop", () =>
    spec.given().when({
      _tag: "Start",
      loopId: L,
      goal: "green tests",
      projectPath: "/p",
      driver: "session",
      sessionId: "s1",
      config
    }).then([started]))

  it("begins the first iteration", () => spec.given(started).when({ _tag: "BeginIteration" }).then([iteration(1)]))

  it("records an open iteration's criteria", () =>
    spec.given(started, iteration(1)).when({ _tag: "RecordCriteria", results: failing }).then([evaluated(1)]))

  it("completes an iteration with its files and snapshot", () =>
    spec.given(started, iteration(1), evaluated(1)).when({
      _tag: "CompleteIteration",
      passed: false,
      filesChanged: ["a.ts"],
      snapshotRef: "snap-1"
    }).then([
      {
        _tag: "LoopIterationCompleted",
        loopId: L,
        iteration: 1,
        passed: false,
        filesChanged: ["a.ts"],
        snapshotRef: "snap-1"
      }
    ]))

  it("keeps the usage an iteration reported", () => {
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheCreationTokens: 1, costUsd: 0.5 }
    spec.given(started, iteration(1), evaluated(1)).when({
      _tag: "CompleteIteration",
      passed: false,
      filesChanged: [],
      usage
    }).then([
      { _tag: "LoopIterationCompleted", loopId: L, iteration: 1, passed: false, filesChanged: [], usage }
    ])
  })

  it("begins the next iteration after one completed", () =>
    spec.given(...closedIteration).when({ _tag: "BeginIteration" }).then([iteration(2)]))

  it("succeeds after an iteration passed", () =>
    spec.given(started, iteration(1), evaluated(1, passing), completed(1, true)).when({ _tag: "Succeed" }).then([{
      _tag: "LoopSucceeded",
      loopId: L,
      iteration: 1
    }]))

  it("does not succeed after a failed iteration", () =>
    spec.given(...closedIteration).when({ _tag: "Succeed" }).thenRefused(/did not pass/))

  it("does not succeed while an iteration is open", () =>
    spec.given(started, iteration(1)).when({ _tag: "Succeed" }).thenRefused(/did not pass/))

  it("stops", () =>
    spec.given(...closedIteration).when({ _tag: "Stop", reason: "user", requestedBy: "cli" }).then([{
      _tag: "LoopStopped",
      loopId: L,
      reason: "user",
      requestedBy: "cli"
    }]))

  it("stops and rolls back in one append", () =>
    spec.given(...closedIteration).when({
      _tag: "Stop",
      reason: "user",
      requestedBy: "cli",
      rollback: { toIteration: 0, snapshotRef: "s0", rescueSnapshotRef: "r" }
    }).then([
      { _tag: "LoopStopped", loopId: L, reason: "user", requestedBy: "cli" },
      { _tag: "LoopRolledBack", loopId: L, toIteration: 0, snapshotRef: "s0", rescueSnapshotRef: "r" }
    ]))

  it("fails with a reason", () =>
    spec.given(...closedIteration).when({ _tag: "Fail", reason: "block cap" }).then([{
      _tag: "LoopFailed",
      loopId: L,
      reason: "block cap"
    }]))

  it("changes its config", () =>
    spec.given(...closedIteration).when({ _tag: "ChangeConfig", config: { ...config, maxIterations: 9 } }).then([
      { _tag: "LoopConfigChanged", loopId: L, config: { ...config, maxIterations: 9 } }
    ]))

  it("resumes under another driver", () =>
    spec.given(...closedIteration).when({ _tag: "Resume", driver: "external" }).then([{
      _tag: "LoopResumed",
      loopId: L,
      iteration: 1,
      driver: "external"
    }]))
})

describe("the loop decider refuses", () => {
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
  const ends = [
    { _tag: "LoopStopped", loopId: L, reason: "u", requestedBy: "cli" },
    { _tag: "LoopFailed", loopId: L, reason: "r" }
  ] as const

  it.each(commands.map((c) => [c._tag, c] as const))(
    "%s on a loop that does not exist",
    (_, command) => spec.given().when(command).thenRefused(/there is no such loop/)
  )

  it.each(commands.flatMap((c) => ends.map((end) => [c._tag, end._tag, c, end] as const)))(
    "%s on a loop that has ended (%s)",
    (_, __, command, end) => spec.given(started, end).when(command).thenRefused(/the loop has ended/)
  )

  it("a second start", () =>
    spec.given(started).when({ _tag: "Start", loopId: L, goal: "g", projectPath: "/p", driver: "external", config })
      .thenRefused(/already exists/))

  it("a start with an empty goal", () =>
    spec.given().when({ _tag: "Start", loopId: L, goal: "  ", projectPath: "/p", driver: "external", config })
      .thenRefused(/the goal is empty/))

  it("beginning while an iteration is open", () =>
    spec.given(started, iteration(1)).when({ _tag: "BeginIteration" }).thenRefused(/iteration 1 is still open/))

  it("beginning past the iteration limit", () =>
    spec.given(...closedIteration, iteration(2), evaluated(2), completed(2), iteration(3), evaluated(3), completed(3))
      .when({ _tag: "BeginIteration" }).thenRefused(/limit of 3 iterations/))

  it("recording criteria with no open iteration", () =>
    spec.given(started).when({ _tag: "RecordCriteria", results: failing }).thenRefused(/no iteration is open/))

  it("completing with no open iteration", () =>
    spec.given(...closedIteration).when({ _tag: "CompleteIteration", passed: true, filesChanged: [] }).thenRefused(
      /no iteration is open/
    ))

  it("completing an iteration without criteria results", () =>
    spec.given(started, iteration(1)).when({ _tag: "CompleteIteration", passed: true, filesChanged: [] }).thenRefused(
      /no criteria results yet/
    ))

  it("stopping with a rollback to an iteration that never was", () =>
    spec.given(started, iteration(1)).when({
      _tag: "Stop",
      reason: "x",
      requestedBy: "cli",
      rollback: { toIteration: 5, snapshotRef: "s", rescueSnapshotRef: "r" }
    })
      .thenRefused(/no iteration 5/))

  it("rolling an ended loop back to an iteration that never was", () =>
    spec.given(started, iteration(1), { _tag: "LoopFailed", loopId: L, reason: "r" }).when({
      _tag: "RollBack",
      toIteration: 2,
      snapshotRef: "s",
      rescueSnapshotRef: "r"
    })
      .thenRefused(/no iteration 2/))

  it("waiting for a limit before any iteration began", () =>
    spec.given(started).when({
      _tag: "WaitForLimit",
      limit: "usage_limit",
      until: 5000,
      resetReported: true,
      message: "limit"
    }).thenRefused(/no iteration is open/))

  it("waiting for a limit after the iteration completed", () =>
    spec.given(...closedIteration).when({
      _tag: "WaitForLimit",
      limit: "usage_limit",
      until: 5000,
      resetReported: true,
      message: "limit"
    })
      .thenRefused(/no iteration is open/))
})

describe("after the end", () => {
  const ends = [
    ["failed", { _tag: "LoopFailed", loopId: L, reason: "max iterations" }],
    ["stopped", { _tag: "LoopStopped", loopId: L, reason: "u", requestedBy: "cli" }],
    ["succeeded", { _tag: "LoopSucceeded", loopId: L, iteration: 2 }]
  ] as const
  const twoIterations = [...closedIteration, iteration(2), evaluated(2), completed(2)] as const

  it.each(ends)(
    "a %s loop can still be rolled back to an iteration it reached",
    (_, end) =>
      spec.given(...twoIterations, end).when({
        _tag: "RollBack",
        toIteration: 1,
        snapshotRef: "s1",
        rescueSnapshotRef: "r"
      }).then([
        { _tag: "LoopRolledBack", loopId: L, toIteration: 1, snapshotRef: "s1", rescueSnapshotRef: "r" }
      ])
  )

  it.each(ends)(
    "a %s loop can be rolled back to before it began",
    (_, end) =>
      spec.given(...twoIterations, end).when({
        _tag: "RollBack",
        toIteration: 0,
        snapshotRef: "s0",
        rescueSnapshotRef: "r"
      }).then([
        { _tag: "LoopRolledBack", loopId: L, toIteration: 0, snapshotRef: "s0", rescueSnapshotRef: "r" }
      ])
  )
})

describe("limits", () => {
  const wait = {
    limit: "usage_limit",
    until: 9000,
    resetReported: true,
    message: "Claude AI usage limit reached|9"
  } as const

  it("records a wait for a limit's reset on the open iteration", () =>
    spec.given(started, iteration(1)).when({ _tag: "WaitForLimit", ...wait }).then([{
      _tag: "LoopWaited",
      loopId: L,
      iteration: 1,
      ...wait
    }]))

  it("keeps the iteration open through a wait", () => {
    const state = spec.given(started, iteration(1), { _tag: "LoopWaited", loopId: L, iteration: 1, ...wait }).state()!
    expect(state.waits).toEqual([{ iteration: 1, at: 2000, ...wait }])
    expect(state.iterations.at(-1)?.completedAt).toBeUndefined()
  })

  it("records an interruption (StopFailure)", () =>
    spec.given(started, iteration(1)).when({ _tag: "Interrupt", error: "rate_limit", message: "API Error: 429" }).then([
      { _tag: "LoopInterrupted", loopId: L, iteration: 1, error: "rate_limit", message: "API Error: 429" }
    ]))

  it("clears the interruption once the iteration completes", () => {
    const interrupted: RalphMemEvent = {
      _tag: "LoopInterrupted",
      loopId: L,
      iteration: 1,
      error: "rate_limit",
      message: "429"
    }
    expect(spec.given(started, iteration(1), interrupted).state()!.interruption).toEqual({
      iteration: 1,
      error: "rate_limit",
      message: "429"
    })
    expect(spec.given(started, iteration(1), interrupted, evaluated(1), completed(1)).state()!.interruption)
      .toBeUndefined()
  })
})

describe("stop conditions", () => {
  const state = (...events: ReadonlyArray<RalphMemEvent>) =>
    fold(events.map((event, i) => ({ event, occurredAt: 1000 * i })))!
  const withConfig = (extra: Partial<LoopConfig>) => ({ ...started, config: { ...config, ...extra } }) as RalphMemEvent
  const used = (n: number, tokens: number, costUsd?: number): RalphMemEvent => ({
    _tag: "LoopIterationCompleted",
    loopId: L,
    iteration: n,
    passed: false,
    filesChanged: [`f${n}`],
    usage: {
      inputTokens: tokens,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      ...(costUsd === undefined ? {} : { costUsd })
    }
  })
  const other = evaluated(2, [{ ...failing[0]!, fingerprint: "fp-other" }])

  it("max iterations: reached", () =>
    expect(
      stopCondition(
        state(
          started,
          iteration(1),
          evaluated(1),
          completed(1, false, ["a"]),
          iteration(2),
          other,
          completed(2, false, ["b"]),
          iteration(3),
          evaluated(3),
          completed(3, false, ["c"])
        ),
        10_000
      )
    )
      .toBe("max iterations (3) reached"))

  it("max iterations: not yet", () =>
    expect(stopCondition(state(started, iteration(1), evaluated(1), completed(1, false, ["a"])), 10_000))
      .toBeUndefined())

  it("max duration: not yet", () =>
    expect(
      stopCondition(
        state(withConfig({ maxDurationMs: 60_000 }), iteration(1), evaluated(1), completed(1, false, ["a"])),
        59_000
      )
    ).toBeUndefined())

  it("max duration: reached", () =>
    expect(
      stopCondition(
        state(withConfig({ maxDurationMs: 60_000 }), iteration(1), evaluated(1), completed(1, false, ["a"])),
        61_000
      )
    ).toBe("max duration (60 s) reached"))

  it("max tokens: every token the iterations reported, cache included, not yet", () =>
    expect(
      stopCondition(
        state(withConfig({ maxIterations: 10, maxTokens: 1000 }), iteration(1), evaluated(1), used(1, 600)),
        5000
      )
    ).toBeUndefined())

  it("max tokens: reached", () =>
    expect(
      stopCondition(
        state(
          withConfig({ maxIterations: 10, maxTokens: 1000 }),
          iteration(1),
          evaluated(1),
          used(1, 600),
          iteration(2),
          evaluated(2),
          used(2, 400)
        ),
        5000
      )
    )
      .toBe("max tokens (1000) reached: 1000 used"))

  const twice = (a?: number, b?: number) =>
    stopCondition(
      state(
        withConfig({ maxIterations: 10, maxCostUsd: 1 }),
        iteration(1),
        evaluated(1),
        used(1, 10, a),
        iteration(2),
        evaluated(2),
        used(2, 10, b)
      ),
      5000
    )

  it("max cost: below it", () => expect(twice(0.4, 0.4)).toBeUndefined())

  it("max cost: reached", () => expect(twice(0.6, 0.4)).toBe("max cost ($1) reached: $1.0000 spent"))

  it("max cost: nothing reported never stops the loop", () => expect(twice(undefined, undefined)).toBeUndefined())

  it("no progress: the same fingerprint and no file change, N times in a row", () =>
    expect(
      stopCondition(
        state(started, iteration(1), evaluated(1), completed(1), iteration(2), evaluated(2), completed(2)),
        5000
      )
    ).toMatch(/^no progress/))

  it("no progress: a file changed", () =>
    expect(
      stopCondition(
        state(
          started,
          iteration(1),
          evaluated(1),
          completed(1),
          iteration(2),
          evaluated(2),
          completed(2, false, ["a.ts"])
        ),
        5000
      )
    ).toBeUndefined())

  it("no progress: another failure", () =>
    expect(
      stopCondition(state(started, iteration(1), evaluated(1), completed(1), iteration(2), other, completed(2)), 5000)
    ).toBeUndefined())
})

describe("the loop decider keeps bad limits out of the log", () => {
  const start = (bad: Partial<LoopConfig>): LoopCommand => ({
    _tag: "Start",
    loopId: L,
    goal: "green tests",
    projectPath: "/p",
    driver: "session",
    sessionId: "s1",
    config: { ...config, ...bad }
  })

  it("refuses a start with fewer than one iteration", () =>
    spec.given().when(start({ maxIterations: 0 })).thenRefused(/max_iterations/))

  it("refuses a start with a token limit below one", () =>
    spec.given().when(start({ maxTokens: 0 })).thenRefused(/max_tokens/))

  it("refuses a start with a cost limit of nothing", () =>
    spec.given().when(start({ maxCostUsd: 0 })).thenRefused(/max_cost_usd/))

  it("refuses a start with a context budget above the whole window", () =>
    spec.given().when(start({ contextBudget: 1.5 })).thenRefused(/context_budget/))

  it("refuses a config change to a negative cooldown", () =>
    spec.given(started).when({ _tag: "ChangeConfig", config: { ...config, cooldownMs: -1 } }).thenRefused(
      /cooldown_ms/
    ))

  it("accepts a config change within the limits", () =>
    spec.given(started).when({ _tag: "ChangeConfig", config: { ...config, maxIterations: 5 } }).then([
      { _tag: "LoopConfigChanged", loopId: L, config: { ...config, maxIterations: 5 } }
    ]))
})
