/** Flags shared by many commands. */
import { Flag } from "effect/cli"

export const json = Flag.Boolean("json").pipe(Flag.withDescription("Print machine-readable JSON"), Flag.withDefault(false))

export const db = Flag.String("db").pipe(
  Flag.withDescription("The database file (default: $RALPH_MEM_DB, else <git root>/.ralph-mem/memory.db)"),
  Flag.optional
)
