/** What ralph-mem did to keep the database healthy, so the user can see it. */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

/** The database was damaged: it was set aside and the newest good backup (if any) put in its place. */
export const DatabaseRestored = defineEvent("DatabaseRestored", () => ({
  reason: Schema.String,
  /** The backup restored, or absent when there was none and memory starts afresh. */
  backup: Schema.optionalKey(Schema.String),
  /** Where the damaged file was kept, for a manual rescue. */
  damagedCopy: Schema.String,
  /** Events of the damaged file past the backup's head that were read back into the log. */
  salvaged: Schema.optionalKey(Schema.Int),
  /** Events past the backup's head that could not be read (an EventsLost event says which). */
  unreadable: Schema.optionalKey(Schema.Int),
  /** Why the damaged file's events were not read back (it was not shown to be the user's memory), if they were not. */
  notSalvaged: Schema.optionalKey(Schema.String)
}))

/**
 * Committed events found missing: the head mark named an event the log no longer holds (a WAL cut
 * short, a damaged frame), or a restore could not read them from the damaged file.
 */
export const EventsLost = defineEvent("EventsLost", () => ({
  count: Schema.Int,
  detail: Schema.String
}))

/** The user has seen these losses (`doctor --repair`): they are no longer reported as a problem. */
export const LossAcknowledged = defineEvent("LossAcknowledged", () => ({
  lossEventIds: Schema.Array(Schema.String)
}))
