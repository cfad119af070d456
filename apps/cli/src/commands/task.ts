/**
 * `ralph-mem task ...`: the working state of a task: its plan steps and their statuses, findings, and a
 * handoff note for the next session; the files read and modified come from the observations.
 */
import { findProjectRoot, streams, TaskStepStatus } from "@ralph-mem/events"
import {
  currentTaskId,
  findTask,
  handleCommand,
  listDecisions,
  listTasks,
  type MemoryStore,
  type TaskDetail,
  taskIds
} from "@ralph-mem/projections"
import { parseName, type TaskCommand, taskDecider, taskIdFor } from "@ralph-mem/working"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withExistingStore, withStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { taskMarkdown } from "../markdown.ts"
import { displayWidth, padToWidth, printJson, printText } from "../output.ts"

const project = () => findProjectRoot(process.cwd())

/** A task named on the command line: it must exist in this project. */
export const existingTask = (memory: MemoryStore, raw: string) => {
  const taskId = parseName("task id", raw)
  if (typeof taskId !== "string") return flags.failWith(taskId.message)
  return taskIds(memory.db, project()).has(taskId)
    ? Effect.succeed(taskId)
    : flags.failWith(`unknown task ${taskId} in this project; ralph-mem task list shows them`)
}

/** `--task T`, else the current task; without either, a clear error. */
const chosenTask = (memory: MemoryStore, task: Option.Option<string>) => {
  if (Option.isSome(task)) return existingTask(memory, task.value)
  const current = currentTaskId(memory.db, project())
  return current === undefined
    ? flags.failWith("there is no open task; start one with ralph-mem task start <title>")
    : Effect.succeed(current)
}

/** Runs a task command and reports it: `said` describes what changed (or that nothing did). */
const change = (
  memory: MemoryStore,
  taskId: string,
  command: TaskCommand,
  options: { readonly json: boolean; readonly said: (task: TaskDetail, changed: boolean) => string }
) =>
  Effect.gen(function*() {
    const root = project()
    const { events } = yield* handleCommand(memory, streams.task(root, taskId), taskDecider, command, "cli:task")
    const task = findTask(memory.db, root, taskId)!
    if (options.json) return yield* printJson(task)
    yield* Console.log(options.said(task, events.length > 0))
  })

const start = Command.make(
  "start",
  {
    title: Argument.String("title").pipe(
      Argument.withDescription("What the task is about"),
      Argument.variadic({ min: 1 })
    ),
    id: Flag.String("id").pipe(Flag.withDescription("The task's id (default: made from the title)"), Flag.optional),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const title = input.title.join(" ")
        const chosen = Option.isSome(input.id)
          ? parseName("task id", input.id.value)
          : taskIdFor(title, taskIds(memory.db, project()))
        if (typeof chosen !== "string") return yield* flags.failWith(chosen.message)
        yield* change(memory, chosen, { _tag: "Start", taskId: chosen, projectPath: project(), title }, {
          json: input.json,
          said: () => `Started task ${chosen}. It is the current task; plan it with: ralph-mem task plan <step>...`
        })
      }))
).pipe(Command.withDescription("Start a task; it becomes the current task"))

const plan = Command.make(
  "plan",
  {
    steps: Argument.String("step").pipe(
      Argument.withDescription("Steps to add to the end of the plan, one argument each"),
      Argument.variadic({ min: 1 })
    ),
    task: flags.task,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const taskId = yield* chosenTask(memory, input.task)
        const added = input.steps.length
        yield* change(memory, taskId, { _tag: "Plan", steps: input.steps }, {
          json: input.json,
          said: ({ steps }) =>
            `Task ${taskId}: planned step${
              added === 1 ? ` ${steps.length}` : `s ${steps.length - added + 1} to ${steps.length}`
            }.`
        })
      }))
).pipe(Command.withDescription("Add steps to a task's plan"))

const step = Command.make(
  "step",
  {
    step: Argument.Int("n").pipe(Argument.withDescription("The step's number, as task show prints it")),
    status: Argument.Literals("status", TaskStepStatus.literals).pipe(
      Argument.withDescription("pending, in_progress or done")
    ),
    task: flags.task,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const taskId = yield* chosenTask(memory, input.task)
        yield* change(memory, taskId, { _tag: "SetStep", step: input.step, status: input.status }, {
          json: input.json,
          said: (_, changed) =>
            `Task ${taskId}: step ${input.step} ${changed ? "is now" : "was already"} ${
              input.status.replace("_", " ")
            }.`
        })
      }))
).pipe(Command.withDescription("Set a plan step's status: pending, in_progress or done"))

/** A subcommand that records one piece of text on the task (`--task T`, else the current one). */
const textCommand = (spec: {
  readonly name: string
  readonly argumentName: string
  readonly argument: string
  readonly description: string
  readonly command: (text: string) => TaskCommand
  readonly said: (taskId: string) => string
}) =>
  Command.make(
    spec.name,
    {
      text: Argument.String(spec.argumentName).pipe(
        Argument.withDescription(spec.argument),
        Argument.variadic({ min: 1 })
      ),
      task: flags.task,
      db: flags.db,
      json: flags.json
    },
    (input) =>
      withStore(input.db, (memory) =>
        Effect.gen(function*() {
          const taskId = yield* chosenTask(memory, input.task)
          yield* change(memory, taskId, spec.command(input.text.join(" ")), {
            json: input.json,
            said: () => spec.said(taskId)
          })
        }))
  ).pipe(Command.withDescription(spec.description))

const finding = textCommand({
  name: "finding",
  argumentName: "text",
  argument: "What was found out",
  description: "Record a key finding of the task",
  command: (finding) => ({ _tag: "RecordFinding", finding }),
  said: (taskId) => `Task ${taskId}: finding recorded.`
})

const handoff = textCommand({
  name: "handoff",
  argumentName: "note",
  argument: "What the next session needs to know to go on",
  description: "Write the task's handoff note for the next session (replaces the previous one)",
  command: (note) => ({ _tag: "WriteHandoff", note }),
  said: (taskId) => `Task ${taskId}: handoff note saved. A resumed session is told it (and ralph-mem resume prints it).`
})

const done = Command.make(
  "done",
  { task: flags.task, db: flags.db, json: flags.json },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const taskId = yield* chosenTask(memory, input.task)
        yield* change(memory, taskId, { _tag: "Complete" }, { json: input.json, said: () => `Task ${taskId} is done.` })
      }))
).pipe(Command.withDescription("Mark a task done"))

const show = Command.make(
  "show",
  {
    task: Argument.String("task").pipe(
      Argument.withDescription("The task (default: the current one, else the latest)"),
      Argument.optional
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withExistingStore(input.db, (memory) =>
      Effect.gen(function*() {
        const root = project()
        // Listed open first, the task changed last first: the first is the current task, else the latest.
        const task = Option.isSome(input.task)
          ? findTask(memory.db, root, yield* existingTask(memory, input.task.value))
          : listTasks(memory.db, root)[0]
        if (task === undefined) {
          return yield* flags.failWith("there is no task in this project; start one with ralph-mem task start <title>")
        }
        const decisions = listDecisions(memory.db, { project: root, taskId: task.taskId })
        if (input.json) return yield* printJson({ ...task, decisions })
        yield* printText(taskMarkdown(task, decisions).trimEnd())
      }))
).pipe(
  Command.withDescription(
    "Show a task: plan and step statuses, findings, handoff note, files read and modified, decisions"
  )
)

/** A task's line of `task list`, its id padded to `idWidth` columns so the other columns line up. */
const listLine = (task: TaskDetail, idWidth: number) => {
  const done = task.steps.filter((s) => s.status === "done").length
  const progress = task.steps.length === 0 ? "no plan" : `${done}/${task.steps.length} steps done`
  return `${padToWidth(task.taskId, idWidth)}  ${task.status.padEnd(4)}  ${progress.padEnd(16)}  ${task.title}`
}

const list = Command.make(
  "list",
  { db: flags.db, json: flags.json },
  (input) =>
    withExistingStore(input.db, (memory) =>
      Effect.gen(function*() {
        const tasks = listTasks(memory.db, project())
        if (input.json) return yield* printJson(tasks)
        if (tasks.length === 0) return yield* Console.log("No tasks yet. Start one with: ralph-mem task start <title>")
        const idWidth = Math.max(...tasks.map((task) => displayWidth(task.taskId)))
        for (const task of tasks) yield* printText(listLine(task, idWidth))
      }))
).pipe(Command.withDescription("List this project's tasks, open ones first"))

export const task = Command.make("task").pipe(
  Command.withDescription(
    "Working state: a task's plan and step statuses, findings, handoff note, files read and modified"
  ),
  Command.withSubcommands([start, plan, step, finding, handoff, done, show, list])
)
