/**
 * `ralph-mem timeline`: sessions, their observations and loop iterations, in time order: the newest 50 unless
 * asked for more (`--limit N`, `--all`), and `--json` all of them.
 */
import {
  eachHistoryEntry,
  formatTime,
  historyCount,
  historyEntries,
  type HistoryEntry,
  oneLine
} from "@ralph-mem/projections"
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { cutShortLine, jsonArrayWriter, printText, valuesForReading } from "../output.ts"

const describe = (entry: HistoryEntry): string => {
  const d = entry.detail as Record<string, string | number | boolean | null>
  switch (entry.kind) {
    case "session started":
      return `session started (${d["source"] ?? "?"})${d["project"] ? ` in ${d["project"]}` : ""}`
    case "session ended":
      return `session ended (${d["reason"]})${d["summary"] ? `: ${oneLine(String(d["summary"]), 100)}` : ""}`
    case "observation":
      return `[${d["type"]}] ${[d["tool"], d["input"]].filter(Boolean).join(" ")}${
        d["tool"] || d["input"] ? ": " : ""
      }${oneLine(String(d["content"]), 100)}`
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
    limit: flags.listingLimit("the newest N entries"),
    all: flags.all,
    since: flags.since,
    session: Flag.String("session").pipe(Flag.withDescription("Only this session"), Flag.optional)
  },
  (input) =>
    Effect.gen(function*() {
      const since = yield* flags.parseTime("since", input.since)
      const limit = yield* flags.parseListingLimit(input.limit, input)
      yield* withExistingStore(input.db, ({ db }) =>
        Effect.gen(function*() {
          const filter = { sessionId: Option.getOrNull(input.session), since: since ?? 0 }
          // Every entry (--all, --json) is read and printed one at a time: a large memory's timeline is hundreds of
          // megabytes, too much to hold (and past the longest string V8 makes, as one JSON text).
          const entries = limit === undefined ? eachHistoryEntry(db, filter) : historyEntries(db, { ...filter, limit })
          const json = input.json ? jsonArrayWriter() : undefined
          let shown = 0
          for (const entry of entries) {
            shown++
            yield* json === undefined
              ? printText(`${formatTime(entry.at)}  ${entry.sessionId ?? "-"}  ${describe(valuesForReading(entry))}`)
              : json.item(entry)
          }
          if (json !== undefined) return yield* json.end
          if (shown === 0) return yield* Console.log("Nothing recorded yet.")
          // Counted only when the listing is full: a shorter one holds every entry there is.
          const total = shown === limit ? historyCount(db, filter) : shown
          if (total > shown) yield* Console.log(cutShortLine(shown, total, "entries", "newest"))
        }))
    })
).pipe(
  Command.withDescription(
    "Show sessions, their observations and loop iterations in time order: " +
      `the newest ${flags.LISTING_DEFAULT} (--limit N, --all for more)`
  )
)
