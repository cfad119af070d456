import {
  estimateTokens,
  type FailureRecord,
  type ObservationHit,
  recogniseFailure,
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
  promptItems,
  renderSections,
  resumeItems,
  sessionStartItems,
  showHits,
  type ShownHit
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
    id: 1,
    eventId,
    sessionId: "s1",
    type: "error",
    toolName: "Bash",
    inputSummary: "npm test",
    content,
    errorMessage: "Exit code 1",
    createdAt: T0
  })
  const step = (n: number, text: string, status: TaskStep["status"]): TaskStep => ({
    step: n,
    text,
    status,
    eventId: "plan-1"
  })
  const task: TaskDetail = {
    taskId: "fix-login",
    title: "Fix the login",
    status: "open",
    eventId: "task-1",
    startedAt: T0,
    updatedAt: T0,
    completedAt: null,
    steps: [
      step(1, "read the code", "done"),
      step(2, "patch refresh()", "in_progress"),
      step(3, "run the tests", "pending")
    ],
    currentStep: step(2, "patch refresh()", "in_progress"),
    findings: [{ id: "finding-1", finding: "refresh() counts seconds", createdAt: T0 }],
    handoff: { note: "half-patched in src/auth.ts; run npm test next", at: T0, eventId: "handoff-1" },
    files: { read: [], modified: [] }
  }
  const brief: ResumeBrief = {
    task,
    lastSession: {
      sessionId: "s1",
      startedAt: T0,
      lastEventAt: T0,
      endedAt: T0,
      summary: "Goal: fix the login",
      errors: [error("err-1", "FAIL auth.test.ts")]
    }
  }
  const beliefs = [{ key: "stack", value: "TypeScript on Node 24", eventId: "belief-1", updatedAt: T0 }]
  const failure = (position: number, eventId: string, command: string, headline: string): FailureRecord => ({
    position,
    eventId,
    sessionId: "s1",
    family: "test",
    command,
    ...recogniseFailure(`Exit code 1\n${headline}`),
    failedAt: T0,
    resolution: null
  })
  const base: ProjectMemory = {
    project: "/work/app",
    beliefs,
    loops: [],
    notes: [],
    successes: [],
    summaries: [{ id: 1, sessionId: "s1", startedAt: T0, endedAt: T0, summary: "Goal: fix the login" }],
    openErrors: splitFailures([
      failure(3, "err-1", "npm test", "FAIL auth.test.ts"),
      failure(2, "err-0", "npm test -- db", "older failure")
    ]).open,
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
    expect(injection.sources).toEqual([
      "task-1",
      "plan-1",
      "handoff-1",
      "finding-1",
      "err-1",
      "s1",
      "belief-1",
      "err-0"
    ])
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
    expect(
      resumeItems({ task: { ...task, steps: [], currentStep: null, handoff: null, findings: [] }, lastSession: null })
        .map((i) => i.full)
    ).toEqual([
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

  it("tells a lesson with what failed (its other failures when they failed otherwise) and the code of the fix", () => {
    const pass = { position: 9, eventId: "pass-9", at: T0 }
    const tsc = (position: number, output: string): FailureRecord => ({
      ...failure(position, `fail-${position}`, "npx tsc --noEmit", ""),
      family: "typecheck",
      ...recogniseFailure(output),
      resolution: pass
    })
    const strict =
      "src/routes/index.ts(31,17): error TS2532: Object is possibly 'undefined'.\nFound 27 errors in 9 files."
    const { lessons } = splitFailures([
      tsc(7, "Found 26 errors in 8 files."),
      tsc(5, "Found 26 errors in 8 files."),
      tsc(2, strict)
    ])
    const edit = {
      position: 8,
      eventId: "edit-8",
      text: "/work/app/src/routes/index.ts",
      change: "- req.user.id\n+ req.user?.id ?? anonymous"
    }
    const activity = { edits: [edit], commands: [], notes: [], decisions: [] }
    const items = sessionStartItems({ ...base, openErrors: [], lessons: lessons.map((l) => ({ ...l, activity })) })
    expect(items.find((i) => i.section === "Lessons: errors fixed since")?.full).toBe(
      "- `npx tsc --noEmit` failed @7 (2026-11-20 09:00) with Found 26 errors in 8 files; " +
        "earlier @2: src/routes/index.ts(31,17): error TS2532: Object is possibly 'undefined'; " +
        "fixed: edited src/routes/index.ts (`req.user?.id ?? anonymous`) @8; passed 2026-11-20 09:00 @9"
    )
  })

  it("tells an open error with its other failures when they failed otherwise, each once", () => {
    const tsc = (position: number, output: string): FailureRecord => ({
      ...failure(position, `fail-${position}`, "npx tsc --noEmit", ""),
      family: "typecheck",
      ...recogniseFailure(output)
    })
    const strict =
      "src/routes/index.ts(31,17): error TS2532: Object is possibly 'undefined'.\nFound 27 errors in 9 files."
    const { open } = splitFailures([
      tsc(7, "Found 26 errors in 8 files."),
      tsc(5, "Found 26 errors in 8 files."),
      tsc(2, strict)
    ])
    const items = sessionStartItems({ ...base, openErrors: open })
    expect(items.find((i) => i.section === "Open errors")?.full).toBe(
      "- 2026-11-20 09:00 `npx tsc --noEmit` failed (3 times): Found 26 errors in 8 files; " +
        "earlier @2: src/routes/index.ts(31,17): error TS2532: Object is possibly 'undefined'"
    )
  })
})

describe("what a prompt is told", () => {
  const T0 = Date.parse("2026-11-20T09:00:00Z")
  const hit = (id: string, type: string, title: string, body?: ShownHit["body"]): ShownHit => ({
    kind: type === "summary" ? "session" : "observation",
    id,
    score: 1,
    sessionId: "s1",
    type,
    title,
    createdAt: T0,
    tokens: 10,
    body
  })
  const outcome =
    "Asked: The dashboard cannot call the API. Outcome: Preflight OPTIONS requests returned 404; the cors " +
    "middleware now runs before the router, with origins from config.allowedOrigins. Changed: src/app.ts."

  it("shows what a hit holds past its title: a summary's outcome, an edit's new lines, a search's files", () => {
    const items = promptItems(undefined, [
      hit("s1", "summary", outcome.slice(0, 159), { toolName: null, inputSummary: null, text: outcome }),
      hit("e1", "tool_use", "Edit src/db.ts: - new Pool({ max: 10 }) + new Pool({ max: 4…", {
        toolName: "Edit",
        inputSummary: "src/db.ts",
        text: "- new Pool({ max: 10 })\n+ new Pool({ max: 40 })"
      }),
      hit("e2", "tool_use", "Read src/db.ts: read src/db.ts (40 lines)", {
        toolName: "Read",
        inputSummary: "src/db.ts",
        text: "read src/db.ts (40 lines)"
      }),
      hit("e3", "tool_use", "Grep Pool in .: {\"mode\"…", {
        toolName: "Grep",
        inputSummary: "Pool in .",
        text: JSON.stringify({ mode: "files_with_matches", filenames: ["src/db.ts", "src/db.ts"] })
      }),
      hit("e4", "tool_use", "Bash npm test: ok")
    ])
    expect(items.map((i) => i.full)).toEqual([
      `- 2026-11-20 09:00 [summary] ${outcome}`,
      "- 2026-11-20 09:00 [tool_use] Edit src/db.ts: new Pool({ max: 40 })",
      "- 2026-11-20 09:00 [tool_use] Read src/db.ts",
      "- 2026-11-20 09:00 [tool_use] Grep Pool in .: src/db.ts",
      "- 2026-11-20 09:00 [tool_use] Bash npm test: ok"
    ])
    expect(items[0]!.compact).toBe(`- [summary] ${outcome.slice(0, 99)}…`)
  })

  it("leaves out the last word of a text cut where it was read: a path cut there is never shown", () => {
    const read = 40
    const text = `${"a ".repeat(12)}/home/dev/work/app/src/x.ts`.slice(0, read)
    const cutWhereRead = new Map([["n1", { toolName: null, inputSummary: null, text }]])
    const [cut] = showHits([hit("n1", "note", "t")], cutWhereRead, read)
    expect(cut!.body?.text).toBe(`${"a ".repeat(12)}`)
    const short = new Map([["n1", { toolName: null, inputSummary: null, text: "short" }]])
    const [whole] = showHits([hit("n1", "note", "t")], short, read)
    expect(whole!.body?.text).toBe("short")
    expect(showHits([hit("n2", "note", "t")], new Map(), read)[0]!.body).toBeUndefined()
  })

  it("bounds what a hit shows", () => {
    const long = "x".repeat(5000)
    const [item] = promptItems(undefined, [
      hit("e1", "tool_use", "Bash ls", { toolName: "Bash", inputSummary: "ls", text: long })
    ])
    // 240 characters of what it holds, after its time and type.
    expect(item!.full.length).toBeLessThanOrEqual("- 2026-11-20 09:00 [tool_use] ".length + 240)
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
