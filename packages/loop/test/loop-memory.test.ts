/** The loop's memory in the next prompt, read from a real memory the observations were folded into. */
import type { LoopConfig, RalphMemEvent } from "@ralph-mem/events"
import { estimateTokens } from "@ralph-mem/projections"
import { describe, expect, it } from "vitest"
import { observation } from "../../projections/test/events.ts"
import { given, T0 } from "../../projections/test/spec.ts"
import { agentSession, loopMemory } from "../src/loop-memory.ts"
import { fold } from "../src/state.ts"

const config: LoopConfig = {
  maxIterations: 3,
  noProgressThreshold: 2,
  cooldownMs: 0,
  contextBudget: 0.6,
  successCriteria: []
}
const started: RalphMemEvent = {
  _tag: "LoopStarted",
  loopId: "l1",
  goal: "green",
  projectPath: "/p",
  driver: "session",
  sessionId: "s",
  config
}
const loopStartedAt = (at: number) => fold([{ event: started, occurredAt: at }])!

const recorded = (sessionId: string, kind: "tool_use" | "error" | "success" | "note", content: string) =>
  [`session:${sessionId}`, observation(sessionId, content, { kind })] as const

describe("a loop's memory", () => {
  it("holds the errors and successes of the loop's session and of its agent runs, newest first", () => {
    const memory = given([
      recorded("s", "error", "first failure"),
      recorded("s", "tool_use", "ls"),
      recorded(agentSession("l1"), "success", "agent passed"),
      recorded("other", "error", "another session"),
      recorded("s", "note", "a note"),
      recorded("s", "error", "second failure")
    ])
    expect(loopMemory(memory, loopStartedAt(T0))).toEqual([
      "- [error] Bash : second failure",
      "- [success] Bash : agent passed",
      "- [error] Bash : first failure"
    ])
  })

  it("leaves out what was recorded before the loop started", () => {
    const memory = given([recorded("s", "error", "old failure"), recorded("s", "error", "new failure")])
    expect(loopMemory(memory, loopStartedAt(T0 + 1000))).toEqual(["- [error] Bash : new failure"])
  })

  it("keeps the newest that fit a small budget, each clipped to one line", () => {
    const memory = given(
      Array.from({ length: 20 }, (_, i) => recorded("s", "error", `failure ${i}\n${"stack frame ".repeat(60)}`))
    )
    const lines = loopMemory(memory, loopStartedAt(T0))
    expect(lines.length).toBeGreaterThan(1)
    expect(lines.length).toBeLessThan(20)
    expect(lines[0]).toMatch(/^- \[error\] Bash : failure 19 stack frame/)
    expect(lines.every((line) => !line.includes("\n") && line.length <= 400 + "- [error] ".length)).toBe(true)
    expect(lines.reduce((sum, line) => sum + estimateTokens(line), 0)).toBeLessThanOrEqual(600)
  })
})
