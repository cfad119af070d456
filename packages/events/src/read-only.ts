/**
 * A connection that can only read: for viewers that must never change the memory (the web viewer opens
 * one per request, so a database replaced by a restore or rebuilt by a replay is simply read anew).
 * It registers the functions the `events` view reads packed payloads with; it applies no migration and
 * creates nothing, so a missing or foreign file is an error, never a new database.
 */
import type Database from "better-sqlite3"
import { readOnlyConnection } from "./database.ts"
import { APPLICATION_ID } from "./migrations.ts"
import { registerPayloadFunctions } from "./payload-blocks.ts"

/** Also in a memory folder this process cannot write (see `readOnlyConnection`). */
export const openReadOnly = (path: string): Database.Database => {
  const db = readOnlyConnection(path)
  try {
    db.pragma("busy_timeout = 1000")
    if (db.pragma("application_id", { simple: true }) !== APPLICATION_ID) {
      throw new Error(`${path} is not a ralph-mem database`)
    }
    registerPayloadFunctions(db)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}
