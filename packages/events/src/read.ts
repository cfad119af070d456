/**
 * Reading the log as an Effect Stream, page by page: memory stays bounded by the page size, not by
 * the log's size. Kept apart from log.ts so the hooks, which never stream, do not load effect/Stream.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { StorageError } from "./errors.ts"
import { DEFAULT_PAGE_SIZE, type EventLog, type ReadQuery, type RecordedEvent } from "./log.ts"

export const readEvents = <E extends { readonly _tag: string }>(
  log: EventLog<E>,
  query: ReadQuery = {}
): Stream.Stream<RecordedEvent, StorageError> => {
  const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE
  const newestFirst = query.newestFirst === true
  const start = newestFirst ? query.beforePosition ?? Number.MAX_SAFE_INTEGER : query.afterPosition ?? 0
  const cursorField = newestFirst ? "beforePosition" : "afterPosition"
  const all = Stream.paginate(
    start,
    (cursor: number) =>
      Effect.map(log.readPage({ ...query, [cursorField]: cursor, pageSize }), (page) => {
        const last = page.at(-1)
        const more = page.length === pageSize && last !== undefined
        return [page, more ? Option.some(last.position) : Option.none()] as const
      })
  )
  return query.limit === undefined ? all : Stream.take(all, query.limit)
}
