/**
 * The event log's schema, by version. Each migration runs once, in the same transaction that bumps
 * `PRAGMA user_version`, so a database is always at exactly one known version.
 *
 * Read models are not migrated here: they are projections, dropped and rebuilt from the log.
 */
export interface Migration {
  readonly version: number
  readonly description: string
  readonly sql: string
}

/** Marks a database as ralph-mem's (`PRAGMA application_id`, ASCII "RMEM"). */
export const APPLICATION_ID = 0x524d454d

/** The payload a redacted event carries; the only value an UPDATE may write. */
export const REDACTED_PAYLOAD = '{"redacted":true}'

export const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    description: "append-only event log",
    sql: `
      CREATE TABLE events (
        position        INTEGER PRIMARY KEY,
        event_id        TEXT    NOT NULL UNIQUE,
        stream_id       TEXT    NOT NULL CHECK (length(stream_id) > 0),
        stream_version  INTEGER NOT NULL CHECK (stream_version >= 1),
        type            TEXT    NOT NULL,
        schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
        payload         TEXT    NOT NULL CHECK (json_valid(payload)),
        metadata        TEXT    NOT NULL CHECK (json_valid(metadata)),
        occurred_at     INTEGER NOT NULL,
        idempotency_key TEXT    UNIQUE,
        redacted_by     TEXT,
        UNIQUE (stream_id, stream_version)
      ) STRICT;
      CREATE INDEX events_by_type ON events (type, position);
      CREATE INDEX events_by_time ON events (occurred_at, position);

      -- Streams grow one version at a time, from 1, with no gaps.
      CREATE TRIGGER events_stream_versions_are_contiguous BEFORE INSERT ON events
      WHEN NEW.stream_version != 1 + coalesce((SELECT max(stream_version) FROM events WHERE stream_id = NEW.stream_id), 0)
      BEGIN SELECT RAISE(ABORT, 'events: stream versions must be contiguous'); END;

      CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
      BEGIN SELECT RAISE(ABORT, 'events are immutable: rows cannot be deleted'); END;

      -- The one permitted change: a one-way redaction by a MemoryForgotten event. Everything but the
      -- payload stays as it was, and the payload becomes the redaction marker.
      CREATE TRIGGER events_change_only_by_redaction BEFORE UPDATE ON events
      WHEN NOT (
        OLD.redacted_by IS NULL
        AND NEW.redacted_by IS NOT NULL
        AND NEW.payload = '${REDACTED_PAYLOAD}'
        AND NEW.position IS OLD.position
        AND NEW.event_id IS OLD.event_id
        AND NEW.stream_id IS OLD.stream_id
        AND NEW.stream_version IS OLD.stream_version
        AND NEW.type IS OLD.type
        AND NEW.schema_version IS OLD.schema_version
        AND NEW.metadata IS OLD.metadata
        AND NEW.occurred_at IS OLD.occurred_at
        AND NEW.idempotency_key IS OLD.idempotency_key
        AND EXISTS (SELECT 1 FROM events f WHERE f.event_id = NEW.redacted_by AND f.type = 'MemoryForgotten')
      )
      BEGIN SELECT RAISE(ABORT, 'events are immutable: the only permitted change is a redaction by a MemoryForgotten event'); END;
    `
  }
]

export const LATEST_SCHEMA_VERSION = migrations.at(-1)!.version
