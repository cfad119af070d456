/**
 * Closing an iteration, the same for both drivers: the harness runs the criteria, snapshots the working
 * tree, and records the results and the completed iteration (with the files changed since the last
 * snapshot). Never the model's word alone: `passed` comes from the criteria. A PRD loop also runs the
 * story's own criteria and rewrites prd.json's flags; a plan loop saves its plan when it succeeds.
 */
import { ensureOutputFolder, type IterationUsage, redactText, writePrivateFile } from "@ralph-mem/events"
import type { MemoryStore } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { dirname } from "node:path"
import { evaluateCriteria } from "./criteria/index.ts"
import { execute } from "./loop-stream.ts"
import { nextStep } from "./policy.ts"
import { syncPrdFile } from "./prd.ts"
import { changedFiles, trySnapshot } from "./snapshot.ts"
import { type Loop, storyOf } from "./state.ts"

export const closeIteration = (
  memory: MemoryStore,
  loop: Loop,
  options: { readonly writer: string; readonly lastAssistantMessage?: string; readonly usage?: IterationUsage }
) =>
  Effect.gen(function*() {
    const current = loop.iterations.at(-1)!
    const iteration = current.iteration
    const { results, passed } = yield* evaluateCriteria([
      ...loop.config.successCriteria,
      ...(storyOf(loop, current)?.criteria ?? [])
    ], {
      projectRoot: loop.projectPath,
      iteration,
      ...(options.lastAssistantMessage === undefined ? {} : { lastAssistantMessage: options.lastAssistantMessage })
    })
    const previous = loop.iterations.at(-2)?.snapshotRef ?? loop.startSnapshotRef
    const snapshot = trySnapshot(loop.projectPath, loop.loopId, `iteration-${iteration}`)
    const snapshotRef = "snapshotRef" in snapshot ? snapshot.snapshotRef : undefined
    yield* execute(memory, loop.loopId, { _tag: "RecordCriteria", results }, options.writer)
    const completed = yield* execute(memory, loop.loopId, {
      _tag: "CompleteIteration",
      passed,
      filesChanged: changedFiles(loop.projectPath, previous, snapshotRef),
      ...snapshot,
      ...(options.usage === undefined ? {} : { usage: options.usage })
    }, options.writer)
    syncPrdFile(completed)
    return { loop: completed, results, passed, iteration }
  })

export interface Success {
  readonly loop: Loop
  /** A plan loop: where its plan was written, or why it could not be. */
  readonly plan?: { readonly path: string; readonly written: boolean; readonly problem?: string }
}

/**
 * Records a met goal. A plan loop's final plan (the last reply, privacy-filtered like everything else)
 * is written to its file first, then recorded with the success in one append: the log keeps the plan
 * even when the file cannot be written.
 */
export const succeed = (memory: MemoryStore, loop: Loop, writer: string, lastAssistantMessage: string | undefined) =>
  Effect.gen(function*() {
    if (loop.plan === undefined) {
      return { loop: yield* execute(memory, loop.loopId, { _tag: "Succeed" }, writer) } satisfies Success
    }
    const text = redactText(lastAssistantMessage ?? "").text
    const path = loop.plan.path
    const problem = yield* Effect.try({
      try: () => {
        // 0600, never through a link; in .ralph-mem/plans (0700) unless the loop was given --out.
        ensureOutputFolder(dirname(path))
        writePrivateFile(path, text.endsWith("\n") ? text : `${text}\n`)
      },
      catch: (error) => error as Error
    }).pipe(Effect.match({ onFailure: (error) => error.message, onSuccess: () => undefined }))
    const succeeded = yield* execute(memory, loop.loopId, { _tag: "Succeed", plan: { path, text } }, writer)
    return {
      loop: succeeded,
      plan: { path, written: problem === undefined, ...(problem === undefined ? {} : { problem }) }
    } satisfies Success
  })

/**
 * Where a loop stands before its next iteration. A driver that died after closing an iteration but
 * before recording the outcome left that decision unrecorded: it is made now (the goal was met: success;
 * a stop condition holds: failure), instead of beginning an iteration the limits forbid.
 */
export const settleOrBegin = (
  memory: MemoryStore,
  loop: Loop,
  writer: string,
  now: number,
  lastAssistantMessage?: string
) => {
  const verdict = loop.iterations.at(-1)?.completedAt === undefined
    ? { _tag: "Continue" as const }
    : nextStep(loop, { now })
  switch (verdict._tag) {
    case "Succeed":
      return Effect.map(succeed(memory, loop, writer, lastAssistantMessage), (s) => s.loop)
    case "Fail":
      return execute(memory, loop.loopId, { _tag: "Fail", reason: verdict.reason }, writer)
    case "Continue":
      return execute(memory, loop.loopId, { _tag: "BeginIteration" }, writer)
  }
}
