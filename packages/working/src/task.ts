/**
 * A task's working state is the fold of its stream: a title, plan steps with statuses, open or done.
 * `decideTask` says which events a command produces, or why it is refused. Pure: no clock, no I/O.
 */
import type { RalphMemEvent, TaskStepStatus } from "@ralph-mem/events"
import { type Decider, refuse, type Refused } from "@ralph-mem/projections"

export interface TaskState {
  readonly taskId: string
  readonly title: string
  readonly status: "open" | "done"
  readonly steps: ReadonlyArray<{ readonly text: string; readonly status: TaskStepStatus }>
}

export type TaskCommand =
  | { readonly _tag: "Start"; readonly taskId: string; readonly projectPath: string; readonly title: string }
  | { readonly _tag: "Plan"; readonly steps: ReadonlyArray<string> }
  | { readonly _tag: "SetStep"; readonly step: number; readonly status: TaskStepStatus }
  | { readonly _tag: "RecordFinding"; readonly finding: string }
  | { readonly _tag: "WriteHandoff"; readonly note: string }
  | { readonly _tag: "Complete" }

const evolveTask = (state: TaskState | undefined, event: RalphMemEvent): TaskState | undefined => {
  if (event._tag === "TaskStarted") return { taskId: event.taskId, title: event.title, status: "open", steps: [] }
  if (state === undefined) return undefined
  switch (event._tag) {
    case "TaskStepsPlanned": {
      const steps = [...state.steps]
      event.steps.forEach((text, index) => (steps[event.firstStep - 1 + index] = { text, status: "pending" }))
      return { ...state, steps }
    }
    case "TaskStepChanged":
      return { ...state, steps: state.steps.map((s, i) => (i === event.step - 1 ? { ...s, status: event.status } : s)) }
    case "TaskCompleted":
      return { ...state, status: "done" }
    default:
      return state
  }
}

const text = (value: string, what: string): string | Refused => {
  const trimmed = value.trim()
  return trimmed === "" ? refuse(`the ${what} is empty`) : trimmed
}

const decideTask = (state: TaskState | undefined, command: TaskCommand): ReadonlyArray<RalphMemEvent> | Refused => {
  if (command._tag === "Start") {
    if (state !== undefined) return refuse(`task ${state.taskId} already exists`)
    const title = text(command.title, "task title")
    return typeof title === "string"
      ? [{ _tag: "TaskStarted", taskId: command.taskId, projectPath: command.projectPath, title }]
      : title
  }
  if (state === undefined) return refuse("there is no such task")
  if (state.status === "done") return refuse(`task ${state.taskId} is done`)
  const taskId = state.taskId
  switch (command._tag) {
    case "Plan": {
      const steps: Array<string> = []
      for (const step of command.steps) {
        const checked = text(step, "step")
        if (typeof checked !== "string") return checked
        steps.push(checked)
      }
      if (steps.length === 0) return refuse("name at least one step")
      return [{ _tag: "TaskStepsPlanned", taskId, firstStep: state.steps.length + 1, steps }]
    }
    case "SetStep": {
      const step = state.steps[command.step - 1]
      if (!Number.isInteger(command.step) || step === undefined) {
        return refuse(
          `task ${taskId} has no step ${command.step}${
            state.steps.length === 0
              ? " (it has no plan yet: ralph-mem task plan <step>...)"
              : ` (it has steps 1 to ${state.steps.length})`
          }`
        )
      }
      return step.status === command.status
        ? []
        : [{ _tag: "TaskStepChanged", taskId, step: command.step, status: command.status }]
    }
    case "RecordFinding": {
      const finding = text(command.finding, "finding")
      return typeof finding === "string" ? [{ _tag: "TaskFindingRecorded", taskId, finding }] : finding
    }
    case "WriteHandoff": {
      const note = text(command.note, "handoff note")
      return typeof note === "string" ? [{ _tag: "TaskHandoffWritten", taskId, note }] : note
    }
    case "Complete":
      return [{ _tag: "TaskCompleted", taskId }]
  }
}

export const taskDecider: Decider<TaskState | undefined, TaskCommand> = {
  initialState: undefined,
  evolve: evolveTask,
  decide: decideTask
}
