/** `ralph-mem forget`: show what would be forgotten; with --confirm, forget it for good. */
import { findProjectRoot, streams } from "@ralph-mem/events"
import { type ForgetSelection, listBackups, loadSettings, planForget, removeBackups, scrubAfterForget, takeBackup } from "@ralph-mem/projections"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import * as flags from "../flags.ts"
import { printJson } from "../output.ts"
import { withStore } from "../store.ts"

export const forget = Command.make(
  "forget",
  {
    ids: Argument.String("id").pipe(Argument.withDescription("Event ids to forget (as search and audit print them)"), Argument.variadic()),
    session: Flag.String("session").pipe(Flag.withDescription("Forget a whole session"), Flag.optional),
    query: Flag.String("query").pipe(Flag.withDescription("Forget every observation this search finds"), Flag.optional),
    confirm: Flag.Boolean("confirm").pipe(Flag.withDescription("Really forget (without it, only show what would go)"), Flag.withDefault(false)),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const chosen = [input.ids.length > 0, Option.isSome(input.session), Option.isSome(input.query)].filter(Boolean).length
      if (chosen !== 1) return yield* flags.failWith("say what to forget: ids, or --session S, or --query Q (one of them)")
      const selection: ForgetSelection = Option.isSome(input.session)
        ? { by: "session", sessionId: input.session.value }
        : Option.isSome(input.query)
        ? { by: "query", query: input.query.value, project: findProjectRoot(process.cwd()) }
        : { by: "id", ids: input.ids }
      yield* withStore(input.db, ({ log, db, path }) =>
        Effect.gen(function*() {
          const plan = planForget(db, selection)
          if (plan.unknown.length > 0) return yield* flags.failWith(`no event with id ${plan.unknown.join(", ")}`)
          if (plan.chosen.length === 0) return yield* Console.log("Nothing to forget.")
          const eventIds = [...plan.chosen, ...plan.derived].map((e) => e.eventId)
          if (input.confirm) {
            yield* log.append(streams.forgets, [{ _tag: "MemoryForgotten", eventIds, selector: plan.selector }], {
              expectedVersion: "any",
              writer: "cli:forget"
            })
            scrubAfterForget(db)
            // Older backups still hold what was forgotten: they are replaced by one taken now.
            if (listBackups(path).length > 0) {
              removeBackups(path)
              takeBackup(db, path, loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env }).settings.backup.keep)
            }
          }
          if (input.json) return yield* printJson({ forgotten: input.confirm, ...plan })
          yield* Console.log(`${input.confirm ? "Forgot" : "Would forget"} ${plan.chosen.length} event(s):`)
          for (const e of plan.chosen) yield* Console.log(`  ${e.eventId}  ${e.type}  ${e.preview}`)
          if (plan.derived.length > 0) {
            yield* Console.log(`and ${plan.derived.length} derived from them (context injections, session summaries) that hold their text.`)
          }
          if (!input.confirm) yield* Console.log("Nothing was changed. Add --confirm to forget for good.")
        })
      )
    })
).pipe(Command.withDescription("Forget memories for good: by id, --session or --query (preview unless --confirm)"))
