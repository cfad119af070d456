/**
 * `ralph-mem stats` against a database whose metrics are known by construction: every event is appended
 * through the real log (projections inline) to a real SQLite file, and the CLI reads it as a process.
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { run, tempFolder } from "../../../packages/events/test/helpers.ts"
import { openMemory } from "../../../packages/projections/src/index.ts"
import { runCli } from "../../../tests/support/cli.ts"

const NOW = Date.now()
const DAY = 86_400_000

const build = () => {
  const path = join(tempFolder(), "memory.db")
  const memory = run(openMemory({ path }))
  let tick = 0
  const append = (
    stream: string,
    event: RalphMemEvent,
    options: { writer?: string; correlationId?: string; at?: number } = {}
  ) =>
    Effect.runSync(memory.log.append(stream, [event], {
      expectedVersion: "any",
      writer: options.writer ?? "cli:test",
      occurredAt: options.at ?? NOW - DAY + tick++ * 1000,
      ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId })
    })).events[0]!
  const observation = (sessionId: string, fields: Partial<Extract<RalphMemEvent, { _tag: "ObservationRecorded" }>>) =>
    append(`session:${sessionId}`, {
      _tag: "ObservationRecorded",
      sessionId,
      kind: "tool_use",
      toolName: "Bash",
      content: "x",
      files: [],
      ...fields
    })
  const injection = (sessionId: string, sources: ReadonlyArray<string>, at?: number) =>
    append(`session:${sessionId}`, {
      _tag: "ContextInjected",
      sessionId,
      hookEvent: "SessionStart",
      reason: "r",
      text: "t",
      tokens: 10,
      sources
    }, at === undefined ? {} : { at })

  // Memories from an earlier session: a file the error was in, an identifier, and a note opened by id.
  const authError = observation("old", {
    kind: "error",
    inputSummary: "npm test",
    files: ["/work/app/src/auth.ts"],
    errorMessage: "FAIL"
  })
  const refresh = observation("old", { inputSummary: "edit refreshSession in the token module" })
  const note = observation("old", { inputSummary: "deploy note" })

  // Used: the injected error's file is edited later in the session.
  injection("a", [authError.eventId])
  observation("a", { toolName: "Edit", inputSummary: "src/auth.ts", files: ["/work/app/src/auth.ts"] })
  // Used: the identifier comes back in a later command.
  injection("b", [refresh.eventId])
  observation("b", { inputSummary: "grep -rn refreshSession src" })
  // Used: Claude opened the note by id through the memory tools.
  injection("c", [note.eventId])
  append("session:c", {
    _tag: "MemoryToolCalled",
    sessionId: "c",
    tool: "get",
    ids: [note.eventId],
    returned: [note.eventId],
    tokens: 40
  })
  // Used: Claude ran `ralph-mem show @<position>` (the id the injected line gives) in its shell.
  injection("f", [refresh.eventId])
  observation("f", { inputSummary: `ralph-mem show @${refresh.position}` })
  // Not used: a search that merely returned it, and an edit made before the injection.
  observation("d", { toolName: "Edit", inputSummary: "src/auth.ts", files: ["/work/app/src/auth.ts"] })
  injection("d", [authError.eventId, note.eventId])
  append("session:d", {
    _tag: "MemoryToolCalled",
    sessionId: "d",
    tool: "search",
    query: "deploy",
    returned: [note.eventId],
    tokens: 30
  })
  // Older than the window: not counted at all.
  injection("e", [authError.eventId], NOW - 90 * DAY)

  // Hooks: 9 invocations that recorded (one of them wrote two events) and 1 that failed.
  for (let i = 0; i < 9; i++) {
    const writer = i % 2 === 0 ? "hook:PostToolUse" : "hook:UserPromptSubmit"
    append("session:h", { _tag: "PromptSubmitted", sessionId: "h", prompt: `p${i}` }, {
      writer,
      correlationId: `inv-${i}`
    })
    if (i === 0) {
      append("session:h", { _tag: "AssistantReplied", sessionId: "h", message: "m" }, {
        writer,
        correlationId: "inv-0"
      })
    }
  }
  append("hook-failures", { _tag: "HookFailed", hook: "PostToolUse", reason: "database is locked" }, {
    writer: "hook:PostToolUse"
  })

  // Loops: success after 2 and 4 iterations, one failed, one still running (not ended: not counted).
  const config = {
    maxIterations: 10,
    noProgressThreshold: 3,
    cooldownMs: 0,
    contextBudget: 0.6,
    successCriteria: [{ kind: "test_pass" as const }]
  }
  const loop = (loopId: string, iterations: number, end: "success" | "failed" | "running") => {
    const stream = `loop:${loopId}`
    append(stream, { _tag: "LoopStarted", loopId, goal: "g", projectPath: "/work/app", driver: "external", config })
    for (let n = 1; n <= iterations; n++) append(stream, { _tag: "LoopIterationStarted", loopId, iteration: n })
    if (end === "success") append(stream, { _tag: "LoopSucceeded", loopId, iteration: iterations })
    if (end === "failed") append(stream, { _tag: "LoopFailed", loopId, reason: "max iterations (10) reached" })
  }
  loop("l1", 2, "success")
  loop("l2", 4, "success")
  loop("l3", 10, "failed")
  loop("l4", 1, "running")
  memory.db.close()
  return path
}

describe("ralph-mem stats", () => {
  it("computes the four success metrics of a memory whose answers are known", () => {
    const path = build()
    const result = runCli(["stats", "--db", path, "--since", "30d", "--json"])
    expect(result.code, result.stderr).toBe(0)
    const stats = JSON.parse(result.stdout)
    expect(stats.injectionUse).toMatchObject({ value: 0.8, numerator: 4, denominator: 5, met: true, target: "> 50%" })
    expect(stats.hookSuccess).toMatchObject({ numerator: 9, denominator: 10, value: 0.9, met: false })
    expect(stats.loopSuccess).toMatchObject({ numerator: 2, denominator: 3, met: false })
    expect(stats.loopSuccess.value).toBeCloseTo(2 / 3, 10)
    expect(stats.meanIterations).toMatchObject({ value: 3, numerator: 6, denominator: 2, met: true })
    expect(stats.daily.length).toBeGreaterThanOrEqual(1)
    for (const metric of [stats.injectionUse, stats.hookSuccess, stats.loopSuccess, stats.meanIterations]) {
      expect(metric.definition.length).toBeGreaterThan(20)
    }
  })

  it("prints each metric with its definition for people, and counts the older injection with a wider window", () => {
    const path = build()
    const text = runCli(["stats", "--db", path]).stdout
    expect(text).toMatch(
      /^injection use: 80\.0% \(4 of 5\), target > 50%  met\n  injections \(ContextInjected\) of which/m
    )
    expect(text).toMatch(/^hook success: 90\.0% \(9 of 10\), target > 99%  not met$/m)
    expect(text).toMatch(
      /^mean iterations of a successful loop: 3\.00 \(6 iterations over 2 loops\), target < 5  met$/m
    )
    const wide = JSON.parse(runCli(["stats", "--db", path, "--since", "120d", "--json"]).stdout)
    expect(wide.injectionUse).toMatchObject({ numerator: 4, denominator: 6 })
  })

  it("says there is nothing to measure on an empty memory, and refuses a malformed --since", () => {
    const path = join(tempFolder(), "empty.db")
    const empty = JSON.parse(runCli(["stats", "--db", path, "--json"]).stdout)
    expect(empty.injectionUse).toMatchObject({ value: null, met: null, denominator: 0 })
    expect(runCli(["stats", "--db", path]).stdout).toMatch(/injection use: nothing to measure yet/)
    const bad = runCli(["stats", "--db", path, "--since", "soon"])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/--since "soon" is not a date/)
  })
})
