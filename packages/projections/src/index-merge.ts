/**
 * Keeping the full-text indexes in few segments, off the hook path (`ralph-mem maintain`, `ralph-mem compact`).
 * Every append a hook commits flushes a small segment into the indexes it touches, and FTS5's automerge lets up
 * to 4 pile up at each level before it merges them, so a memory's index holds a dozen segments or more. A
 * query looks each of its terms up in every segment and merges what they hold, so a search (and the prompt
 * hook, which runs one) costs more with every segment. Merging every level that holds two or more segments
 * ('usermerge' 2, then 'merge' until it does nothing) leaves about one segment a level: the small, recent
 * segments are merged, and the large old one is left as it is until a level below grows as large.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import { allProjections } from "./all.ts"

/** Leaf pages one merge step writes at most: one short write transaction, which a hook waits on at most. */
const PAGES_PER_STEP = 500

/** Steps one run takes at most (about 400 MB written): a larger backlog is left for the next run. */
const MAX_STEPS = 200

/** A level with this many segments is merged (FTS5's own automerge, on appends, waits for 4). */
const MERGE_FROM_SEGMENTS = 2

export interface IndexMergeReport {
  /** Merge steps taken, over every index. */
  readonly steps: number
  /** The indexes that held segments to merge. */
  readonly merged: ReadonlyArray<string>
}

/** The full-text indexes of every read model. */
const fullTextIndexes = (): ReadonlyArray<string> => allProjections.flatMap((projection) => projection.indexes)

/**
 * An FTS5 command with its whole-number argument. Both are spliced in: `name` is one of the read models' own
 * index names and `value` a constant, never user input, and FTS5 takes an integer only (a bound JavaScript
 * number is a real).
 */
const command = (name: string, option: string, value: number) =>
  `INSERT INTO ${name} (${name}, rank) VALUES ('${option}', ${Math.trunc(value)})`

export const mergeFullTextIndexes = (db: SqliteDatabase): IndexMergeReport => {
  const changes = db.prepare<[], number>("SELECT total_changes()").pluck()
  const merged: Array<string> = []
  let steps = 0
  for (const name of fullTextIndexes()) {
    const configured = db.prepare<[], number | null>(`SELECT v FROM ${name}_config WHERE k = 'usermerge'`).pluck()
      .get()
    if (configured !== MERGE_FROM_SEGMENTS) {
      db.transaction(() => db.prepare(command(name, "usermerge", MERGE_FROM_SEGMENTS)).run()).immediate()
    }
    const merge = db.prepare(command(name, "merge", PAGES_PER_STEP))
    // A step that merged nothing changes at most the structure record: the index is as merged as it gets.
    const step = db.transaction(() => {
      const before = changes.get()!
      merge.run()
      return changes.get()! - before >= 2
    })
    let mergedAny = false
    while (steps < MAX_STEPS && step.immediate()) {
      steps++
      mergedAny = true
    }
    if (mergedAny) merged.push(name)
  }
  return { steps, merged }
}
