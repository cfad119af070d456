/** Event builders for projection tests. */
import type { RalphMemEvent } from "@ralph-mem/events"

export const started = (sessionId: string, source: "startup" | "resume" = "startup"): RalphMemEvent => ({
  _tag: "SessionStarted",
  sessionId,
  projectPath: "/work/app",
  source
})

export const prompt = (sessionId: string, text: string): RalphMemEvent => ({
  _tag: "PromptSubmitted",
  sessionId,
  prompt: text
})

export const observation = (
  sessionId: string,
  content: string,
  fields: Partial<Extract<RalphMemEvent, { _tag: "ObservationRecorded" }>> = {}
): RalphMemEvent => ({
  _tag: "ObservationRecorded",
  sessionId,
  kind: "tool_use",
  toolName: "Bash",
  content,
  files: [],
  ...fields
})

export const ended = (sessionId: string): RalphMemEvent => ({ _tag: "SessionEnded", sessionId, reason: "exit" })

export const config = {
  maxIterations: 10,
  noProgressThreshold: 3,
  cooldownMs: 1000,
  contextBudget: 0.6,
  successCriteria: [{ kind: "test_pass" as const }]
}
