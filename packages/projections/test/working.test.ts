import type { RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { run } from "../../events/test/helpers.ts"
import { currentTaskId, findTask, listBeliefs, replay, resumeBrief, searchDecisions, verify } from "../src/index.ts"
import { ended, observation, started } from "./events.ts"
import { append, at, dump, type Given, given, rows } from "./spec.ts"

const P = "/work/app"

const decision = (
  decisionId: string,
  text: string,
  rationale: string,
  fields: Partial<Extract<RalphMemEvent, { _tag: "DecisionRecorded" }>> = {}
): readonly [string, RalphMemEvent] => [`decision:${decisionId}`, {
  _tag: "DecisionRecorded",
  decisionId,
  projectPath: P,
  decision: text,
  rationale,
  alternatives: [],
  impact: "medium",
  ...fields
}]

const belief = (
  key: string,
  value: string | undefined,
  project = P
): readonly [string, RalphMemEvent] => [
  `belief:${project}#${key}`,
  value === undefined
    ? { _tag: "BeliefUnset", projectPath: project, key }
    : { _tag: "BeliefSet", projectPath: project, key, value }
]

const task = (taskId: string, event: Record<string, unknown>) =>
  [`task:${P}#${taskId}`, { taskId, ...event } as unknown as RalphMemEvent] as const

const forget = (memory: ReturnType<typeof given>, ...eventIds: Array<string>) =>
  append(memory, [["memory:forgets", { _tag: "MemoryForgotten", eventIds, selector: "test" }]], at(100))

const eventIdAt = (memory: ReturnType<typeof given>, position: number) =>
  memory.db.prepare("SELECT event_id FROM events WHERE position = ?").pluck().get(position) as string

describe("decisions", () => {
  const memory = () =>
    given([
      decision("d1", "Use a 1 hour token lifetime", "sessions expired mid-checkout", {
        alternatives: [{ option: "15 minutes", rejectedBecause: "too short for checkout" }, { option: "24h" }],
        impact: "high",
        taskId: "fix-login"
      }),
      decision("d2", "Rate-limit with TokenBucketLimiter", "bursts from the mobile app"),
      decision("d3", "인증을 JWT로 바꾼다", "세션 저장소가 필요 없다"),
      decision("d4", "Keep the checkout in one service", "the token lifetime is not the problem"),
      ["decision:other", {
        _tag: "DecisionRecorded",
        decisionId: "other",
        projectPath: "/elsewhere",
        decision: "Use a token lifetime of 5 minutes",
        rationale: "x",
        alternatives: [],
        impact: "low"
      }]
    ])
  const found = (m: ReturnType<typeof memory>, query: string) =>
    searchDecisions(m.db, { query, project: P, limit: 10 }).map((d) => d.decisionId)

  it("stores each decision with its rationale, alternatives, impact and task", () => {
    expect(
      rows(
        memory(),
        "SELECT id, decision_id, project_path, task_id, decision, rationale, alternatives, alternatives_text, impact,"
          + " created_at FROM decisions WHERE id = 1"
      )
    ).toEqual([{
      id: 1,
      decision_id: "d1",
      project_path: P,
      task_id: "fix-login",
      decision: "Use a 1 hour token lifetime",
      rationale: "sessions expired mid-checkout",
      alternatives: "[{\"option\":\"15 minutes\",\"rejectedBecause\":\"too short for checkout\"},{\"option\":\"24h\"}]",
      alternatives_text: "15 minutes too short for checkout\n24h",
      impact: "high",
      created_at: at(0)
    }])
  })

  it("are found by any of their words, the decision itself ranking over a rationale that mentions them", () => {
    const m = memory()
    expect(found(m, "token lifetime")).toEqual(["d1", "d4", "d2"])
    expect(found(m, "why so short?")).toEqual(["d1"])
    expect(searchDecisions(m.db, { query: "token lifetime", project: P, limit: 1 })[0]).toMatchObject({
      id: eventIdAt(m, 1),
      alternatives: [{ option: "15 minutes", rejectedBecause: "too short for checkout" }, { option: "24h" }],
      taskId: "fix-login",
      createdAt: at(0)
    })
  })

  it("find identifiers by their parts, Hangul words without their particles, and only this project's", () => {
    const m = memory()
    expect(found(m, "bucket limiter")).toEqual(["d2"])
    expect(found(m, "TokenBucketLimiter")[0]).toBe("d2")
    expect(found(m, "인증에서")).toEqual(["d3"])
    expect(found(m, "세션이")).toEqual(["d3"])
    expect(found(m, "5 minutes")).not.toContain("other")
  })

  it("take any text as a query: quotes, wildcards, minus, NEAR, column filters, punctuation alone", () => {
    const m = memory()
    for (
      const query of [
        "\"token",
        "token*",
        "-token",
        "NEAR(token lifetime)",
        "decision:token",
        "token AND OR NOT",
        "(((",
        "^",
        "\u0000",
        "*",
        ""
      ]
    ) {
      expect(() => found(m, query), query).not.toThrow()
    }
    // Operators are words like any other: `-mobile` looks for "mobile", it does not exclude it.
    expect(found(m, "\"lifetime\" -mobile NEAR(").sort()).toEqual(["d1", "d2", "d4"])
    expect(found(m, "*** ---")).toEqual([])
  })

  it("leave no trace in the table or the index once forgotten", () => {
    const m = memory()
    forget(m, eventIdAt(m, 2))
    expect(found(m, "bucket limiter mobile")).toEqual([])
    expect(rows(m, "SELECT decision_id FROM decisions ORDER BY id")).toEqual([
      { decision_id: "d1" },
      { decision_id: "d3" },
      { decision_id: "d4" },
      { decision_id: "other" }
    ])
    expect(run(verify(m)).findings).toEqual([])
  })
})

describe("beliefs", () => {
  it("hold each key's latest value, per project, the most recently set first; unset removes one", () => {
    const memory = given([
      belief("stack", "TypeScript"),
      belief("focus", "login"),
      belief("stack", "TypeScript on Node 24"),
      belief("blockers", "CI is red"),
      belief("blockers", undefined),
      belief("stack", "Go", "/elsewhere")
    ])
    expect(listBeliefs(memory.db, P)).toEqual([
      { key: "stack", value: "TypeScript on Node 24", eventId: eventIdAt(memory, 3), updatedAt: at(2) },
      { key: "focus", value: "login", eventId: eventIdAt(memory, 2), updatedAt: at(1) }
    ])
    expect(listBeliefs(memory.db, "/elsewhere").map((b) => b.value)).toEqual(["Go"])
  })

  it("after a forget, fall back to the value set before the forgotten one, or go", () => {
    const memory = given([
      belief("stack", "TypeScript"),
      belief("stack", "TypeScript, key sk-not-a-secret"),
      belief("focus", "login")
    ])
    forget(memory, eventIdAt(memory, 2))
    expect(listBeliefs(memory.db, P).map((b) => [b.key, b.value])).toEqual([["focus", "login"], [
      "stack",
      "TypeScript"
    ]])
    forget(memory, eventIdAt(memory, 1))
    expect(listBeliefs(memory.db, P).map((b) => b.key)).toEqual(["focus"])
    expect(run(verify(memory)).findings).toEqual([])
  })
})

describe("tasks", () => {
  const work: Given = [
    ["session:a", started("a")],
    task("fix-login", { _tag: "TaskStarted", projectPath: P, title: "Fix the login" }),
    ["session:a", observation("a", "read src/auth.ts", { toolName: "Read", files: [`${P}/src/auth.ts`] })],
    task("fix-login", { _tag: "TaskStepsPlanned", firstStep: 1, steps: ["read the code", "patch refresh"] }),
    ["session:a", observation("a", "", { toolName: "Edit", files: [`${P}/src/auth.ts`] })],
    [
      "session:a",
      observation("a", "String not found", { toolName: "Edit", kind: "error", files: [`${P}/src/failed.ts`] })
    ],
    ["session:a", observation("a", "", { toolName: "Write", files: ["/tmp/outside.txt"] })],
    ["session:a", observation("a", "", { toolName: "Bash", files: [`${P}/not-a-read.ts`] })],
    task("fix-login", { _tag: "TaskStepChanged", step: 1, status: "done" }),
    task("fix-login", { _tag: "TaskStepChanged", step: 2, status: "in_progress" }),
    task("fix-login", { _tag: "TaskFindingRecorded", finding: "refresh uses seconds" }),
    task("fix-login", { _tag: "TaskHandoffWritten", note: "first note" }),
    task("fix-login", { _tag: "TaskHandoffWritten", note: "run npm test next" }),
    ["session:a", observation("a", "npm test: 1 failed", { kind: "error" })],
    ["session:a", { _tag: "SessionSummarized", sessionId: "a", summary: "patched the login", summarizer: "local" }],
    ["session:a", ended("a")]
  ]

  it("fold into the task, its steps and findings, with the latest handoff note", () => {
    const memory = given(work)
    const detail = findTask(memory.db, P, "fix-login")!
    expect(detail).toMatchObject({
      taskId: "fix-login",
      title: "Fix the login",
      status: "open",
      startedAt: at(1),
      updatedAt: at(12),
      completedAt: null,
      steps: [
        { step: 1, text: "read the code", status: "done", eventId: eventIdAt(memory, 4) },
        { step: 2, text: "patch refresh", status: "in_progress", eventId: eventIdAt(memory, 4) }
      ],
      currentStep: { step: 2, text: "patch refresh" },
      findings: [{ id: eventIdAt(memory, 11), finding: "refresh uses seconds", createdAt: at(10) }],
      handoff: { note: "run npm test next", at: at(12), eventId: eventIdAt(memory, 13) }
    })
  })

  it("take the files read and modified from successful observations since the task started, project-relative", () => {
    const memory = given([
      ["session:a", observation("a", "", { toolName: "Read", files: [`${P}/before.ts`] })],
      ...work
    ])
    expect(findTask(memory.db, P, "fix-login")!.files).toEqual({
      read: ["src/auth.ts"],
      modified: ["/tmp/outside.txt", "src/auth.ts"]
    })
    append(memory, [task("fix-login", { _tag: "TaskCompleted" }), [
      "session:a",
      observation("a", "", { toolName: "Read", files: [`${P}/after.ts`] })
    ]], at(50))
    expect(findTask(memory.db, P, "fix-login")).toMatchObject({
      status: "done",
      completedAt: at(50),
      files: { read: ["src/auth.ts"] }
    })
  })

  it("make the open task changed last the current one", () => {
    const memory = given([
      task("a", { _tag: "TaskStarted", projectPath: P, title: "A" }),
      task("b", { _tag: "TaskStarted", projectPath: P, title: "B" }),
      task("a", { _tag: "TaskFindingRecorded", finding: "back to a" })
    ])
    expect(currentTaskId(memory.db, P)).toBe("a")
    append(memory, [task("a", { _tag: "TaskCompleted" })], at(10))
    expect(currentTaskId(memory.db, P)).toBe("b")
    expect(currentTaskId(memory.db, "/elsewhere")).toBeUndefined()
  })

  it("lose what a forget names: a step plan, a handoff note (the earlier one returns), the task with its start", () => {
    const memory = given(work)
    forget(memory, eventIdAt(memory, 4), eventIdAt(memory, 13))
    expect(findTask(memory.db, P, "fix-login")).toMatchObject({
      steps: [],
      currentStep: null,
      handoff: { note: "first note" }
    })
    forget(memory, eventIdAt(memory, 2))
    expect(findTask(memory.db, P, "fix-login")).toBeUndefined()
    expect(rows(memory, "SELECT (SELECT count(*) FROM task_steps) + (SELECT count(*) FROM task_findings) AS n"))
      .toEqual([{ n: 0 }])
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("give the resume brief: the current task, and the last session's errors and summary", () => {
    const memory = given([...work, ["session:b", started("b")], [
      "session:b",
      observation("b", "b failed", { kind: "error" })
    ]])
    const brief = resumeBrief(memory.db, P)
    expect(brief.task?.taskId).toBe("fix-login")
    expect(brief.lastSession).toMatchObject({ sessionId: "b", summary: null, errors: [{ content: "b failed" }] })
    expect(resumeBrief(memory.db, P, { sessionId: "a" }).lastSession).toMatchObject({
      sessionId: "a",
      summary: "patched the login",
      errors: [{ content: "String not found" }, { content: "npm test: 1 failed" }]
    })
    expect(resumeBrief(memory.db, P, { excludeSessionId: "b" }).lastSession?.sessionId).toBe("a")
    expect(resumeBrief(memory.db, "/elsewhere")).toEqual({ task: null, lastSession: null })
  })
})

describe("working memory in replay and verify", () => {
  const sample: Given = [
    decision("d1", "Use SQLite", "one file", { alternatives: [{ option: "Postgres", rejectedBecause: "a server" }] }),
    belief("stack", "TypeScript"),
    belief("stack", "TypeScript on Node 24"),
    belief("focus", "login"),
    belief("focus", undefined),
    task("t", { _tag: "TaskStarted", projectPath: P, title: "T" }),
    task("t", { _tag: "TaskStepsPlanned", firstStep: 1, steps: ["one", "two"] }),
    task("t", { _tag: "TaskStepChanged", step: 1, status: "done" }),
    task("t", { _tag: "TaskFindingRecorded", finding: "f" }),
    task("t", { _tag: "TaskHandoffWritten", note: "h" }),
    task("t", { _tag: "TaskCompleted" })
  ]

  it("replays byte-identical to what appends built inline, and verifies clean, before and after a forget", () => {
    const memory = given(sample)
    const inline = dump(memory)
    expect(run(replay(memory)).projections).toEqual(expect.arrayContaining(["decisions", "beliefs", "tasks"]))
    expect(dump(memory)).toBe(inline)
    expect(run(verify(memory)).findings).toEqual([])
    forget(memory, eventIdAt(memory, 1), eventIdAt(memory, 3), eventIdAt(memory, 7))
    const afterForget = dump(memory)
    run(replay(memory))
    expect(dump(memory)).toBe(afterForget)
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("are caught by verify when a row drifts from the log", () => {
    const memory = given(sample)
    memory.db.prepare("UPDATE task_steps SET status = 'pending'").run()
    expect(run(verify(memory)).findings).toContainEqual({
      check: "projections equal a replay",
      detail: expect.stringMatching(/^projection tasks, table task_steps: row 1 differs/)
    })
  })
})
