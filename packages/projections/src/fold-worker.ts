/**
 * The worker half of a parallel rebuild (see fold-in-worker.ts): reads the log on its own read-only
 * connection, decodes each event and runs the projections' folds, and sends the SQL they return, in
 * log order, to the thread that owns the rebuild's transaction.
 */
import { newSqliteDatabase, UndecodableEvent, useBundledNativeBinding } from "@ralph-mem/events"
import { workerData } from "node:worker_threads"
import { allProjections } from "./all.ts"
import { send } from "./fold-channel.ts"
import type { FoldMessage, FoldWorkerData } from "./fold-in-worker.ts"
import type { SqlValue } from "./projection.ts"
import { projectedPages } from "./runner.ts"

/** Values per message: big enough that posting costs little, small enough to keep memory flat. */
const VALUES_PER_MESSAGE = 30_000

const { path, projections: names, after, until, port, signal } = workerData as FoldWorkerData

const fold = (): void => {
  useBundledNativeBinding(import.meta.url)
  const db = newSqliteDatabase(path, { readonly: true, fileMustExist: true })
  try {
    const projections = names.map((name) => allProjections.find((p) => p.name === name)!)
    const numbers = new Map<string, number>()
    let statements: Array<string> = []
    let changes: Array<SqlValue> = []
    let events = 0
    const flush = () => {
      send(port, signal, { kind: "changes", events, statements, changes } satisfies FoldMessage)
      statements = []
      changes = []
      events = 0
    }
    for (const page of projectedPages(db, { after, until })) {
      events += page.read
      for (const event of page.events) {
        for (const projection of projections) {
          for (const change of projection.apply(event)) {
            let number = numbers.get(change.sql)
            if (number === undefined) {
              number = numbers.size
              numbers.set(change.sql, number)
              statements.push(change.sql)
            }
            changes.push(number, change.params.length, ...change.params)
          }
        }
        if (changes.length >= VALUES_PER_MESSAGE) flush()
      }
    }
    flush()
    send(port, signal, { kind: "done" } satisfies FoldMessage)
  } finally {
    db.close()
  }
}

try {
  fold()
} catch (error) {
  send(
    port,
    signal,
    {
      kind: "failed",
      position: error instanceof UndecodableEvent ? error.position : null,
      reason: error instanceof UndecodableEvent ? error.reason : error instanceof Error ? error.message : String(error)
    } satisfies FoldMessage
  )
}
