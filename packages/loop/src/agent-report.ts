/**
 * What an agent run reports besides its work: its final message, the tokens and cost it used, and whether it
 * ended on a usage or rate limit. Claude Code reports all three in its JSON result (`--output-format json`);
 * another agent may report nothing, and then usage stays undefined ("not reported", never 0).
 *
 * A limit is read only from where an agent reports how its run ended (Claude Code's result object, or the last
 * line of a plain-text agent's output), so a file or tool output that merely mentions such words cannot make
 * the loop wait.
 */
import type { IterationUsage } from "@ralph-mem/events"
import type { CommandOutcome } from "./criteria/index.ts"

export type LimitKind = "rate_limit" | "usage_limit"

export interface AgentLimit {
  readonly kind: LimitKind
  /** When the limit resets (epoch ms), if the agent said. */
  readonly resetAt?: number
  /** The agent's own words, one line. */
  readonly message: string
}

export interface AgentReport {
  /** The agent's final message (Claude Code's `result`, else its whole output): markers are looked for here. */
  readonly lastMessage: string
  readonly usage?: IterationUsage
  readonly limit?: AgentLimit
}

/** `claude -p ...` with no output format of its own gets `--output-format json`, so it reports usage and limits. */
export const withMachineReadableOutput = (agent: ReadonlyArray<string>): ReadonlyArray<string> => {
  const program = agent[0]?.split(/[\\/]/).at(-1)
  const prints = agent.includes("-p") || agent.includes("--print")
  const hasFormat = agent.some((arg) => arg === "--output-format" || arg.startsWith("--output-format="))
  return program === "claude" && prints && !hasFormat ? [...agent, "--output-format", "json"] : agent
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const count = (
  value: unknown
): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0)

/** Claude Code's result object: the last output line that parses as `{"type":"result",...}`. */
const claudeResult = (output: string): Record<string, unknown> | undefined => {
  const lines = output.split("\n")
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim()
    if (!line.startsWith("{") || !line.includes("\"result\"")) continue
    try {
      const parsed: unknown = JSON.parse(line)
      if (isRecord(parsed) && parsed["type"] === "result") return parsed
    } catch {
      // Not JSON, or cut short by the output window: keep looking.
    }
  }
  return undefined
}

const usageOf = (result: Record<string, unknown>): IterationUsage | undefined => {
  const usage = result["usage"]
  if (!isRecord(usage)) return undefined
  const cost = result["total_cost_usd"]
  return {
    inputTokens: count(usage["input_tokens"]),
    outputTokens: count(usage["output_tokens"]),
    cacheReadTokens: count(usage["cache_read_input_tokens"]),
    cacheCreationTokens: count(usage["cache_creation_input_tokens"]),
    ...(typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? { costUsd: cost } : {})
  }
}

// ---- limits: the wordings Claude Code prints, kept as test fixtures in packages/loop/test/fixtures/limits ----

/** `Claude AI usage limit reached|1732550400` (the reset as epoch seconds). */
const USAGE_LIMIT_EPOCH = /^Claude AI usage limit reached\|(\d{9,11})$/
/** `You've hit your limit · resets 5pm (Europe/Vilnius)`, `resets 5:30am`, `resets Nov 27, 5pm (UTC)`. */
const USAGE_LIMIT_RESETS = new RegExp(
  String.raw`^(?:You[\u2019']ve hit your (?:usage )?limit|Claude (?:AI )?usage limit reached)\b.*?\bresets\s+` +
    String.raw`(?:at\s+)?(?:([A-Z][a-z]{2})\s+(\d{1,2}),?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b` +
    String.raw`(?:\s*\(([^)]+)\))?`,
  "i"
)
const USAGE_LIMIT_PLAIN = /^(?:You[\u2019']ve hit your (?:usage )?limit|Claude (?:AI )?usage limit reached)\b/i
/**
 * `API Error: Request rejected (429) · ...`, `API Error: 429 {"type":"error","error":{"type":"rate_limit_error"...`.
 */
const RATE_LIMIT = /^API Error:\s*(?:Request rejected \(429\)|429\b)|rate_limit_error/

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

/** Milliseconds to add to a UTC wall-clock reading to get `zone`'s wall clock at `instant`. */
const zoneOffset = (instant: number, zone: string): number => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric"
  }).formatToParts(instant)
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  const wall = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"))
  return wall - Math.floor(instant / 1000) * 1000
}

const validZone = (zone: string | undefined): string | undefined => {
  if (zone === undefined) return undefined
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone.trim() })
    return zone.trim()
  } catch {
    return undefined
  }
}

/** The next moment after `now` when the wall clock of `zone` (default: this machine's) shows the time. */
const nextWallClock = (
  time: { readonly hour: number; readonly minute: number; readonly month?: number; readonly day?: number },
  zone: string | undefined,
  now: number
): number => {
  const tz = validZone(zone) ?? Intl.DateTimeFormat().resolvedOptions().timeZone
  const today = new Date(now + zoneOffset(now, tz))
  const at = (dayShift: number, year = today.getUTCFullYear()) => {
    const wall = time.month === undefined
      ? Date.UTC(year, today.getUTCMonth(), today.getUTCDate() + dayShift, time.hour, time.minute)
      : Date.UTC(year, time.month, time.day ?? 1, time.hour, time.minute)
    // The offset at the guess is right except within an hour of a DST change, where one more pass settles it.
    const guess = wall - zoneOffset(wall, tz)
    return wall - zoneOffset(guess, tz)
  }
  if (time.month !== undefined) {
    const thisYear = at(0)
    return thisYear > now ? thisYear : at(0, today.getUTCFullYear() + 1)
  }
  const first = at(0)
  return first > now ? first : at(1)
}

const limitInLine = (line: string, now: number): AgentLimit | undefined => {
  const message = line.trim().slice(0, 300)
  const epoch = USAGE_LIMIT_EPOCH.exec(message)
  if (epoch !== null) return { kind: "usage_limit", resetAt: Number(epoch[1]) * 1000, message }
  const resets = USAGE_LIMIT_RESETS.exec(message)
  if (resets !== null) {
    const [, month, day, hour, minute, meridiem, zone] = resets
    const hour12 = Number(hour) % 12
    const monthIndex = month === undefined ? -1 : MONTHS.indexOf(month.toLowerCase())
    const resetAt = nextWallClock(
      {
        hour: meridiem!.toLowerCase() === "pm" ? hour12 + 12 : hour12,
        minute: minute === undefined ? 0 : Number(minute),
        ...(monthIndex === -1 ? {} : { month: monthIndex, day: Number(day) })
      },
      zone,
      now
    )
    return { kind: "usage_limit", resetAt, message }
  }
  if (USAGE_LIMIT_PLAIN.test(message)) return { kind: "usage_limit", message }
  if (RATE_LIMIT.test(message)) return { kind: "rate_limit", message }
  return undefined
}

const lastLine = (text: string): string => text.trimEnd().split("\n").at(-1) ?? ""

/** Reads an agent run's outcome. `now` places a reset given as a time of day. */
export const readAgentReport = (outcome: CommandOutcome, now: number): AgentReport => {
  const result = claudeResult(outcome.output)
  if (result !== undefined) {
    const text = typeof result["result"] === "string" ? result["result"] : ""
    const usage = usageOf(result)
    const failed = result["is_error"] === true
    const status = result["api_error_status"]
    const limit = failed
      ? limitInLine(lastLine(text), now) ??
        (status === 429 || result["api_error_type"] === "rate_limit_error"
          ? { kind: "rate_limit" as const, message: lastLine(text).slice(0, 300) }
          : undefined)
      : undefined
    return { lastMessage: text, ...(usage === undefined ? {} : { usage }), ...(limit === undefined ? {} : { limit }) }
  }
  const limit = limitInLine(lastLine(outcome.output), now)
  return { lastMessage: outcome.output, ...(limit === undefined ? {} : { limit }) }
}

/** How long to wait when the agent named no reset time: doubling from a minute, at most half an hour. */
export const limitBackoffMs = (previousWaitsThisIteration: number): number =>
  Math.min(60_000 * 2 ** previousWaitsThisIteration, 30 * 60_000)
