/** `ralph stop`: ends a loop (the Stop hook sees it first), and can roll the working tree back. */
import {
  execute,
  restoreSnapshot,
  rollbackHint,
  snapshotProblem,
  statusReport,
  takeSnapshot,
  workingTreeMatches
} from "@ralph-mem/loop"
import { Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withStore } from "../../command-memory.ts"
import * as flags from "../../flags.ts"
import { printJson } from "../../output.ts"
import { loopFlag, resolveLoop } from "./shared.ts"

export const stop = Command.make(
  "stop",
  {
    loop: loopFlag,
    rollback: Flag.Boolean("rollback").pipe(
      Flag.withDescription(
        "Also restore the working tree to a snapshot (after saving a rescue snapshot); works on an ended loop too"
      ),
      Flag.withDefault(false)
    ),
    to: Flag.Int("to").pipe(
      Flag.withDescription("With --rollback: the iteration to go back to (0: before the loop)"),
      Flag.optional
    ),
    force: Flag.Boolean("force").pipe(
      Flag.withDescription(
        "With --rollback on an ended loop: roll back even though files changed since it ended " +
          "(they are in the rescue snapshot)"
      ),
      Flag.withDefault(false)
    ),
    reason: flags.freeText("reason").pipe(Flag.withDescription("Why"), Flag.withDefault("stopped by the user")),
    db: flags.db,
    json: flags.json
  },
  (input) =>
    withStore(input.db, (memory) =>
      Effect.gen(function*() {
        const loop = yield* resolveLoop(memory, input.loop, { onlyOne: true })
        if (Option.isSome(input.to) && !input.rollback) return yield* flags.failWith("--to goes with --rollback")
        if (input.force && !input.rollback) return yield* flags.failWith("--force goes with --rollback")
        const running = loop.status === "running"
        if (!running && !input.rollback) {
          return yield* flags.failWith(
            `loop ${loop.loopId} has already ended (${loop.status}); to undo its changes: ${rollbackHint(loop)}`
          )
        }
        let rollback: { toIteration: number; snapshotRef: string; rescueSnapshotRef: string } | undefined
        if (input.rollback) {
          const toIteration = Option.getOrElse(input.to, () => 0)
          const snapshotRef = toIteration === 0
            ? loop.startSnapshotRef
            : loop.iterations.find((it) => it.iteration === toIteration)?.snapshotRef
          if (snapshotRef === undefined) {
            return yield* flags.failWith(`there is no snapshot of iteration ${toIteration} to roll back to`)
          }
          const problem = snapshotProblem(loop.projectPath, snapshotRef)
          if (problem !== undefined) {
            return yield* flags.failWith(
              `cannot roll back to iteration ${toIteration}: ${problem}; nothing was changed`
            )
          }
          // After the end, the tree should still be what the loop left: anything else is the user's work since.
          const leftBehind = loop.rollbacks.at(-1)?.snapshotRef ??
            loop.iterations.findLast((it) => it.snapshotRef !== undefined)?.snapshotRef
          const unsure = leftBehind === undefined ? undefined : snapshotProblem(loop.projectPath, leftBehind)
          if (!running && !input.force && unsure !== undefined) {
            return yield* flags.failWith(
              `cannot tell whether files changed since loop ${loop.loopId} ended (${unsure}); ` +
                "roll back anyway with --force (what the tree holds now is saved in a rescue snapshot first)"
            )
          }
          if (
            !running && !input.force && leftBehind !== undefined && !workingTreeMatches(loop.projectPath, leftBehind)
          ) {
            return yield* flags.failWith(
              `files changed since loop ${loop.loopId} ended; roll back anyway with --force ` +
                "(what the tree holds now is saved in a rescue snapshot first)"
            )
          }
          // Without the rescue snapshot, the tree a rollback overwrites would be lost: nothing is changed then.
          const rescueSnapshotRef = yield* Effect.try({
            try: () => takeSnapshot(loop.projectPath, loop.loopId, `rescue-${Date.now()}`),
            catch: (error) => error as Error
          }).pipe(Effect.catch((error) =>
            flags.failWith(
              `could not save what the working tree holds now (${error.message}); nothing was changed`
            )
          ))
          rollback = { toIteration, snapshotRef, rescueSnapshotRef }
        }
        const after = running
          ? yield* execute(memory, loop.loopId, {
            _tag: "Stop",
            reason: input.reason,
            requestedBy: "cli",
            ...(rollback === undefined ? {} : { rollback })
          }, "cli:ralph-stop")
          : yield* execute(memory, loop.loopId, { _tag: "RollBack", ...rollback! }, "cli:ralph-stop")
        if (rollback !== undefined) {
          const { snapshotRef, rescueSnapshotRef, toIteration } = rollback
          // Recorded first so a running driver stops before files change under it; a restore that then fails
          // partway must say so, and where the tree it started from is kept.
          const failure = yield* Effect.try({
            try: () => restoreSnapshot(loop.projectPath, snapshotRef),
            catch: (error) => error as Error
          }).pipe(Effect.match({ onFailure: (error) => error.message, onSuccess: () => undefined }))
          if (failure !== undefined) {
            return yield* flags.failWith(
              `the rollback to iteration ${toIteration} stopped partway (${failure}); ` +
                `what the tree held before is saved as ${rescueSnapshotRef}`
            )
          }
        }
        if (input.json) return yield* printJson(statusReport(after))
        const rolledBack = rollback === undefined
          ? ""
          : ` The working tree is back at iteration ${rollback.toIteration}; ` +
            `what it held before is saved as ${rollback.rescueSnapshotRef}.`
        yield* Console.log(
          running
            ? `Loop ${loop.loopId} stopped.${rolledBack}`
            : `Loop ${loop.loopId} (${loop.status}) rolled back.${rolledBack}`
        )
      }))
).pipe(Command.withDescription(
  "Stop a loop (the Stop hook sees it before anything else); --rollback restores a snapshot, also after the loop ended"
))
