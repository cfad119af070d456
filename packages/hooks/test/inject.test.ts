import {
  estimateTokens,
  type FailureRecord,
  type ObservationHit,
  type ResumeBrief,
  type TaskDetail,
  type TaskStep
} from "@ralph-mem/projections"
import { defaultSettings } from "@ralph-mem/settings"
import { describe, expect, it } from "vitest"
import { machine } from "../../settings/test/fixture.ts"
import {
  fitToBudget,
  injectionBudgetTokens,
  type InjectionItem,
  OPEN_LINE,
  type ProjectMemory,
  renderSections,
  resumeItems,
  sessionStartItems
} from "../src/inject.ts"
import { splitFailures } from "../src/lessons.ts"

const item = (n: number, size = 200): InjectionItem => ({
  section: n % 2 === 0 ? "Even" : "Odd",
  full: `- item ${n} ${"detail ".repeat(size / 7)}`,
  compact: `- item ${n}`,
  sources: [`event-${n}`]
})

describe("fitting memory to the injection budget", () => {
  const items = Array.from({ length: 6 }, (_, n) => item(n))

  it("uses the full layer when it fits, grouped by section, naming every source", () => {
    const injection = fitToBudget(items, 10_000)!
    expect(injection.layer).toBe("full")
    expect(injection.text).toMatch(/^# ralph-mem: .*\n\n## Even\n- item 0 detail/)
    expect(injection.sources).toEqual(items.flatMap((i) => i.sources))
    expect(injection.tokens).toBe(estimateTokens(injection.text))
  })

  it("falls back to the compact layer when the full one is over budget", () => {
    const injection = fitToBudget(items, 80)!
    expect(injection.layer).toBe("compact")
    expect(injection.text).toContain("- item 5")
    expect(injection.tokens).toBeLessThanOrEqual(80)
  })

  it("drops the least important items when even the compact layer is over, never exceeding the budget", () => {
    for (const budget of [15, 20, 25, 30, 40]) {
      const injection = fitToBudget(items, budget)
      if (injection !== undefined) {
        expect(injection.tokens).toBeLessThanOrEqual(budget)
        expect(injection.text).toContain("- item 0")
      }
    }
    expect(fitToBudget(items, 22)!.sources.length).toBeLessThan(items.length)
  })

  it("injects nothing when there is nothing, or nothing fits", () => {
    expect(fitToBudget([], 10_000)).toBeUndefined()
    expect(fitToBudget(items, 1)).toBeUndefined()
  })
})

describe("what a session is told at its start", () => {
  const T0 = Date.parse("2026-11-20T09:00:00Z")
  const error = (eventId: string, content: string): ObservationHit => ({
    id: 1, eventId, sessionId: "s1", type: "error", toolName: "Bash", inputSummary: "npm test", content, errorMessage: "Exit code 1", createdAt: T0
  })
  const step = (n: number, text: string, status: TaskStep["status"]): TaskStep => ({ step: n, text, status, eventId: "plan-1" })
  const task: TaskDetail = {
    taskId: "fix-login",
    title: "Fix the login",
    status: "open",
    eventId: "task-1",
    startedAt: T0,
    updatedAt: T0,
    completedAt: null,
    steps: [step(1, "read the code", "done"), step(2, "patch refresh()", "in_progress"), step(3, "run the tests", "pending")],
    currentStep: step(2, "patch refresh()", "in_progress"),
    findings: [{ id: "finding-1", finding: "refresh() counts seconds", createdAt: T0 }],
    handoff: { note: "half-patched in src/auth.ts; run npm test next", at: T0, eventId: "handoff-1" },
    files: { read: [], modified: [] }
  }
  const brief: ResumeBrief = {
    task,
    lastSession: { sessionId: "s1", startedAt: T0, lastEventAt: T0, endedAt: T0, summary: "Goal: fix the login", errors: [error("err-1", "FAIL auth.test.ts")] }
  }
  const beliefs = [{ key: "stack", value: "TypeScript on Node 24", eventId: "belief-1", updatedAt: T0 }]
  const failure = (position: number, eventId: string, command: string, headline: string): FailureRecord => ({
    position, eventId, sessionId: "s1", family: "test", command, output: `Exit code 1\n${headline}`, failedAt: T0, resolution: null
  })
  const base: ProjectMemory = {
    project: "/work/app",
    beliefs,
    loops: [],
    notes: [],
    successes: [],
    summaries: [{ id: 1, sessionId: "s1", startedAt: T0, endedAt: T0, summary: "Goal: fix the login" }],
    openErrors: splitFailures([failure(3, "err-1", "npm test", "FAIL auth.test.ts"), failure(2, "err-0", "npm test -- db", "older failure")]).open,
    lessons: []
  }

  it("on resume: where the last session stopped first, then the beliefs, without repeating the brief", () => {
    const injection = fitToBudget(sessionStartItems({ ...base, brief }), 10_000)!
    expect(injection.text).toBe([
      "# ralph-mem: what this project's memory holds",
      OPEN_LINE,
      "",
      "## Where the last session stopped",
      "- task `fix-login`: Fix the login; step 2 of 3, in progress: patch refresh()",
      "  [x] 1. read the code",
      "  [>] 2. patch refresh()",
      "  [ ] 3. run the tests",
      "- handoff note (2026-11-20 09:00): half-patched in src/auth.ts; run npm test next",
      "- finding: refresh() counts seconds",
      "- error 2026-11-20 09:00 `Bash npm test`: Exit code 1: FAIL auth.test.ts @1",
      "- last session (2026-11-20 09:00): Goal: fix the login",
      "",
      "## Project beliefs",
      "- stack: TypeScript on Node 24",
      "",
      "## Open errors",
      "- 2026-11-20 09:00 `npm test -- db` failed: older failure @2"
    ].join("\n"))
    // The summary is named by its session: the hook records the summary's event in its place.
    expect(injection.sources).toEqual(["task-1", "plan-1", "handoff-1", "finding-1", "err-1", "s1", "belief-1", "err-0"])
  })

  it("keeps the task, its step and the handoff note when the budget is tight", () => {
    const items = sessionStartItems({ ...base, brief })
    const injection = fitToBudget(items, 120)!
    expect(injection.layer).toBe("compact")
    expect(injection.text).toContain("- task `fix-login`: Fix the login; step 2 of 3, in progress: patch refresh()")
    expect(injection.text).toContain("- handoff note: half-patched in src/auth.ts; run npm test next")
    expect(injection.text).not.toContain("[x] 1.")
  })

  it("says where a plan stands when it has no step left, or none yet", () => {
    const done = resumeItems({ task: { ...task, steps: [step(1, "x", "done")], currentStep: null }, lastSession: null })
    expect(done[0]!.full).toBe("- task `fix-login`: Fix the login; all 1 steps done\n  [x] 1. x")
    expect(resumeItems({ task: { ...task, steps: [], currentStep: null, handoff: null, findings: [] }, lastSession: null }).map((i) => i.full)).toEqual([
      "- task `fix-login`: Fix the login; no plan yet"
    ])
    expect(resumeItems({ task: null, lastSession: null })).toEqual([])
  })

  it("at any other start: the beliefs, and no brief", () => {
    const injection = fitToBudget(sessionStartItems(base), 10_000)!
    expect(injection.text).toContain("## Project beliefs\n- stack: TypeScript on Node 24")
    expect(injection.text).not.toContain("Where the last session stopped")
    expect(renderSections(resumeItems(brief), "compact").split("\n")[0]).toBe("## Where the last session stopped")
  })
})

describe("injectionBudgetTokens", () => {
  it("is the injected share of the context window, rounded down", () => {
    expect(injectionBudgetTokens(defaultSettings)).toBe(30_000)
    const settings = { ...defaultSettings, memory: { ...defaultSettings.memory, contextWindow: 199_999 } }
    expect(injectionBudgetTokens(settings)).toBe(29_999)
  })

  it("follows the configured share", () => {
    const m = machine()
    m.write(m.projectFile, "memory:\n  context_window: 100000\n  injected_memory: 0.1\n")
    expect(injectionBudgetTokens(m.load().settings)).toBe(10_000)
  })
})
