/** Everything that can go wrong in the event log, as values. Messages are written for the user. */
import * as Schema from "effect/Schema"

/** An append's expected stream version did not hold: someone else wrote to the stream first. */
export class WrongExpectedVersion extends Schema.TaggedError<WrongExpectedVersion>()("WrongExpectedVersion", {
  streamId: Schema.String,
  expected: Schema.String,
  actual: Schema.Int
}) {
  override get message() {
    return `stream ${this.streamId}: expected version ${this.expected}, but it is at ${this.actual}`
  }
}

/** An idempotency key was reused for a different batch. */
export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()("IdempotencyConflict", {
  key: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `idempotency key ${this.key}: ${this.reason}`
  }
}

/** An event failed its schema; nothing was written. */
export class InvalidEvent extends Schema.TaggedError<InvalidEvent>()("InvalidEvent", {
  reason: Schema.String
}) {
  override get message() {
    return `invalid event: ${this.reason}`
  }
}

/** A stored event could not be decoded with this build's catalog. */
export class UndecodableEvent extends Schema.TaggedError<UndecodableEvent>()("UndecodableEvent", {
  position: Schema.Int,
  reason: Schema.String
}) {
  override get message() {
    return `event #${this.position} cannot be decoded: ${this.reason}`
  }
}

/** SQLite failed (locked past the busy timeout, disk full, I/O error, ...). */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  operation: Schema.String,
  reason: Schema.String,
  code: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    return `${this.operation} failed: ${this.reason}`
  }
}

/**
 * The database file cannot be used: not SQLite, damaged, another program's, from a newer ralph-mem, or in a
 * memory folder ralph-mem refuses (`unsafe`: a link or another user's file where its own files belong).
 */
export class DatabaseUnusable extends Schema.TaggedError<DatabaseUnusable>()("DatabaseUnusable", {
  path: Schema.String,
  problem: Schema.Literals(["not_a_database", "corrupt", "foreign", "newer_schema", "unreachable", "unsafe"]),
  reason: Schema.String
}) {
  override get message() {
    return `${this.path}: ${this.reason}`
  }
}

/**
 * A path ralph-mem would write under the memory folder is not what ralph-mem makes there: a link (a
 * repository can commit `.ralph-mem/hooks.log` as a link to `~/.bashrc`), another user's file, or a file
 * where a folder belongs. ralph-mem neither writes nor changes it; `fix` says what the user can do.
 */
export class UnsafePath extends Schema.TaggedError<UnsafePath>()("UnsafePath", {
  path: Schema.String,
  problem: Schema.Literals(["link", "foreign_owner", "wrong_type", "hard_link", "tracked_by_git", "unknown_origin"]),
  reason: Schema.String,
  fix: Schema.String
}) {
  override get message() {
    return `ralph-mem refuses ${this.path}: ${this.reason}. ${this.fix}`
  }
}

/** Turns a thrown SQLite error into a StorageError that keeps its code. */
export const storageError = (operation: string, cause: unknown): StorageError => {
  const code = (cause as { code?: unknown } | null)?.code
  return new StorageError({
    operation,
    reason: cause instanceof Error ? cause.message : String(cause),
    ...(typeof code === "string" ? { code } : {})
  })
}
