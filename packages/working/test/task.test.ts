import type { RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { Refused } from "../src/refused.ts"
import { decideTask, evolveTask, type TaskCommand } from "../src/task.ts"

const T = "fix-login"
const started: RalphMemEvent = { _tag: "TaskStarted", taskId: T, projectPath: "/p", title: "Fix the login" }
const planned = (firstStep: number, ...steps: Array<string>): RalphMemEvent => ({ _tag: "TaskStepsPlanned", taskId: T, firstStep, steps })
const changed = (step: number, status: "pending" | "in_progress" | "done"): RalphMemEvent => ({ _tag: "TaskStepChanged", taskId: T, step, status })
const completed: RalphMemEvent = { _tag: "TaskCompleted", taskId: T }

/** given events, when a command, then events or a refusal. */
const given = (...events: ReadonlyArray<RalphMemEvent>) => {
  const state = events.reduce(evolveTask, undefined)
  return { state, when: (command: TaskCommand) => decideTask(state, command) }
}
const refusal = (outcome: unknown) => {
  expect(outcome).toBeInstanceOf(Refused)
  return (outcome as Refused).message
}

describe("the task fold", () => {
  it("keeps the title, the plan's steps with their statuses, and whether the task is done", () => {
    expect(given(started, planned(1, "read", "patch"), planned(3, "test"), changed(1, "done"), changed(2, "in_progress")).state).toEqual({
      taskId: T,
      title: "Fix the login",
      status: "open",
      steps: [{ text: "read", status: "done" }, { text: "patch", status: "in_progress" }, { text: "test", status: "pending" }]
    })
    expect(given(started, completed).state?.status).toBe("done")
  })

  it("is nothing before the task starts (its start forgotten), whatever else the stream holds", () => {
    expect(given(planned(1, "read"), changed(1, "done")).state).toBeUndefined()
  })
})

describe("the task decider", () => {
  it("starts a task with a trimmed title, once", () => {
    expect(given().when({ _tag: "Start", taskId: T, projectPath: "/p", title: "  Fix the login " })).toEqual([started])
    expect(refusal(given(started).when({ _tag: "Start", taskId: T, projectPath: "/p", title: "again" }))).toBe("task fix-login already exists")
    expect(refusal(given().when({ _tag: "Start", taskId: T, projectPath: "/p", title: " \n " }))).toBe("the task title is empty")
  })

  it("adds steps to the end of the plan, numbered on from the last", () => {
    expect(given(started).when({ _tag: "Plan", steps: ["read", " patch "] })).toEqual([planned(1, "read", "patch")])
    expect(given(started, planned(1, "read", "patch")).when({ _tag: "Plan", steps: ["test"] })).toEqual([planned(3, "test")])
    expect(refusal(given(started).when({ _tag: "Plan", steps: ["read", ""] }))).toBe("the step is empty")
    expect(refusal(given(started).when({ _tag: "Plan", steps: [] }))).toBe("name at least one step")
  })

  it("sets a step's status; the same status again changes nothing", () => {
    const plan = [started, planned(1, "read", "patch")] as const
    expect(given(...plan).when({ _tag: "SetStep", step: 2, status: "in_progress" })).toEqual([changed(2, "in_progress")])
    expect(given(...plan, changed(2, "in_progress")).when({ _tag: "SetStep", step: 2, status: "in_progress" })).toEqual([])
    expect(given(...plan).when({ _tag: "SetStep", step: 1, status: "pending" })).toEqual([])
  })

  it("refuses a step the plan does not have, saying which it has", () => {
    const plan = [started, planned(1, "read", "patch")] as const
    for (const step of [0, 3, -1, 1.5]) expect(refusal(given(...plan).when({ _tag: "SetStep", step, status: "done" }))).toBe(`task fix-login has no step ${step} (it has steps 1 to 2)`)
    expect(refusal(given(started).when({ _tag: "SetStep", step: 1, status: "done" }))).toMatch(/has no step 1 \(it has no plan yet/)
  })

  it("records findings and handoff notes, refusing empty ones", () => {
    expect(given(started).when({ _tag: "RecordFinding", finding: " uses seconds " })).toEqual([{ _tag: "TaskFindingRecorded", taskId: T, finding: "uses seconds" }])
    expect(given(started).when({ _tag: "WriteHandoff", note: "run the tests next" })).toEqual([{ _tag: "TaskHandoffWritten", taskId: T, note: "run the tests next" }])
    expect(refusal(given(started).when({ _tag: "RecordFinding", finding: "" }))).toBe("the finding is empty")
    expect(refusal(given(started).when({ _tag: "WriteHandoff", note: "  " }))).toBe("the handoff note is empty")
  })

  it("completes a task, after which nothing changes it", () => {
    expect(given(started).when({ _tag: "Complete" })).toEqual([completed])
    for (const command of [{ _tag: "Complete" }, { _tag: "Plan", steps: ["x"] }, { _tag: "WriteHandoff", note: "x" }] as const) {
      expect(refusal(given(started, completed).when(command))).toBe("task fix-login is done")
    }
  })

  it("refuses anything but a start for a task that does not exist", () => {
    expect(refusal(given().when({ _tag: "RecordFinding", finding: "x" }))).toBe("there is no such task")
  })
})
