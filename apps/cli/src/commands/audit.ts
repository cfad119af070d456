/**
 * `ralph-mem audit`: the raw events, newest first like `git log` (oldest first with --reverse): 50 of them unless
 * asked for more (`--limit N`, `--all`), and `--json` all of them.
 */
import { catalog, readEvents, type RecordedEvent } from "@ralph-mem/events"
import { formatTime, oneLine } from "@ralph-mem/projections"
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { cutShortLine, inert, jsonArrayWriter } from "../output.ts"

const line = (e: RecordedEvent) =>
  [
    `#${e.position}`,
    formatTime(e.occurredAt),
    `${e.streamId} v${e.streamVersion}`,
    e.type,
    e.metadata.writer,
    e.redactedBy === null ? oneLine(JSON.stringify(e.payload), 100) : `[redacted by ${e.redactedBy}]`
  ].join("  ")

export const audit = Command.make(
  "audit",
  {
    db: flags.db,
    json: flags.json,
    limit: flags.listingLimit("N events: the newest, or the oldest with --reverse"),
    all: flags.all,
    reverse: Flag.Boolean("reverse").pipe(
      Flag.withDescription("Oldest first (--limit then keeps the oldest)"),
      Flag.withDefault(false)
    ),
    since: flags.since,
    stream: Flag.String("stream").pipe(
      Flag.withDescription("Only this stream, e.g. session:<id> or loop:<id>"),
      Flag.optional
    ),
    type: Flag.String("type").pipe(Flag.withDescription("Only events of these types (comma-separated)"), Flag.optional),
    until: Flag.String("until").pipe(Flag.withDescription("Only before this time (ISO 8601)"), Flag.optional)
  },
  (input) =>
    Effect.gen(function*() {
      const since = yield* flags.parseTime("since", input.since)
      const until = yield* flags.parseTime("until", input.until)
      const limit = yield* flags.parseListingLimit(input.limit, input)
      const types = Option.isSome(input.type)
        ? input.type.value.split(",").map((t) => t.trim()).filter((t) => t !== "")
        : undefined
      const unknown = types?.filter((t) => !catalog.has(t)) ?? []
      if (unknown.length > 0) {
        return yield* flags.failWith(
          `unknown event type ${unknown.join(", ")}; known types: ${catalog.types.join(", ")}`
        )
      }
      const query = {
        ...(Option.isSome(input.stream) ? { streamId: input.stream.value } : {}),
        ...(types === undefined ? {} : { types }),
        ...(since === undefined ? {} : { since }),
        ...(until === undefined ? {} : { until }),
        ...(limit === undefined ? {} : { limit }),
        newestFirst: !input.reverse
      }
      yield* withExistingStore(input.db, ({ log }) => {
        if (!input.json) {
          return Effect.gen(function*() {
            let shown = 0
            // A payload's JSON escapes C0 controls, not DEL or C1 ones (`\x9b` opens a sequence in some terminals).
            yield* Stream.runForEach(readEvents(log, query), (e) => {
              shown++
              return Console.log(inert(line(e)))
            })
            // Counted only when the listing is full: a shorter one holds every event there is.
            const total = shown === limit ? yield* log.count(query) : shown
            if (total > shown) {
              yield* Console.log(cutShortLine(shown, total, "events", input.reverse ? "oldest" : "newest"))
            }
          })
        }
        const out = jsonArrayWriter()
        return Stream.runForEach(readEvents(log, query), out.item).pipe(Effect.andThen(out.end))
      })
    })
).pipe(
  Command.withDescription(
    "List the raw events of the log, newest first (--reverse: oldest first; full events with --json): " +
      `${flags.LISTING_DEFAULT} of them (--limit N, --all for more)`
  )
)
