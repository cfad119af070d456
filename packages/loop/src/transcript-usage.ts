/**
 * The tokens an in-session iteration used, read from Claude Code's transcript at Stop: every assistant
 * message written since the iteration started, each message once (a reply of several blocks is written as
 * several lines that repeat its usage). The transcript lags the hooks by the last reply, so an iteration's
 * count misses its final message (it lands in the next iteration's count, or nowhere for the last one).
 * Claude Code writes no cost per message: in a session, cost is not reported.
 */
import type { IterationUsage } from "@ralph-mem/events"

/** Past this, only the end of the transcript is read: an iteration's messages are at its end. */
const MAX_READ_BYTES = 32 * 1024 * 1024

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const count = (
  value: unknown
): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0)

const readTail = (path: string): string | undefined => {
  const fs = process.getBuiltinModule("node:fs")
  let fd: number | undefined
  try {
    // Non-blocking: a FIFO named as the transcript would otherwise hold the Stop hook until a writer came.
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0))
    const stats = fs.fstatSync(fd)
    // Only a regular file is a transcript: a FIFO or a device has no end to read the tail of.
    if (!stats.isFile()) return undefined
    const size = stats.size
    const length = Math.min(size, MAX_READ_BYTES)
    const buffer = Buffer.alloc(length)
    fs.readSync(fd, buffer, 0, length, size - length)
    return buffer.toString("utf8")
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Usage of the assistant messages in `text` (transcript JSONL) written at or after `since`; undefined: none. */
const usageInTranscript = (text: string, since: number): IterationUsage | undefined => {
  const byMessage = new Map<string, IterationUsage>()
  for (const line of text.split("\n")) {
    if (!line.includes("\"assistant\"") || !line.includes("\"usage\"")) continue
    let entry: unknown
    try {
      entry = JSON.parse(line)
    } catch {
      continue
    }
    if (!isRecord(entry) || entry["type"] !== "assistant" || !isRecord(entry["message"])) continue
    const message = entry["message"]
    const at = Date.parse(String(entry["timestamp"] ?? ""))
    if (!(at >= since) || message["model"] === "<synthetic>" || !isRecord(message["usage"])) continue
    const usage = message["usage"]
    byMessage.set(String(message["id"] ?? `line-${byMessage.size}`), {
      inputTokens: count(usage["input_tokens"]),
      outputTokens: count(usage["output_tokens"]),
      cacheReadTokens: count(usage["cache_read_input_tokens"]),
      cacheCreationTokens: count(usage["cache_creation_input_tokens"])
    })
  }
  if (byMessage.size === 0) return undefined
  let total = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 }
  for (const u of byMessage.values()) {
    total = {
      inputTokens: total.inputTokens + u.inputTokens,
      outputTokens: total.outputTokens + u.outputTokens,
      cacheReadTokens: total.cacheReadTokens + u.cacheReadTokens,
      cacheCreationTokens: total.cacheCreationTokens + u.cacheCreationTokens
    }
  }
  return total
}

/** The iteration's usage from the transcript file; undefined when there is none to read. */
export const transcriptUsage = (transcriptPath: string | undefined, since: number): IterationUsage | undefined => {
  if (transcriptPath === undefined || transcriptPath === "") return undefined
  const text = readTail(transcriptPath)
  return text === undefined ? undefined : usageInTranscript(text, since)
}
