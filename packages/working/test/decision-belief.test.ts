import type { RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { Refused } from "../../projections/src/decider.ts"
import { deciderSpecification } from "../../projections/test/decider-specification.ts"
import { beliefDecider } from "../src/belief.ts"
import { decideDecision } from "../src/decision.ts"
import { parseName, taskIdFor } from "../src/names.ts"

const message = (outcome: unknown) => {
  expect(outcome).toBeInstanceOf(Refused)
  return (outcome as Refused).message
}

describe("decisions", () => {
  const input = {
    decisionId: "d1",
    projectPath: "/p",
    decision: " Use SQLite ",
    rationale: " one file, no server ",
    alternatives: [],
    impact: "high" as const
  }

  it("records the decision and rationale trimmed, with the task when given", () => {
    expect(decideDecision({ ...input, taskId: "t1" })).toEqual([
      {
        _tag: "DecisionRecorded",
        decisionId: "d1",
        projectPath: "/p",
        decision: "Use SQLite",
        rationale: "one file, no server",
        alternatives: [],
        impact: "high",
        taskId: "t1"
      }
    ])
  })

  it("splits each alternative at its first ': ' into the option and why it was rejected", () => {
    const alternatives = ["Postgres: needs a server: too much", "https://example.com/db: remote", " LevelDB ", "Redis:"]
    expect(decideDecision({ ...input, alternatives })).toEqual([expect.objectContaining({
      alternatives: [
        { option: "Postgres", rejectedBecause: "needs a server: too much" },
        { option: "https://example.com/db", rejectedBecause: "remote" },
        { option: "LevelDB" },
        { option: "Redis" }
      ]
    })])
    expect(message(decideDecision({ ...input, alternatives: [": no option"] }))).toMatch(/names no option/)
  })

  it("refuses an empty decision", () =>
    expect(message(decideDecision({ ...input, decision: "  " }))).toBe("the decision is empty"))

  it("refuses an empty rationale", () =>
    expect(message(decideDecision({ ...input, rationale: "" }))).toBe("the rationale is empty: say why with --why"))

  it("refuses an alternative without an option", () =>
    expect(message(decideDecision({ ...input, alternatives: ["ok: fine", "   "] }))).toMatch(/names no option/))
})

describe("beliefs", () => {
  const spec = deciderSpecification(beliefDecider)
  const set = (value: string) => ({ _tag: "Set", projectPath: "/p", key: "stack", value }) as const
  const wasSet = (value: string): RalphMemEvent => ({ _tag: "BeliefSet", projectPath: "/p", key: "stack", value })

  it("sets a value, trimmed", () => spec.given().when(set(" TypeScript ")).then([wasSet("TypeScript")]))

  it("changes nothing when the value is the same", () =>
    spec.given(wasSet("TypeScript")).when(set("TypeScript")).thenNothingHappens())

  it("replaces a value", () => spec.given(wasSet("TypeScript")).when(set("Rust")).then([wasSet("Rust")]))

  it("unsets a belief that is set", () =>
    spec.given(wasSet("TypeScript")).when({ _tag: "Unset", projectPath: "/p", key: "stack" }).then([{
      _tag: "BeliefUnset",
      projectPath: "/p",
      key: "stack"
    }]))

  it("refuses to unset a belief that is not set", () =>
    spec.given().when({ _tag: "Unset", projectPath: "/p", key: "stack" }).thenRefused(/^there is no belief stack$/))

  it("refuses an empty value", () => spec.given().when(set(" ")).thenRefused(/^the value of stack is empty/))
})

describe("names: belief keys and task ids", () => {
  it("are plain words, lower-cased, in any script", () => {
    expect(parseName("belief key", " Key-Files ")).toBe("key-files")
    expect(parseName("task id", "인증-버그_2")).toBe("인증-버그_2")
    expect(parseName("task id", "v1.2")).toBe("v1.2")
  })

  it("refuse empty names, separators, paths and wildcards", () => {
    for (const raw of ["", " ", "a b", "../x", "a/b", "*", "-x", ".hidden", "x".repeat(65), "a\u0000b", "key#1"]) {
      expect(parseName("belief key", raw), JSON.stringify(raw)).toBeInstanceOf(Refused)
    }
  })

  it("refuse what looks like a secret or private text, without echoing it", () => {
    const key = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
    expect(message(parseName("task id", key))).toBe("the task id looks like a secret or private text; choose another")
    expect(message(parseName("task id", "<private>x</private>"))).not.toContain("x</private>")
  })

  it("make a task id from a title's words, free in the project, never from private text or secrets", () => {
    expect(taskIdFor("Fix the login timeout!", new Set())).toBe("fix-the-login-timeout")
    expect(taskIdFor("Fix the login timeout", new Set(["fix-the-login-timeout", "fix-the-login-timeout-2"]))).toBe(
      "fix-the-login-timeout-3"
    )
    expect(taskIdFor("로그인 버그를 고친다", new Set())).toBe("로그인-버그를-고친다")
    expect(
      taskIdFor("deploy <private>vault pin 8812</private> with ghp_0123456789abcdefghijABCDEFGHIJklmnop", new Set())
    ).toBe("deploy-with")
    expect(taskIdFor("🦀 !!", new Set())).toBe("task")
    expect(taskIdFor("a".repeat(100), new Set())).toBe("a".repeat(40))
    expect(taskIdFor("one two three four five six seven eight nine ten", new Set())).toBe(
      "one-two-three-four-five-six-seven-eight"
    )
  })
})
