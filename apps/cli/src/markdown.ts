/** Working memory as Markdown: what `task show` and `why` print, and what `export --format md` writes. */
import {
  type Belief,
  type Decision,
  formatTime,
  oneLine,
  type ProjectLoop,
  type ProjectNote,
  type ProjectSession,
  type TaskDetail,
  type TaskStep
} from "@ralph-mem/projections"

const heading = (level: number, text: string) => `${"#".repeat(level)} ${oneLine(text, Number.MAX_SAFE_INTEGER)}`

/** One decision under a heading of `level`: why, the alternatives rejected, impact, task, time, id. */
export const decisionMarkdown = (decision: Decision, level: number): string =>
  [
    heading(level, decision.decision),
    "",
    `- why: ${decision.rationale}`,
    ...decision.alternatives.map((a) =>
      `- rejected: ${a.option}${a.rejectedBecause === undefined ? "" : ` (${a.rejectedBecause})`}`
    ),
    `- impact ${decision.impact}${decision.taskId === null ? "" : `, task \`${decision.taskId}\``}, ${
      formatTime(decision.createdAt)
    }, id \`${decision.id}\``
  ].join("\n")

export const decisionsMarkdown = (decisions: ReadonlyArray<Decision>): string =>
  [
    heading(1, "Decisions"),
    ...(decisions.length === 0 ? ["None recorded."] : decisions.map((d) => decisionMarkdown(d, 2)))
  ].join("\n\n") + "\n"

export const beliefsMarkdown = (beliefs: ReadonlyArray<Belief>): string =>
  [
    heading(1, "Project beliefs"),
    beliefs.length === 0 ? "None recorded." : beliefs.map((b) => `- **${b.key}**: ${b.value}`).join("\n")
  ].join("\n\n") + "\n"

const stepLine = (step: TaskStep) =>
  `- [${step.status === "done" ? "x" : " "}] ${step.step}. ${step.text}${
    step.status === "in_progress" ? " (in progress)" : ""
  }`

/** A task's working state: plan, findings, handoff note, files, and the decisions taken for it. */
export const taskMarkdown = (task: TaskDetail, decisions: ReadonlyArray<Decision>): string => {
  const times = [
    `started ${formatTime(task.startedAt)}`,
    `updated ${formatTime(task.updatedAt)}`,
    ...(task.completedAt === null ? [] : [`done ${formatTime(task.completedAt)}`])
  ]
  const section = (
    title: string,
    body: ReadonlyArray<string>,
    empty: string
  ) => [heading(2, title), body.length === 0 ? empty : body.join("\n")]
  return [
    heading(1, `Task ${task.taskId}: ${task.title}`),
    `${task.status}; ${times.join(", ")}`,
    ...section("Plan", task.steps.map(stepLine), "No plan yet."),
    ...section("Findings", task.findings.map((f) => `- ${f.finding}`), "None."),
    ...section(
      "Handoff note",
      task.handoff === null ? [] : [`${task.handoff.note}\n\n(written ${formatTime(task.handoff.at)})`],
      "None."
    ),
    ...section("Files", [
      ...(task.files.read.length === 0 ? [] : [`- read: ${task.files.read.join(", ")}`]),
      ...(task.files.modified.length === 0 ? [] : [`- modified: ${task.files.modified.join(", ")}`])
    ], "None read or modified since the task started."),
    ...section(
      "Decisions",
      decisions.length === 0 ? [] : [decisions.map((d) => decisionMarkdown(d, 3)).join("\n\n")],
      "None."
    )
  ].join("\n\n") + "\n"
}

/** "ended <time> (<reason>)", or undefined when it has not ended. */
const ended = (at: number | null, reason: string | null): string | undefined =>
  at === null ? undefined : `ended ${formatTime(at)}${reason === null ? "" : ` (${reason})`}`

/** The project's sessions, oldest first, each with its summary. */
export const sessionsMarkdown = (sessions: ReadonlyArray<ProjectSession>): string =>
  [
    heading(1, "Sessions"),
    ...(sessions.length === 0 ? ["None recorded."] : sessions.map((s) =>
      [
        heading(2, `Session ${s.sessionId}`),
        `started ${formatTime(s.startedAt)}, ${ended(s.endedAt, s.endReason) ?? "not ended"}, ${s.prompts} prompt(s)`,
        s.summary ?? "No summary."
      ].join("\n\n")
    ))
  ].join("\n\n") + "\n"

/** The notes `inject` remembered, oldest first. */
export const notesMarkdown = (notes: ReadonlyArray<ProjectNote>): string =>
  [
    heading(1, "Notes"),
    notes.length === 0
      ? "None recorded."
      : notes.map((n) => `- (${n.noteType}, ${formatTime(n.createdAt)}) ${n.text}`).join("\n")
  ].join("\n\n") + "\n"

/** The project's Ralph loops, oldest first: goal, mode, outcome. */
export const loopsMarkdown = (loops: ReadonlyArray<ProjectLoop>): string =>
  [
    heading(1, "Ralph loops"),
    ...(loops.length === 0 ? ["None recorded."] : loops.map((l) =>
      [
        heading(2, `Loop ${l.loopId}: ${l.goal}`),
        `${l.mode} loop, ${l.status} after ${l.iterations} iteration(s); started ${formatTime(l.startedAt)}` +
        (l.endedAt === null ? "" : `, ${ended(l.endedAt, l.endReason)}`)
      ].join("\n\n")
    ))
  ].join("\n\n") + "\n"
