/** What ralph-mem did to keep the database healthy, so the user can see it. */
import * as Schema from "effect/Schema"
import { defineEvent } from "./define.ts"

/** The database was damaged: it was set aside and the newest good backup (if any) put in its place. */
export const DatabaseRestored = defineEvent("DatabaseRestored", {
  reason: Schema.String,
  /** The backup restored, or absent when there was none and memory starts afresh. */
  backup: Schema.optionalKey(Schema.String),
  /** Where the damaged file was kept, for a manual rescue. */
  damagedCopy: Schema.String
})
