/** The task decider, one scenario per test, given / when / then. */
import type { RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { deciderSpecification } from "../../projections/test/decider-specification.ts"
import { taskDecider } from "../src/task.ts"

const spec = deciderSpecification(taskDecider)
const T = "fix-login"
const started: RalphMemEvent = { _tag: "TaskStarted", taskId: T, projectPath: "/p", title: "Fix the login" }
const planned = (firstStep: number, ...steps: Array<string>): RalphMemEvent => ({
  _tag: "TaskStepsPlanned",
  taskId: T,
  firstStep,
  steps
})
const changed = (step: number, status: "pending" | "in_progress" | "done"): RalphMemEvent => ({
  _tag: "TaskStepChanged",
  taskId: T,
  step,
  status
})
const completed: RalphMemEvent = { _tag: "TaskCompleted", taskId: T }
const plan = [started, planned(1, "read", "patch")] as const

describe("the task fold", () => {
  it("keeps the title, the plan's steps with their statuses, and whether the task is done", () =>
    expect(
      spec.given(
        started,
        planned(1, "read", "patch"),
        planned(3, "test"),
        changed(1, "done"),
        changed(2, "in_progress")
      ).state()
    ).toEqual({
      taskId: T,
      title: "Fix the login",
      status: "open",
      steps: [{ text: "read", status: "done" }, { text: "patch", status: "in_progress" }, {
        text: "test",
        status: "pending"
      }]
    }))

  it("knows a completed task is done", () => expect(spec.given(started, completed).state()?.status).toBe("done"))

  it("is nothing before the task starts (its start forgotten), whatever else the stream holds", () =>
    expect(spec.given(planned(1, "read"), changed(1, "done")).state()).toBeUndefined())
})

describe("the task decider", () => {
  it("starts a task with a trimmed title", () =>
    spec.given().when({ _tag: "Start", taskId: T, projectPath: "/p", title: "  Fix the login " }).then([started]))

  it("starts a task once", () =>
    spec.given(started).when({ _tag: "Start", taskId: T, projectPath: "/p", title: "again" }).thenRefused(
      /^task fix-login already exists$/
    ))

  it("refuses an empty title", () =>
    spec.given().when({ _tag: "Start", taskId: T, projectPath: "/p", title: " \n " }).thenRefused(
      /^the task title is empty$/
    ))

  it("plans the first steps, trimmed", () =>
    spec.given(started).when({ _tag: "Plan", steps: ["read", " patch "] }).then([planned(1, "read", "patch")]))

  it("adds steps to the end of the plan, numbered on from the last", () =>
    spec.given(...plan).when({ _tag: "Plan", steps: ["test"] }).then([planned(3, "test")]))

  it("refuses an empty step", () =>
    spec.given(started).when({ _tag: "Plan", steps: ["read", ""] }).thenRefused(/^the step is empty$/))

  it("refuses a plan of no steps", () =>
    spec.given(started).when({ _tag: "Plan", steps: [] }).thenRefused(/^name at least one step$/))

  it("sets a step's status", () =>
    spec.given(...plan).when({ _tag: "SetStep", step: 2, status: "in_progress" }).then([changed(2, "in_progress")]))

  it("changes nothing when the step already has the status", () =>
    spec.given(...plan, changed(2, "in_progress")).when({ _tag: "SetStep", step: 2, status: "in_progress" })
      .thenNothingHappens())

  it("changes nothing when a new step is set to pending", () =>
    spec.given(...plan).when({ _tag: "SetStep", step: 1, status: "pending" }).thenNothingHappens())

  it.each([0, 3, -1, 1.5])(
    "refuses step %s, which the plan does not have, saying which it has",
    (step) =>
      spec.given(...plan).when({ _tag: "SetStep", step, status: "done" }).thenRefused(
        `task fix-login has no step ${step} (it has steps 1 to 2)`
      )
  )

  it("refuses a step before there is a plan", () =>
    spec.given(started).when({ _tag: "SetStep", step: 1, status: "done" }).thenRefused(
      /has no step 1 \(it has no plan yet/
    ))

  it("records a finding, trimmed", () =>
    spec.given(started).when({ _tag: "RecordFinding", finding: " uses seconds " }).then([{
      _tag: "TaskFindingRecorded",
      taskId: T,
      finding: "uses seconds"
    }]))

  it("writes a handoff note", () =>
    spec.given(started).when({ _tag: "WriteHandoff", note: "run the tests next" }).then([{
      _tag: "TaskHandoffWritten",
      taskId: T,
      note: "run the tests next"
    }]))

  it("refuses an empty finding", () =>
    spec.given(started).when({ _tag: "RecordFinding", finding: "" }).thenRefused(/^the finding is empty$/))

  it("refuses an empty handoff note", () =>
    spec.given(started).when({ _tag: "WriteHandoff", note: "  " }).thenRefused(/^the handoff note is empty$/))

  it("completes a task", () => spec.given(started).when({ _tag: "Complete" }).then([completed]))

  it.each([{ _tag: "Complete" }, { _tag: "Plan", steps: ["x"] }, { _tag: "WriteHandoff", note: "x" }] as const)(
    "changes nothing of a done task: %o",
    (command) => spec.given(started, completed).when(command).thenRefused(/^task fix-login is done$/)
  )

  it("refuses anything but a start for a task that does not exist", () =>
    spec.given().when({ _tag: "RecordFinding", finding: "x" }).thenRefused(/^there is no such task$/))
})
