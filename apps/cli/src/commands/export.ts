/**
 * `ralph-mem export`: the decisions, beliefs, working state, sessions, notes and loops as readable files
 * (Markdown or JSON), for
 * people and for other agents. Everything comes from the read models, so it is already privacy-filtered.
 */
import { ensureOutputFolder, findProjectRoot, writePrivateFile } from "@ralph-mem/events"
import {
  type Belief,
  type Decision,
  listBeliefs,
  listDecisions,
  listTasks,
  type ProjectLoop,
  projectLoops,
  type ProjectNote,
  projectNotes,
  type ProjectSession,
  projectSessions,
  type TaskDetail
} from "@ralph-mem/projections"
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { join, resolve } from "node:path"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import {
  beliefsMarkdown,
  decisionsMarkdown,
  loopsMarkdown,
  notesMarkdown,
  sessionsMarkdown,
  taskMarkdown
} from "../markdown.ts"
import { forReading, printJson } from "../output.ts"
import { existingTask } from "./task.ts"

interface Exported {
  readonly beliefs: ReadonlyArray<Belief>
  readonly decisions: ReadonlyArray<Decision>
  readonly tasks: ReadonlyArray<TaskDetail>
  /** The project's sessions, notes and loops: left out when one task is exported. */
  readonly history?: {
    readonly sessions: ReadonlyArray<ProjectSession>
    readonly notes: ReadonlyArray<ProjectNote>
    readonly loops: ReadonlyArray<ProjectLoop>
  }
}

/** File name and content of each file, in one format. */
const files = (
  { beliefs, decisions, tasks, history }: Exported,
  format: "md" | "json"
): Array<readonly [string, string]> => {
  const decisionsOf = (task: TaskDetail) => decisions.filter((d) => d.taskId === task.taskId)
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
  return format === "md"
    ? [
      // Markdown is for reading: paths relative to the project, as everywhere a person reads them.
      ["beliefs.md", forReading(beliefsMarkdown(beliefs))],
      ["decisions.md", forReading(decisionsMarkdown(decisions))],
      ...(history === undefined ? [] : [
        ["sessions.md", forReading(sessionsMarkdown(history.sessions))],
        ["notes.md", forReading(notesMarkdown(history.notes))],
        ["loops.md", forReading(loopsMarkdown(history.loops))]
      ] as const),
      ...tasks.map((task) => [`task-${task.taskId}.md`, forReading(taskMarkdown(task, decisionsOf(task)))] as const)
    ]
    : [
      ["beliefs.json", json(beliefs)],
      ["decisions.json", json(decisions)],
      ...(history === undefined ? [] : [
        ["sessions.json", json(history.sessions)],
        ["notes.json", json(history.notes)],
        ["loops.json", json(history.loops)]
      ] as const),
      ...tasks.map((task) => [`task-${task.taskId}.json`, json({ ...task, decisions: decisionsOf(task) })] as const)
    ]
}

export const exportCommand = Command.make(
  "export",
  {
    format: Flag.Literals("format", ["md", "json"]).pipe(
      Flag.withDescription("Markdown for people, JSON for programs"),
      Flag.withDefault("md")
    ),
    task: Flag.String("task").pipe(
      Flag.withDescription(
        "Only this task (and its decisions); beliefs are always written, sessions, notes and loops then not"
      ),
      Flag.optional
    ),
    out: Flag.String("out").pipe(
      Flag.withDescription("The folder to write to (default: <project>/.ralph-mem/export)"),
      Flag.optional
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withExistingStore(input.db, (memory) =>
      Effect.gen(function*() {
        const project = findProjectRoot(process.cwd())
        const taskId = Option.isSome(input.task) ? yield* existingTask(memory, input.task.value) : undefined
        const exported: Exported = {
          beliefs: listBeliefs(memory.db, project),
          decisions: listDecisions(memory.db, { project, ...(taskId === undefined ? {} : { taskId }) }),
          tasks: listTasks(memory.db, project).filter((t) => taskId === undefined || t.taskId === taskId),
          ...(taskId === undefined
            ? {
              history: {
                sessions: projectSessions(memory.db, project),
                notes: projectNotes(memory.db, project),
                loops: projectLoops(memory.db, project)
              }
            }
            : {})
        }
        const folder = Option.isSome(input.out) ? resolve(input.out.value) : join(project, ".ralph-mem", "export")
        const written = yield* Effect.try({
          try: () => {
            // The default folder is inside .ralph-mem (0700, kept out of commits); files are 0600, never
            // written through a link.
            ensureOutputFolder(folder)
            return files(exported, input.format).map(([name, content]) => {
              writePrivateFile(join(folder, name), content)
              return join(folder, name)
            })
          },
          catch: (error) =>
            new Error(`cannot write to ${folder}: ${error instanceof Error ? error.message : String(error)}`)
        })
        if (input.json) return yield* printJson({ folder, files: written })
        const { beliefs, decisions, tasks, history } = exported
        const counts = [
          `${beliefs.length} belief(s)`,
          `${decisions.length} decision(s)`,
          `${tasks.length} task(s)`,
          ...(history === undefined
            ? []
            : [
              `${history.sessions.length} session(s)`,
              `${history.notes.length} note(s)`,
              `${history.loops.length} loop(s)`
            ])
        ]
        yield* Console.log(`Wrote ${written.length} file(s) to ${folder}: ${counts.join(", ")}.`)
        for (const path of written) yield* Console.log(`  ${path}`)
      }))
).pipe(
  Command.withDescription(
    "Write the decisions, beliefs, tasks, sessions, notes and loops as readable files (Markdown or JSON)"
  )
)
