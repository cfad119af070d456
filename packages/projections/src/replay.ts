/**
 * Replay: rebuild projections from the log. One transaction, so readers keep seeing the old state
 * until the new one is complete, and a crash part-way leaves the old state exactly as it was.
 */
import { StorageError, storageError, UndecodableEvent } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { MemoryStore } from "./memory-store.ts"
import type { RebuildProgress, RebuildReport } from "./runner.ts"

export class UnknownProjection extends Schema.TaggedError<UnknownProjection>()("UnknownProjection", {
  name: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `no projection named ${JSON.stringify(this.name)}; known: ${this.known.join(", ")}`
  }
}

export const replay = (
  memory: MemoryStore,
  options: { readonly projection?: string; readonly onProgress?: (progress: RebuildProgress) => void } = {}
): Effect.Effect<RebuildReport, UnknownProjection | UndecodableEvent | StorageError> =>
  Effect.suspend((): Effect.Effect<RebuildReport, UnknownProjection | UndecodableEvent | StorageError> => {
    const known = memory.runner.projections.map((p) => p.name)
    if (options.projection !== undefined && !known.includes(options.projection)) {
      return Effect.fail(new UnknownProjection({ name: options.projection, known }))
    }
    return Effect.try({
      try: () =>
        memory.runner.rebuild(options.projection === undefined ? undefined : [options.projection], options.onProgress),
      catch: (error) => (error instanceof UndecodableEvent ? error : storageError("replay", error))
    })
  })
