/**
 * `ralph-mem timeline`: sessions, their observations and loop iterations, in time order: the newest 50 unless
 * asked for more (`--limit N`, `--all`), and `--json` all of them.
 */
import { formatTime, historyCount, historyEntries, type HistoryEntry, oneLine } from "@ralph-mem/projections"
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { cutShortLine, printJson, printText, valuesForReading } from "../output.ts"

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
          const entries = historyEntries(db, { ...filter, limit: limit ?? -1 })
          if (input.json) return yield* printJson(entries)
          if (entries.length === 0) return yield* Console.log("Nothing recorded yet.")
          for (const entry of entries) {
            yield* printText(`${formatTime(entry.at)}  ${entry.sessionId ?? "-"}  ${describe(valuesForReading(entry))}`)
          }
          // Counted only when the listing is full: a shorter one holds every entry there is.
          const total = entries.length === limit ? historyCount(db, filter) : entries.length
          if (total > entries.length) yield* Console.log(cutShortLine(entries.length, total, "entries", "newest"))
        }))
    })
).pipe(
  Command.withDescription(
    "Show sessions, their observations and loop iterations in time order: " +
      `the newest ${flags.LISTING_DEFAULT} (--limit N, --all for more)`
  )
)
