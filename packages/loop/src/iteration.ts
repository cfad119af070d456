/**
 * Closing an iteration, the same for both drivers: the harness runs the criteria, snapshots the working
 * tree, and records the results and the completed iteration (with the files changed since the last
 * snapshot). Never the model's word alone: `passed` comes from the criteria.
 */
import type { Memory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { evaluateCriteria } from "./criteria/index.ts"
import { stopCondition } from "./conditions.ts"
import { changedFiles, takeSnapshot } from "./snapshot.ts"
import type { Loop } from "./state.ts"
import { execute } from "./store.ts"

export const closeIteration = (
  memory: Memory,
  loop: Loop,
  options: { readonly writer: string; readonly lastAssistantMessage?: string }
) =>
  Effect.gen(function*() {
    const iteration = loop.iterations.at(-1)!.iteration
    const { results, passed } = yield* evaluateCriteria(loop.config.successCriteria, {
      projectRoot: loop.projectPath,
      ...(options.lastAssistantMessage === undefined ? {} : { lastAssistantMessage: options.lastAssistantMessage })
    })
    const previous = loop.iterations.at(-2)?.snapshotRef ?? loop.startSnapshotRef
    // A snapshot that cannot be taken (no disk space, a broken repository) must not end the loop.
    const snapshotRef = yield* Effect.sync(() => takeSnapshot(loop.projectPath, loop.loopId, `iteration-${iteration}`)).pipe(
      Effect.catchDefect(() => Effect.succeed(undefined))
    )
    yield* execute(memory, loop.loopId, { _tag: "RecordCriteria", results }, options.writer)
    const completed = yield* execute(memory, loop.loopId, {
      _tag: "CompleteIteration",
      passed,
      filesChanged: changedFiles(loop.projectPath, previous, snapshotRef),
      ...(snapshotRef === undefined ? {} : { snapshotRef })
    }, options.writer)
    return { loop: completed, results, passed, iteration }
  })

/**
 * Where a loop stands before its next iteration. A driver that died after closing an iteration but
 * before recording the outcome left that decision unrecorded: it is made now (the last iteration
 * passed: success; a stop condition holds: failure), instead of beginning an iteration the limits forbid.
 */
export const settleOrBegin = (memory: Memory, loop: Loop, writer: string, now: number) => {
  const last = loop.iterations.at(-1)
  if (last?.completedAt !== undefined) {
    if (last.passed === true) return execute(memory, loop.loopId, { _tag: "Succeed" }, writer)
    const ending = stopCondition(loop, now)
    if (ending !== undefined) return execute(memory, loop.loopId, { _tag: "Fail", reason: ending }, writer)
  }
  return execute(memory, loop.loopId, { _tag: "BeginIteration" }, writer)
}
