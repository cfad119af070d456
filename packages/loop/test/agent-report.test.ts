import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { limitBackoffMs, readAgentReport, withMachineReadableOutput } from "../src/agent-report.ts"
import type { CommandOutcome } from "../src/criteria/index.ts"

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", "limits", name), "utf8")

const outcome = (output: string, exitCode = 1): CommandOutcome => ({
  exitCode,
  signal: undefined,
  timedOut: false,
  output,
  durationMs: 100,
  startError: undefined
})

/** 2026-11-25 10:00 UTC (12:00 in Vilnius, which is UTC+2 in winter). */
const NOW = Date.UTC(2026, 10, 25, 10, 0)

describe("an agent's report", () => {
  it("reads Claude Code's JSON result: its final message, tokens of every kind and the cost", () => {
    const report = readAgentReport(outcome(fixture("claude-success-result.json"), 0), NOW)
    expect(report).toEqual({
      lastMessage: "Fixed the failing test in src/auth.ts.",
      usage: {
        inputTokens: 400,
        outputTokens: 28,
        cacheReadTokens: 120,
        cacheCreationTokens: 80,
        costUsd: 0.0025840000000000004
      }
    })
  })

  it("reports no usage for an agent that prints none: not reported, never zero", () => {
    const report = readAgentReport(outcome("did some work\nall done", 0), NOW)
    expect(report).toEqual({ lastMessage: "did some work\nall done" })
  })

  it("finds the result line after other output (stderr merged before it)", () => {
    const report = readAgentReport(outcome(`warning: something\n${fixture("claude-success-result.json")}`, 0), NOW)
    expect(report.usage?.outputTokens).toBe(28)
  })

  it("recognizes the rate limit the pinned CLI reports when the API answers 429 (JSON result)", () => {
    const report = readAgentReport(outcome(fixture("claude-429-result.json")), NOW)
    expect(report.limit).toEqual({
      kind: "rate_limit",
      message: "API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit"
    })
  })

  it("recognizes the same rate limit printed as text (no --output-format)", () => {
    expect(readAgentReport(outcome(fixture("claude-429-text.txt")), NOW).limit?.kind).toBe("rate_limit")
  })

  it("reads the reset of `Claude AI usage limit reached|<epoch>`", () => {
    expect(readAgentReport(outcome(fixture("usage-limit-epoch.txt")), NOW).limit).toEqual({
      kind: "usage_limit",
      resetAt: 1_795_600_800_000,
      message: "Claude AI usage limit reached|1795600800"
    })
  })

  it("reads `You've hit your limit · resets 5pm (Europe/Vilnius)` as the next 5pm in Vilnius", () => {
    const limit = readAgentReport(outcome(fixture("hit-your-limit.txt")), NOW).limit
    expect(limit?.kind).toBe("usage_limit")
    expect(new Date(limit!.resetAt!).toISOString()).toBe("2026-11-25T15:00:00.000Z")
  })

  it("reads a limit inside Claude Code's JSON result when the run failed on it", () => {
    const result = JSON.stringify({
      type: "result",
      is_error: true,
      result: "Claude AI usage limit reached|1795600800"
    })
    expect(readAgentReport(outcome(result), NOW).limit?.resetAt).toBe(1_795_600_800_000)
  })

  it("never waits for words a successful run merely mentions (in its result or in tool output)", () => {
    expect(readAgentReport(outcome(fixture("mentions-in-tool-output.json"), 0), NOW).limit).toBeUndefined()
    expect(readAgentReport(outcome(fixture("mentions-in-plain-output.txt"), 0), NOW).limit).toBeUndefined()
    expect(readAgentReport(outcome(fixture("mentions-in-plain-output.txt"), 1), NOW).limit).toBeUndefined()
  })
})

describe("a limit's reset given as a wall-clock time", () => {
  /** When the agent's `resets ...` line says the limit resets, read at `now`. */
  const resetAt = (resets: string, now = NOW) => {
    const at = readAgentReport(outcome(`You've hit your limit · resets ${resets}`), now).limit?.resetAt
    return at === undefined ? undefined : new Date(at).toISOString()
  }

  it("is today when the time is still ahead, tomorrow when it has passed", () => {
    expect(resetAt("5pm (Europe/Vilnius)")).toBe("2026-11-25T15:00:00.000Z")
    expect(resetAt("9:30am (Europe/Vilnius)")).toBe("2026-11-26T07:30:00.000Z")
  })

  it("follows summer time", () => {
    expect(resetAt("5pm (Europe/Vilnius)", Date.UTC(2026, 6, 1, 10, 0))).toBe("2026-07-01T14:00:00.000Z")
  })

  it("takes a date when one is given, and falls back to this machine's zone for an unknown one", () => {
    expect(resetAt("Nov 27, 5pm (UTC)")).toBe("2026-11-27T17:00:00.000Z")
    expect(resetAt("5pm")).toMatch(/^2026-11-2[56]T/)
    expect(resetAt("5pm (Not/AZone)")).toBe(resetAt("5pm"))
  })
})

describe("an agent command", () => {
  it("gets --output-format json when it is `claude -p` without a format of its own", () => {
    expect(withMachineReadableOutput(["claude", "-p"])).toEqual(["claude", "-p", "--output-format", "json"])
    expect(withMachineReadableOutput(["/usr/local/bin/claude", "--print", "--model", "x"])).toEqual([
      "/usr/local/bin/claude",
      "--print",
      "--model",
      "x",
      "--output-format",
      "json"
    ])
    expect(withMachineReadableOutput(["claude", "-p", "--output-format", "stream-json"])).toEqual([
      "claude",
      "-p",
      "--output-format",
      "stream-json"
    ])
    expect(withMachineReadableOutput(["node", "agent.js"])).toEqual(["node", "agent.js"])
  })
})

describe("the backoff without a reset time", () => {
  it("doubles from a minute and stops at half an hour", () => {
    expect([0, 1, 2, 5, 9].map(limitBackoffMs)).toEqual([60_000, 120_000, 240_000, 1_800_000, 1_800_000])
  })
})
