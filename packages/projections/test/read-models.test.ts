import { describe, expect, it } from "vitest"
import { run } from "../../events/test/helpers.ts"
import { verify } from "../src/index.ts"
import { config, ended, observation, prompt, started } from "./events.ts"
import { at, given, rows } from "./spec.ts"

describe("sessions", () => {
  it("folds a session's life: start, prompts, compaction, summary, end", () => {
    const memory = given([
      ["session:a", started("a")],
      ["session:a", prompt("a", "fix the bug")],
      ["session:a", prompt("a", "and add a test")],
      ["session:a", { _tag: "SessionCompacted", sessionId: "a", trigger: "auto" }],
      ["session:a", { _tag: "SessionSummarized", sessionId: "a", summary: "fixed the bug", summarizer: "local" }],
      ["session:a", ended("a")]
    ])
    expect(rows(memory, "SELECT * FROM sessions")).toEqual([
      {
        id: 1,
        session_id: "a",
        stream_id: "session:a",
        project_path: "/work/app",
        source: "startup",
        started_at: at(0),
        last_event_at: at(5),
        ended_at: at(5),
        end_reason: "exit",
        prompts: 2,
        compactions: 1,
        summary: "fixed the bug",
        summarizer: "local",
        memory_only: 0,
        tags: "[]"
      }
    ])
  })

  it("reopens an ended session that is resumed, keeping when it first started", () => {
    const memory = given([
      ["session:a", started("a")],
      ["session:a", ended("a")],
      ["session:a", started("a", "resume")]
    ])
    expect(rows(memory, "SELECT source, started_at, ended_at, end_reason FROM sessions")).toEqual([
      { source: "resume", started_at: at(0), ended_at: null, end_reason: null }
    ])
  })

  it("indexes a summary whether it creates the session's row or changes it", () => {
    const memory = given([
      ["session:z", {
        _tag: "SessionSummarized",
        sessionId: "z",
        summary: "first seen summarized",
        summarizer: "local"
      }],
      ["session:a", started("a")],
      ["session:a", { _tag: "SessionSummarized", sessionId: "a", summary: "summarized later", summarizer: "local" }],
      ["session:a", { _tag: "SessionSummarized", sessionId: "a", summary: "summarized again", summarizer: "local" }]
    ])
    const match = (query: string) =>
      rows(memory, "SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ? ORDER BY rowid", query)
    expect(match("first")).toEqual([{ rowid: 1 }])
    expect(match("later")).toEqual([])
    expect(match("again")).toEqual([{ rowid: 2 }])
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("still records a session whose start it never saw", () => {
    const memory = given([["session:b", prompt("b", "hello")]])
    expect(rows(memory, "SELECT session_id, project_path, prompts FROM sessions")).toEqual([
      { session_id: "b", project_path: null, prompts: 1 }
    ])
  })

  it("takes the project of a session whose start it never saw from the first event that names it", () => {
    const memory = given([
      ["session:c", observation("c", "ls", { projectPath: "/work/app" })],
      ["session:c", observation("c", "ls", { projectPath: "/elsewhere" })],
      ["session:c", { _tag: "AssistantReplied", sessionId: "c", projectPath: "/work/app", message: "done" }],
      ["session:d", prompt("d", "hello")],
      ["session:d", { _tag: "AssistantReplied", sessionId: "d", projectPath: "/work/app", message: "hi" }],
      ["session:d", {
        _tag: "SessionSummarized",
        sessionId: "d",
        projectPath: "/work/app",
        summary: "s",
        summarizer: "local-v2",
        memoryOnly: true
      }]
    ])
    expect(rows(memory, "SELECT session_id, project_path, summarizer, memory_only FROM sessions ORDER BY session_id"))
      .toEqual([
        { session_id: "c", project_path: "/work/app", summarizer: null, memory_only: 0 },
        { session_id: "d", project_path: "/work/app", summarizer: "local-v2", memory_only: 1 }
      ])
    // Each observation keeps the project its own event names.
    expect(rows(memory, "SELECT project_path FROM observation_rows ORDER BY id")).toEqual([{
      project_path: "/work/app"
    }, { project_path: "/elsewhere" }])
    expect(run(verify(memory)).findings).toEqual([])
  })
})

describe("observations", () => {
  it("stores each observation under its event's position, with files and metadata", () => {
    const memory = given([
      ["session:a", started("a")],
      [
        "session:a",
        observation("a", "FAIL src/auth.test.ts", {
          kind: "error",
          inputSummary: "npm test",
          files: ["src/auth.test.ts"],
          errorMessage: "Exit code 1",
          toolUseId: "toolu_1",
          durationMs: 812
        })
      ],
      ["note:n1", {
        _tag: "NoteInjected",
        noteId: "n1",
        projectPath: "/work/app",
        noteType: "note",
        text: "use pnpm, not npm"
      }]
    ])
    expect(
      rows(
        memory,
        "SELECT id, session_id, project_path, type, tool_name, input_summary, content, error_message, files, metadata,"
          + " created_at FROM observations"
      )
    ).toEqual([
      {
        id: 2,
        session_id: "a",
        project_path: "/work/app",
        type: "error",
        tool_name: "Bash",
        input_summary: "npm test",
        content: "FAIL src/auth.test.ts",
        error_message: "Exit code 1",
        files: "[\"src/auth.test.ts\"]",
        metadata: "{\"toolUseId\":\"toolu_1\",\"durationMs\":812}",
        created_at: at(1)
      },
      {
        id: 3,
        session_id: null,
        project_path: "/work/app",
        type: "note",
        tool_name: null,
        input_summary: null,
        content: "use pnpm, not npm",
        error_message: null,
        files: "[]",
        metadata: "{\"noteId\":\"n1\",\"noteType\":\"note\"}",
        created_at: at(2)
      }
    ])
  })

  it("keeps the full-text index in step: content, error, tool, files and identifier parts", () => {
    const memory = given([
      [
        "session:a",
        observation("a", "jwt rejected: TokenExpiredError", {
          errorMessage: "Exit code 1",
          files: ["src/token-store.ts"]
        })
      ],
      ["session:a", observation("a", "all green")]
    ])
    const match = (query: string) =>
      rows(memory, "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? ORDER BY rowid", query)
    expect(match("rejected")).toEqual([{ rowid: 1 }])
    expect(match("\"exit\"")).toEqual([{ rowid: 1 }])
    expect(match("bash")).toEqual([{ rowid: 1 }, { rowid: 2 }])
    expect(match("token AND store")).toEqual([{ rowid: 1 }])
    expect(match("expired")).toEqual([{ rowid: 1 }])
    expect(match("green")).toEqual([{ rowid: 2 }])
  })
})

describe("loop_runs", () => {
  const loop = (events: ReadonlyArray<Parameters<typeof given>[0][number][1]>) =>
    given(events.map((event) => ["loop:l1", event] as const))

  it("folds a loop to success through its iterations, criteria and snapshots", () => {
    const results = [{
      kind: "test_pass" as const,
      passed: false,
      durationMs: 120,
      outputTail: "1 failed",
      fingerprint: "auth"
    }]
    const memory = loop([
      {
        _tag: "LoopStarted",
        loopId: "l1",
        goal: "green tests",
        projectPath: "/work/app",
        driver: "session",
        sessionId: "a",
        config
      },
      { _tag: "LoopIterationStarted", loopId: "l1", iteration: 1 },
      { _tag: "LoopCriteriaEvaluated", loopId: "l1", iteration: 1, results },
      {
        _tag: "LoopIterationCompleted",
        loopId: "l1",
        iteration: 1,
        passed: false,
        filesChanged: ["src/a.ts"],
        snapshotRef: "snap-1"
      },
      { _tag: "LoopIterationStarted", loopId: "l1", iteration: 2 },
      {
        _tag: "LoopIterationCompleted",
        loopId: "l1",
        iteration: 2,
        passed: true,
        filesChanged: [],
        snapshotRef: "snap-2"
      },
      { _tag: "LoopSucceeded", loopId: "l1", iteration: 2 }
    ])
    expect(
      rows(
        memory,
        "SELECT loop_id, session_id, goal, driver, status, iterations, criteria_results, snapshot_refs, started_at,"
          + " ended_at, end_reason FROM loop_runs"
      )
    ).toEqual([
      {
        loop_id: "l1",
        session_id: "a",
        goal: "green tests",
        driver: "session",
        status: "success",
        iterations: 2,
        criteria_results: JSON.stringify(results),
        snapshot_refs: "[\"snap-1\",\"snap-2\"]",
        started_at: at(0),
        ended_at: at(6),
        end_reason: null
      }
    ])
    expect(
      rows(
        memory,
        "SELECT iteration, started_at, completed_at, passed, files_changed, snapshot_ref FROM loop_iterations"
      )
    ).toEqual([
      {
        iteration: 1,
        started_at: at(1),
        completed_at: at(3),
        passed: 0,
        files_changed: "[\"src/a.ts\"]",
        snapshot_ref: "snap-1"
      },
      { iteration: 2, started_at: at(4), completed_at: at(5), passed: 1, files_changed: "[]", snapshot_ref: "snap-2" }
    ])
  })

  it.each([
    [{ _tag: "LoopStopped", loopId: "l1", reason: "user asked", requestedBy: "cli" } as const, "stopped", "user asked"],
    [
      { _tag: "LoopFailed", loopId: "l1", reason: "max iterations (10) reached" } as const,
      "failed",
      "max iterations (10) reached"
    ]
  ])("records how a loop ended: %o", (end, status, reason) => {
    const memory = loop([
      { _tag: "LoopStarted", loopId: "l1", goal: "g", projectPath: "/p", driver: "external", config },
      end
    ])
    expect(rows(memory, "SELECT status, end_reason FROM loop_runs")).toEqual([{ status, end_reason: reason }])
  })

  it("takes the driver of the process that resumed a loop", () => {
    const memory = loop([
      { _tag: "LoopStarted", loopId: "l1", goal: "g", projectPath: "/p", driver: "session", sessionId: "a", config },
      { _tag: "LoopIterationStarted", loopId: "l1", iteration: 1 },
      { _tag: "LoopResumed", loopId: "l1", iteration: 1, driver: "external" }
    ])
    expect(rows(memory, "SELECT driver, status FROM loop_runs")).toEqual([{ driver: "external", status: "running" }])
  })
})
