/** `ralph-mem timeline`: sessions, their observations and loop iterations, in time order. */
import { formatTime, oneLine } from "@ralph-mem/projections"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Command, Flag } from "effect/cli"
import * as flags from "../flags.ts"
import { printJson, printText, valuesForReading } from "../output.ts"
import { withExistingStore } from "../command-memory.ts"

interface Entry {
  readonly at: number
  readonly kind: string
  readonly sessionId: string | null
  readonly detail: Record<string, unknown>
}

// One row per moment worth showing; `rank` orders a session's start before and its end after
// anything else that happened in the same millisecond.
const TIMELINE = `
  SELECT at, kind, session_id AS sessionId, detail FROM (
    SELECT started_at AS at, 0 AS rank, 0 AS seq, 'session started' AS kind, session_id,
           json_object('source', source, 'project', project_path) AS detail
      FROM sessions
    UNION ALL
    SELECT created_at, 1, id, 'observation', session_id,
           json_object('id', id, 'type', type, 'tool', tool_name, 'input', input_summary, 'content', substr(content, 1, 400))
      FROM observations
    UNION ALL
    SELECT r.started_at, 1, 0, 'loop started', r.session_id, json_object('loop', r.loop_id, 'goal', r.goal, 'driver', r.driver)
      FROM loop_runs r
    UNION ALL
    SELECT i.started_at, 1, i.iteration, 'loop iteration started', r.session_id, json_object('loop', i.loop_id, 'iteration', i.iteration)
      FROM loop_iterations i JOIN loop_runs r USING (loop_id)
    UNION ALL
    SELECT i.completed_at, 1, i.iteration, 'loop iteration completed', r.session_id,
           json_object('loop', i.loop_id, 'iteration', i.iteration, 'passed', json(CASE i.passed WHEN 1 THEN 'true' ELSE 'false' END))
      FROM loop_iterations i JOIN loop_runs r USING (loop_id) WHERE i.completed_at IS NOT NULL
    UNION ALL
    SELECT r.ended_at, 1, 0, 'loop ' || r.status, r.session_id, json_object('loop', r.loop_id, 'reason', r.end_reason)
      FROM loop_runs r WHERE r.ended_at IS NOT NULL
    UNION ALL
    SELECT ended_at, 2, 0, 'session ended', session_id, json_object('reason', end_reason, 'summary', summary)
      FROM sessions WHERE ended_at IS NOT NULL
  )
  WHERE (@session IS NULL OR session_id = @session) AND at >= @since
  ORDER BY at, rank, seq
  LIMIT @limit`

const describe = (entry: Entry): string => {
  const d = entry.detail as Record<string, string | number | boolean | null>
  switch (entry.kind) {
    case "session started":
      return `session started (${d["source"] ?? "?"})${d["project"] ? ` in ${d["project"]}` : ""}`
    case "session ended":
      return `session ended (${d["reason"]})${d["summary"] ? `: ${oneLine(String(d["summary"]), 100)}` : ""}`
    case "observation":
      return `[${d["type"]}] ${[d["tool"], d["input"]].filter(Boolean).join(" ")}${d["tool"] || d["input"] ? ": " : ""}${oneLine(String(d["content"]), 100)}`
    case "loop started":
      return `loop ${d["loop"]} started: ${oneLine(String(d["goal"]), 100)}`
    case "loop iteration started":
      return `loop ${d["loop"]} iteration ${d["iteration"]} started`
    case "loop iteration completed":
      return `loop ${d["loop"]} iteration ${d["iteration"]} ${d["passed"] ? "passed" : "failed"}`
    default:
      return `${entry.kind}${d["reason"] ? `: ${d["reason"]}` : ""}`
  }
}

export const timeline = Command.make(
  "timeline",
  {
    db: flags.db,
    json: flags.json,
    limit: flags.limit,
    since: flags.since,
    session: Flag.String("session").pipe(Flag.withDescription("Only this session"), Flag.optional)
  },
  (input) =>
    Effect.gen(function*() {
      const since = yield* flags.parseTime("since", input.since)
      const limit = yield* flags.parseLimit(input.limit)
      yield* withExistingStore(input.db, ({ db }) =>
        Effect.gen(function*() {
          const rows = db.prepare(TIMELINE).all({
            session: Option.getOrNull(input.session),
            since: since ?? 0,
            limit: limit ?? -1
          }) as Array<Omit<Entry, "detail"> & { detail: string }>
          const entries: Array<Entry> = rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }))
          if (input.json) return yield* printJson(entries)
          if (entries.length === 0) return yield* Console.log("Nothing recorded yet.")
          for (const entry of entries) {
            yield* printText(`${formatTime(entry.at)}  ${entry.sessionId ?? "-"}  ${describe(valuesForReading(entry))}`)
          }
        })
      )
    })
).pipe(Command.withDescription("Show sessions, their observations and loop iterations in time order"))
