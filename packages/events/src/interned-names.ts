/**
 * Stream ids and event types are stored once each (`streams`, `event_types`) and rows refer to them by
 * id. The `events` view joins the names back; a reader of `event_rows` itself (a replay) looks them up
 * here instead. Each name is read once, then kept: names are never changed or deleted.
 */
import type Database from "better-sqlite3"

const lookup = (db: Database.Database, table: "streams" | "event_types"): (id: number) => string => {
  const read = db.prepare<[number], string>(`SELECT name FROM ${table} WHERE id = ?`).pluck()
  const known = new Map<number, string>()
  return (id) => {
    let name = known.get(id)
    if (name === undefined) {
      name = read.get(id)
      if (name === undefined) throw new Error(`${table} has no row ${id}`)
      known.set(id, name)
    }
    return name
  }
}

export const nameReader = (db: Database.Database) => ({
  stream: lookup(db, "streams"),
  type: lookup(db, "event_types")
})
