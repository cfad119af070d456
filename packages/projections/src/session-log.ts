/**
 * A session's own record in the log, for reading back what happened in it: the prompts the user typed,
 * every injection (the text Claude was told, its tokens and sources) and Claude's replies. These live
 * only in the log (no read model repeats them), so they are read from the session's stream.
 */
import { type SqliteDatabase, streams } from "@ralph-mem/events"

export type SessionLogEntry =
  | { readonly kind: "prompt"; readonly position: number; readonly at: number; readonly prompt: string }
  | {
    readonly kind: "injection"
    readonly position: number
    readonly at: number
    readonly hookEvent: string
    readonly reason: string
    readonly text: string
    readonly tokens: number
    readonly sources: ReadonlyArray<string>
  }
  | { readonly kind: "reply"; readonly position: number; readonly at: number; readonly message: string }

/** Prompts, injections and replies of a session, in log order; forgotten ones are left out. */
export const sessionLog = (db: SqliteDatabase, sessionId: string, limit = 500): Array<SessionLogEntry> =>
  (db
    .prepare(
      `SELECT position, occurred_at AS at, type, payload FROM events
       WHERE stream_id = ? AND redacted_by IS NULL
         AND type IN ('PromptSubmitted', 'ContextInjected', 'AssistantReplied')
       ORDER BY position LIMIT ?`
    )
    .all(streams.session(sessionId), limit) as Array<{ position: number; at: number; type: string; payload: string }>)
    .map((row): SessionLogEntry => {
      const p = JSON.parse(row.payload) as Record<string, unknown>
      const text = (key: string) => (typeof p[key] === "string" ? (p[key] as string) : "")
      if (row.type === "PromptSubmitted") {
        return { kind: "prompt", position: row.position, at: row.at, prompt: text("prompt") }
      }
      if (row.type === "AssistantReplied") {
        return { kind: "reply", position: row.position, at: row.at, message: text("message") }
      }
      return {
        kind: "injection",
        position: row.position,
        at: row.at,
        hookEvent: text("hookEvent"),
        reason: text("reason"),
        text: text("text"),
        tokens: typeof p["tokens"] === "number" ? p["tokens"] : 0,
        sources: Array.isArray(p["sources"])
          ? (p["sources"] as Array<unknown>).filter((s): s is string => typeof s === "string")
          : []
      }
    })

/** The log's head position, read cheaply: the live view polls it. */
export const headPosition = (
  db: SqliteDatabase
): number => (db.prepare(`SELECT coalesce(max(position), 0) FROM event_rows`).pluck().get() as number)

/**
 * Iterations a writer (the Stop hook) began on a loop since the user last typed a prompt in the session:
 * Claude Code's count of consecutive Stop-hook continuations, which its block cap applies to.
 */
export const iterationsBegunSincePrompt = (
  db: SqliteDatabase,
  loopId: string,
  sessionId: string,
  writer: string
): number =>
  db
    .prepare(
      `SELECT count(*) FROM events WHERE stream_id = ? AND type = 'LoopIterationStarted'
         AND json_extract(metadata, '$.writer') = ?
         AND position > coalesce(
           (SELECT max(position) FROM events WHERE stream_id = ? AND type = 'PromptSubmitted'), 0)`
    )
    .pluck()
    .get(streams.loop(loopId), writer, streams.session(sessionId)) as number

/** How many events the log holds, in how many streams. */
export const logCounts = (db: SqliteDatabase) =>
  db.prepare("SELECT count(*) AS events, count(DISTINCT stream_id) AS streams FROM events").get() as {
    events: number
    streams: number
  }
