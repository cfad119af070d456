/** `ralph-mem search`: find memories, in three layers of detail. */
import { findProjectRoot } from "@ralph-mem/events"
import { formatTime, oneLine } from "@ralph-mem/projections"
import {
  fullDetails,
  type IndexHit,
  type ObservationDetail,
  type ObservationType,
  searchIndex,
  timelineOf
} from "@ralph-mem/projections/search"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withExistingStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { printJson, printText, valuesForReading } from "../output.ts"

const TYPES = ["tool_use", "error", "success", "note"] as const

const hitLine = (hit: IndexHit, rank: number) =>
  `${String(rank).padStart(2)}. ${hit.id}  ${formatTime(hit.createdAt)}  ${
    hit.type.padEnd(8)
  } ${hit.title}  (~${hit.tokens} tokens)`

/** A hit's neighbour in its session, under the hit and marked: it happened `before` or `after` the hit. */
const neighbourLine = (d: ObservationDetail, side: "before" | "after") => {
  const what = oneLine([d.toolName, d.inputSummary].filter(Boolean).join(" ") + ": " + d.content, 110)
  return `      ${side.padEnd(6)}  ${formatTime(d.createdAt)}  ${d.type.padEnd(8)} ${what}`
}

/**
 * The index's closing hint, naming its own hits: `show` takes several observation ids (a session hit's id is a
 * session's, which `show` does not know), and `timeline --session` lists a summarised session.
 */
const moreLine = (hits: ReadonlyArray<IndexHit>) => {
  const observations = hits.filter((h) => h.kind === "observation").slice(0, 3).map((h) => h.id)
  const session = hits.find((h) => h.kind === "session")
  return `More: ${
    [
      "--layer 2 (timeline)",
      observations.length === 0 ? undefined : `--layer 3 or ralph-mem show ${observations.join(" ")} (full)`,
      session === undefined ? undefined : `ralph-mem timeline --session ${session.id} (a summarised session)`
    ].filter(Boolean).join("; ")
  }.`
}

export const printDetail = (detail: ObservationDetail) => {
  const d = valuesForReading(detail)
  return printText(
    [
      `${d.id}  (${d.type}, session ${d.sessionId ?? "-"}, ${formatTime(d.createdAt)}, ~${d.tokens} tokens)`,
      ...(d.toolName ? [`tool:    ${d.toolName}`] : []),
      ...(d.inputSummary ? [`input:   ${d.inputSummary}`] : []),
      ...(d.errorMessage ? [`error:   ${d.errorMessage}`] : []),
      ...(d.files.length > 0 ? [`files:   ${d.files.join(", ")}`] : []),
      ...(Object.keys(d.metadata).length > 0 ? [`meta:    ${JSON.stringify(d.metadata)}`] : []),
      "",
      d.content,
      ""
    ].join("\n")
  )
}

export const search = Command.make(
  "search",
  {
    query: Argument.String("query").pipe(
      Argument.withDescription("What to look for (any word may match)"),
      Argument.variadic({ min: 1 })
    ),
    layer: Flag.Literals("layer", ["1", "2", "3"]).pipe(
      Flag.withDescription("1: index (one line a hit), 2: timeline (hits with their neighbours), 3: full details"),
      Flag.withDefault("1")
    ),
    type: Flag.Literals("type", TYPES).pipe(Flag.withDescription("Only this kind of observation"), Flag.optional),
    session: Flag.String("session").pipe(Flag.withDescription("Only this session"), Flag.optional),
    since: flags.since,
    limit: flags.limit,
    allProjects: flags.allProjects,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const since = yield* flags.parseTime("since", input.since)
      const limit = yield* flags.parseLimit(input.limit)
      const query = input.query.join(" ")
      yield* withExistingStore(input.db, ({ db }) =>
        Effect.gen(function*() {
          const { hits, totalTokens } = searchIndex(db, {
            query,
            ...(input.allProjects ? {} : { project: findProjectRoot(process.cwd()) }),
            ...(Option.isSome(input.session) ? { sessionId: input.session.value } : {}),
            ...(Option.isSome(input.type) ? { types: [input.type.value as ObservationType] } : {}),
            ...(since === undefined ? {} : { since }),
            ...(limit === undefined ? {} : { limit })
          })
          if (input.layer === "1") {
            if (input.json) return yield* printJson({ layer: 1, query, hits, totalTokens })
            if (hits.length === 0) return yield* Console.log(`Nothing found for ${JSON.stringify(query)}.`)
            for (const [i, hit] of hits.entries()) yield* printText(hitLine(valuesForReading(hit), i + 1))
            return yield* Console.log(`${hits.length} result(s), ~${totalTokens} tokens. ${moreLine(hits)}`)
          }
          if (input.layer === "2") {
            const entries = timelineOf(db, hits)
            const tokens = entries.reduce((sum, e) => sum + e.tokens, 0)
            if (input.json) return yield* printJson({ layer: 2, query, entries, totalTokens: tokens })
            if (entries.length === 0) return yield* Console.log(`Nothing found for ${JSON.stringify(query)}.`)
            // One block a hit, apart from the next: the hit, then its neighbours in time order.
            for (const [i, entry] of entries.entries()) {
              yield* printText(hitLine(valuesForReading(entry.hit), i + 1))
              for (const d of entry.before) yield* printText(neighbourLine(valuesForReading(d), "before"))
              for (const d of entry.after) yield* printText(neighbourLine(valuesForReading(d), "after"))
              yield* Console.log("")
            }
            return yield* Console.log(`${entries.length} result(s) with their neighbours, ~${tokens} tokens.`)
          }
          const details = fullDetails(db, hits.filter((h) => h.kind === "observation").map((h) => h.id))
          const tokens = details.reduce((sum, d) => sum + d.tokens, 0)
          if (input.json) return yield* printJson({ layer: 3, query, details, totalTokens: tokens })
          if (details.length === 0) return yield* Console.log(`Nothing found for ${JSON.stringify(query)}.`)
          for (const d of details) yield* printDetail(d)
          return yield* Console.log(`${details.length} observation(s) in full, ~${tokens} tokens.`)
        }))
    })
).pipe(Command.withDescription("Search memory: ranked hits (layer 1), with neighbours (2), or in full (3)"))
