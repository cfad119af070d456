/**
 * The search's statements, prepared once per connection: a search runs a dozen small statements, and
 * preparing is part of its cost.
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import type { Statement } from "better-sqlite3"

/** Prepared once per connection: a search runs a dozen small statements, and preparing is part of its cost. */
const prepared = new WeakMap<SqliteDatabase, Map<string, Statement>>()
export const statement = (db: SqliteDatabase, sql: string): Statement => {
  let statements = prepared.get(db)
  if (statements === undefined) prepared.set(db, statements = new Map())
  let found = statements.get(sql)
  if (found === undefined) statements.set(sql, found = db.prepare(sql))
  return found
}
/** A statement whose rows are single values. */
export const values = (db: SqliteDatabase, sql: string): Statement => statement(db, sql).pluck()
