/**
 * A projection is a pure fold from events to SQL changes: given one event, it says which statements
 * bring its tables up to date. It never reads the database and never looks at the clock, so applying
 * the same events always gives the same rows, inline or in a replay.
 */
import type { DecodedEvent, RalphMemEvent } from "@ralph-mem/events"

export type SqlValue = string | number | bigint | null

export interface SqlChange {
  readonly sql: string
  readonly params: ReadonlyArray<SqlValue>
}

export const sql = (text: string, ...params: ReadonlyArray<SqlValue>): SqlChange => ({ sql: text, params })

/**
 * An event that was not redacted, the only kind projections ever see, with what folds may use of it:
 * where it stands in the log, its id, its stream and its time (never its metadata, which a replay
 * does not read).
 */
export type ProjectedEvent = Pick<DecodedEvent<RalphMemEvent>, "position" | "eventId" | "streamId" | "occurredAt"> & {
  readonly event: RalphMemEvent
}

export interface ProjectionTable {
  readonly name: string
  /** The column list that orders rows deterministically, for comparisons. */
  readonly orderBy: string
}

export interface Projection {
  readonly name: string
  /** Bump when the tables or the fold change: the projection is then rebuilt from the log at open. */
  readonly version: number
  /** DDL that creates the projection's tables from nothing. */
  readonly create: string
  /**
   * DDL run once the tables hold their rows: secondary indexes, full-text indexes and the triggers that
   * keep them in sync. A rebuild loads the tables first and runs this last, which is far faster than
   * maintaining every index row by row.
   */
  readonly finish: string
  /** Plain tables, compared row by row by `verify`. */
  readonly tables: ReadonlyArray<ProjectionTable>
  /** Full-text indexes over those tables: checked with FTS5's own integrity check. */
  readonly indexes: ReadonlyArray<string>
  /** Projections whose tables this one reads while folding; a rebuild of this one rebuilds them too. */
  readonly dependsOn?: ReadonlyArray<string>
  /** Objects that earlier versions created and this one no longer does: dropped when it is rebuilt. */
  readonly retired?: ReadonlyArray<string>
  /**
   * SQL run once a forget has cleared and re-folded its streams, in the same transaction: whatever it
   * takes for the deleted content to leave no readable trace in the file.
   */
  readonly purge?: string
  readonly apply: (event: ProjectedEvent) => ReadonlyArray<SqlChange>
  /**
   * Removes everything derived from one stream. Every row of a projection derives from a single
   * stream, so after a forget the runner clears the affected streams and folds what remains of them.
   */
  readonly clearStream: (streamId: string) => ReadonlyArray<SqlChange>
}

/** Stores JSON in a column; `[]` and `{}` stay as they are so equal content gives equal bytes. */
export const json = (value: unknown): string => JSON.stringify(value)
