/** `ralph-mem forget`: show what would be forgotten; with --confirm, forget it for good. */
import { findProjectRoot, streams } from "@ralph-mem/events"
import {
  damagedFolder,
  type FileNotChecked,
  type ForgetSelection,
  listBackups,
  listDamagedCopies,
  planForget,
  removeBackups,
  removeDamagedCopies,
  scrubAfterForget,
  scrubDerivedFiles,
  takeBackup
} from "@ralph-mem/projections"
import { loadSettings } from "@ralph-mem/settings"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withStore } from "../command-memory.ts"
import * as flags from "../flags.ts"
import { forReading, inert, printJson } from "../output.ts"

/** Files not checked named one a line; a planted folder of thousands of them would bury the rest. */
const NOT_CHECKED_SHOWN = 20

export const forget = Command.make(
  "forget",
  {
    ids: Argument.String("id").pipe(
      Argument.withDescription(
        "Events to forget: ids as search prints them, or positions as audit (#12) and injected text (@12) show them"
      ),
      Argument.variadic()
    ),
    session: Flag.String("session").pipe(Flag.withDescription("Forget a whole session"), Flag.optional),
    query: flags.freeText("query").pipe(
      Flag.withDescription("Forget what this search finds, and every prompt, reply or note holding all its words"),
      Flag.optional
    ),
    confirm: Flag.Boolean("confirm").pipe(
      Flag.withDescription("Really forget (without it, only show what would go)"),
      Flag.withDefault(false)
    ),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const chosen = [input.ids.length > 0, Option.isSome(input.session), Option.isSome(input.query)].filter(
        Boolean
      ).length
      if (chosen !== 1) {
        return yield* flags.failWith("say what to forget: ids, or --session S, or --query Q (one of them)")
      }
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
          const { texts, ...shown } = plan
          const damagedCopies = listDamagedCopies(path).length
          let erasure:
            | {
              complete: boolean
              backupsReplaced: boolean
              damagedCopiesRemoved: number
              filesScrubbed: Array<string>
              filesNotChecked: Array<FileNotChecked>
            }
            | undefined
          if (input.confirm) {
            yield* log.append(streams.forgets, [{ _tag: "MemoryForgotten", eventIds, selector: plan.selector }], {
              expectedVersion: "any",
              writer: "cli:forget"
            })
            const complete = scrubAfterForget(db, path)
            // Older backups still hold what was forgotten: they are replaced by one taken now.
            const backupsReplaced = listBackups(path).length > 0
            if (backupsReplaced) {
              removeBackups(path)
              takeBackup(
                db,
                path,
                loadSettings({ projectRoot: findProjectRoot(process.cwd()), env: process.env }).settings.backup.keep
              )
            }
            const damagedCopiesRemoved = removeDamagedCopies(path)
            const derived = scrubDerivedFiles(path, texts)
            erasure = {
              complete,
              backupsReplaced,
              damagedCopiesRemoved,
              filesScrubbed: derived.scrubbed,
              filesNotChecked: derived.notChecked
            }
          }
          if (input.json) {
            return yield* printJson({
              forgotten: input.confirm,
              ...shown,
              ...(erasure === undefined ? { damagedCopies } : { erasure })
            })
          }
          yield* Console.log(`${input.confirm ? "Forgot" : "Would forget"} ${plan.chosen.length} event(s):`)
          for (const e of plan.chosen) yield* Console.log(`  ${e.eventId}  ${e.type}  ${forReading(e.preview)}`)
          if (plan.derived.length > 0) {
            yield* Console.log(
              `and ${plan.derived.length} derived from them (context injections, session summaries) ` +
                "that hold their text."
            )
          }
          if (erasure === undefined) {
            if (damagedCopies > 0) {
              yield* Console.log(
                `It would also delete the ${damagedCopies} damaged database cop(ies) in ${damagedFolder(path)}: ` +
                  "they may hold the same text."
              )
            }
            return yield* Console.log("Nothing was changed. Add --confirm to forget for good.")
          }
          if (erasure.backupsReplaced) {
            yield* Console.log("The older backups, which held it, were replaced by a new one.")
          }
          if (erasure.damagedCopiesRemoved > 0) {
            yield* Console.log(
              `Deleted ${erasure.damagedCopiesRemoved} damaged database cop(ies) in ${damagedFolder(path)}, ` +
                "which may have held it " +
                "(their readable events were salvaged when they were set aside)."
            )
          }
          for (const file of erasure.filesScrubbed) {
            yield* Console.log(inert(`Replaced the forgotten text with [forgotten] in ${file}.`))
          }
          if (erasure.filesNotChecked.length > 0) {
            yield* Console.log(
              `${erasure.filesNotChecked.length} file(s) beside the memory were not checked for the forgotten text, ` +
                "which may still be in them (look at them, or delete them):"
            )
            for (const { file, bytes, reason } of erasure.filesNotChecked.slice(0, NOT_CHECKED_SHOWN)) {
              // Named as the folder holds it: a planted name can hold a terminal sequence.
              yield* Console.log(
                inert(`  not checked: ${file} (${bytes === undefined ? "" : `${bytes} bytes, `}${reason})`)
              )
            }
            if (erasure.filesNotChecked.length > NOT_CHECKED_SHOWN) {
              yield* Console.log(`  and ${erasure.filesNotChecked.length - NOT_CHECKED_SHOWN} more (--json lists all).`)
            }
          }
          if (!erasure.complete) {
            yield* Console.log(
              "NOT YET ERASED FROM THE FILE: another process is reading the database, so old copies of the text " +
                "stay in it and its WAL until that process lets go. The next ralph-mem hook or command finishes " +
                "the erasure; `ralph-mem status` and `doctor` say so until then."
            )
          }
        }))
    })
).pipe(Command.withDescription("Forget memories for good: by id, --session or --query (preview unless --confirm)"))
