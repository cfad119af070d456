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

/** The payload a redacted event carries. */
export const REDACTED_PAYLOAD = "{\"redacted\":true}"

/** What a refused update of an event says (schema 1, then schemas 2 and 3). */
const ONLY_REDACTION = "events are immutable: the only permitted change is a redaction by a MemoryForgotten"
  + " event"
const ONLY_REDACTION_OR_PACKING =
  "events are immutable: the only permitted changes are a redaction by a MemoryForgotten"
  + " event and packing a payload into a block that holds it"

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
      WHEN NEW.stream_version
        != 1 + coalesce((SELECT max(stream_version) FROM events WHERE stream_id = NEW.stream_id), 0)
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
      BEGIN SELECT RAISE(ABORT, '${ONLY_REDACTION}'); END;
    `
  },
  {
    version: 2,
    description: "payload blocks: settled payloads packed and deflated, read through the events view",
    // The table is rebuilt (SQLite cannot drop a NOT NULL): a packed event's payload is NULL.
    sql: `
      CREATE TABLE payload_blocks (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        first_position INTEGER NOT NULL,
        last_position  INTEGER NOT NULL CHECK (last_position >= first_position),
        data           BLOB    NOT NULL
      ) STRICT;
      CREATE TABLE event_rows (
        position        INTEGER PRIMARY KEY,
        event_id        TEXT    NOT NULL UNIQUE,
        stream_id       TEXT    NOT NULL CHECK (length(stream_id) > 0),
        stream_version  INTEGER NOT NULL CHECK (stream_version >= 1),
        type            TEXT    NOT NULL,
        schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
        -- The payload JSON, or NULL when it is packed in slot block_slot of block block_id.
        payload         TEXT    CHECK (payload IS NULL OR json_valid(payload)),
        metadata        TEXT    NOT NULL CHECK (json_valid(metadata)),
        occurred_at     INTEGER NOT NULL,
        idempotency_key TEXT    UNIQUE,
        redacted_by     TEXT,
        block_id        INTEGER,
        block_slot      INTEGER CHECK (block_slot >= 0),
        CHECK ((payload IS NULL) = (block_id IS NOT NULL) AND (block_id IS NULL) = (block_slot IS NULL)),
        UNIQUE (stream_id, stream_version)
      ) STRICT;
      INSERT INTO event_rows (position, event_id, stream_id, stream_version, type, schema_version, payload, metadata,
                              occurred_at, idempotency_key, redacted_by)
        SELECT position, event_id, stream_id, stream_version, type, schema_version, payload, metadata, occurred_at,
               idempotency_key, redacted_by FROM events;
      DROP TABLE events;
      CREATE INDEX event_rows_by_type ON event_rows (type, position);
      CREATE INDEX event_rows_by_time ON event_rows (occurred_at, position);

      -- Every reader's view of the log: payloads as they were written, packed or not.
      CREATE VIEW events AS
        SELECT r.position, r.event_id, r.stream_id, r.stream_version, r.type, r.schema_version,
               coalesce(r.payload, ralph_cached_payload(r.block_id, r.block_slot),
                        ralph_block_payload(r.block_id, r.block_slot, b.data)) AS payload,
               r.metadata, r.occurred_at, r.idempotency_key, r.redacted_by
        FROM event_rows r LEFT JOIN payload_blocks b ON b.id = r.block_id;

      CREATE TRIGGER event_rows_stream_versions_are_contiguous BEFORE INSERT ON event_rows
      WHEN NEW.stream_version
        != 1 + coalesce((SELECT max(stream_version) FROM event_rows WHERE stream_id = NEW.stream_id), 0)
      BEGIN SELECT RAISE(ABORT, 'events: stream versions must be contiguous'); END;

      CREATE TRIGGER event_rows_are_appended_unpacked BEFORE INSERT ON event_rows
      WHEN NEW.block_id IS NOT NULL
      BEGIN SELECT RAISE(ABORT, 'events: an event is appended with its payload; only compaction packs it'); END;

      CREATE TRIGGER event_rows_are_never_deleted BEFORE DELETE ON event_rows
      BEGIN SELECT RAISE(ABORT, 'events are immutable: rows cannot be deleted'); END;

      -- What an event says never changes. Its storage may: packed into a block holding exactly its payload,
      -- or unpacked back from one; and a MemoryForgotten event may redact it (its payload becomes the
      -- redaction marker), once it is unpacked.
      CREATE TRIGGER event_rows_change_only_by_redaction_or_packing BEFORE UPDATE ON event_rows
      WHEN NOT (
        NEW.position IS OLD.position
        AND NEW.event_id IS OLD.event_id
        AND NEW.stream_id IS OLD.stream_id
        AND NEW.stream_version IS OLD.stream_version
        AND NEW.type IS OLD.type
        AND NEW.schema_version IS OLD.schema_version
        AND NEW.metadata IS OLD.metadata
        AND NEW.occurred_at IS OLD.occurred_at
        AND NEW.idempotency_key IS OLD.idempotency_key
        AND (
          (OLD.redacted_by IS NULL AND NEW.redacted_by IS NOT NULL
           AND OLD.block_id IS NULL AND NEW.block_id IS NULL
           AND NEW.payload = '${REDACTED_PAYLOAD}'
           AND EXISTS (SELECT 1 FROM event_rows f WHERE f.event_id = NEW.redacted_by AND f.type = 'MemoryForgotten'))
          OR (NEW.redacted_by IS OLD.redacted_by AND OLD.block_id IS NULL AND NEW.block_id IS NOT NULL
              AND EXISTS (SELECT 1 FROM payload_blocks b WHERE b.id = NEW.block_id
                            AND NEW.position BETWEEN b.first_position AND b.last_position
                            AND OLD.payload = ralph_block_payload(b.id, NEW.block_slot, b.data)))
          OR (NEW.redacted_by IS OLD.redacted_by AND OLD.block_id IS NOT NULL AND NEW.block_id IS NULL
              AND EXISTS (SELECT 1 FROM payload_blocks b WHERE b.id = OLD.block_id
                            AND NEW.payload = ralph_block_payload(b.id, OLD.block_slot, b.data)))
        )
      )
      BEGIN SELECT RAISE(ABORT, '${ONLY_REDACTION_OR_PACKING}'); END;

      CREATE TRIGGER payload_blocks_never_change BEFORE UPDATE ON payload_blocks
      BEGIN SELECT RAISE(ABORT, 'payload blocks are immutable'); END;

      CREATE TRIGGER payload_blocks_go_only_when_unpacked BEFORE DELETE ON payload_blocks
      WHEN EXISTS (SELECT 1 FROM event_rows
                   WHERE position BETWEEN OLD.first_position AND OLD.last_position AND block_id = OLD.id)
      BEGIN SELECT RAISE(ABORT, 'payload blocks are deleted only once no event is packed in them'); END;
    `
  },
  {
    version: 3,
    description: "stream ids and event types stored once each; packed events' metadata in their blocks",
    // Rebuilt again: the stream id and the type become references. Blocks packed by schema 2 hold
    // payloads only, so their events keep their metadata in the row.
    // The old table is renamed while the events view still stands: a rename checks every view, and the
    // read models' views read events.
    sql: `
      ALTER TABLE event_rows RENAME TO event_rows_v2;
      DROP VIEW events;
      DROP TRIGGER payload_blocks_go_only_when_unpacked;

      -- Names are never changed or deleted: every event that refers to one would change with it.
      CREATE TABLE streams (
        id   INTEGER PRIMARY KEY,
        name TEXT    NOT NULL UNIQUE CHECK (length(name) > 0)
      ) STRICT;
      CREATE TABLE event_types (
        id   INTEGER PRIMARY KEY,
        name TEXT    NOT NULL UNIQUE CHECK (length(name) > 0)
      ) STRICT;
      INSERT INTO streams (name) SELECT stream_id FROM event_rows_v2 GROUP BY stream_id ORDER BY min(position);
      INSERT INTO event_types (name) SELECT type FROM event_rows_v2 GROUP BY type ORDER BY min(position);

      CREATE TABLE event_rows (
        position        INTEGER PRIMARY KEY,
        event_id        TEXT    NOT NULL UNIQUE,
        stream          INTEGER NOT NULL REFERENCES streams (id),
        stream_version  INTEGER NOT NULL CHECK (stream_version >= 1),
        type            INTEGER NOT NULL REFERENCES event_types (id),
        schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
        -- The payload JSON, or NULL when it is packed in slot block_slot of block block_id.
        payload         TEXT    CHECK (payload IS NULL OR json_valid(payload)),
        -- The metadata JSON, or NULL when it is packed with the payload.
        metadata        TEXT    CHECK (metadata IS NULL OR json_valid(metadata)),
        occurred_at     INTEGER NOT NULL,
        idempotency_key TEXT,
        redacted_by     TEXT,
        block_id        INTEGER,
        block_slot      INTEGER CHECK (block_slot >= 0),
        CHECK ((payload IS NULL) = (block_id IS NOT NULL) AND (block_id IS NULL) = (block_slot IS NULL)),
        CHECK (metadata IS NOT NULL OR block_id IS NOT NULL),
        UNIQUE (stream, stream_version)
      ) STRICT;
      INSERT INTO event_rows (position, event_id, stream, stream_version, type, schema_version, payload, metadata,
                              occurred_at, idempotency_key, redacted_by, block_id, block_slot)
        SELECT r.position, r.event_id, s.id, r.stream_version, t.id, r.schema_version, r.payload, r.metadata,
               r.occurred_at, r.idempotency_key, r.redacted_by, r.block_id, r.block_slot
        FROM event_rows_v2 r JOIN streams s ON s.name = r.stream_id JOIN event_types t ON t.name = r.type
        ORDER BY r.position;
      DROP TABLE event_rows_v2;
      -- Most events have no idempotency key: only those with one are indexed.
      CREATE UNIQUE INDEX event_rows_by_key ON event_rows (idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE INDEX event_rows_by_type ON event_rows (type, position);
      CREATE INDEX event_rows_by_time ON event_rows (occurred_at, position);

      -- Every reader's view of the log: names, payloads and metadata as they were written, packed or not.
      CREATE VIEW events AS
        SELECT r.position, r.event_id, s.name AS stream_id, r.stream_version, t.name AS type, r.schema_version,
               coalesce(r.payload, ralph_cached_payload(r.block_id, r.block_slot),
                        ralph_block_payload(r.block_id, r.block_slot, b.data)) AS payload,
               coalesce(r.metadata, ralph_cached_metadata(r.block_id, r.block_slot),
                        ralph_block_metadata(r.block_id, r.block_slot, b.data)) AS metadata,
               r.occurred_at, r.idempotency_key, r.redacted_by
        FROM event_rows r JOIN streams s ON s.id = r.stream JOIN event_types t ON t.id = r.type
        LEFT JOIN payload_blocks b ON b.id = r.block_id;

      CREATE TRIGGER streams_never_change BEFORE UPDATE ON streams
      BEGIN SELECT RAISE(ABORT, 'stream names are immutable'); END;
      CREATE TRIGGER streams_are_never_deleted BEFORE DELETE ON streams
      BEGIN SELECT RAISE(ABORT, 'stream names are immutable'); END;
      CREATE TRIGGER event_types_never_change BEFORE UPDATE ON event_types
      BEGIN SELECT RAISE(ABORT, 'event type names are immutable'); END;
      CREATE TRIGGER event_types_are_never_deleted BEFORE DELETE ON event_types
      BEGIN SELECT RAISE(ABORT, 'event type names are immutable'); END;

      CREATE TRIGGER event_rows_stream_versions_are_contiguous BEFORE INSERT ON event_rows
      WHEN NEW.stream_version
        != 1 + coalesce((SELECT max(stream_version) FROM event_rows WHERE stream = NEW.stream), 0)
      BEGIN SELECT RAISE(ABORT, 'events: stream versions must be contiguous'); END;

      CREATE TRIGGER event_rows_are_appended_unpacked BEFORE INSERT ON event_rows
      WHEN NEW.block_id IS NOT NULL
      BEGIN SELECT RAISE(ABORT, 'events: an event is appended with its payload; only compaction packs it'); END;

      CREATE TRIGGER event_rows_are_never_deleted BEFORE DELETE ON event_rows
      BEGIN SELECT RAISE(ABORT, 'events are immutable: rows cannot be deleted'); END;

      -- What an event says never changes. Its storage may: packed into a block holding exactly its payload
      -- and metadata, or unpacked back from one; and a MemoryForgotten event may redact it (its payload
      -- becomes the redaction marker), once it is unpacked.
      CREATE TRIGGER event_rows_change_only_by_redaction_or_packing BEFORE UPDATE ON event_rows
      WHEN NOT (
        NEW.position IS OLD.position
        AND NEW.event_id IS OLD.event_id
        AND NEW.stream IS OLD.stream
        AND NEW.stream_version IS OLD.stream_version
        AND NEW.type IS OLD.type
        AND NEW.schema_version IS OLD.schema_version
        AND NEW.occurred_at IS OLD.occurred_at
        AND NEW.idempotency_key IS OLD.idempotency_key
        AND (
          (OLD.redacted_by IS NULL AND NEW.redacted_by IS NOT NULL
           AND OLD.block_id IS NULL AND NEW.block_id IS NULL
           AND NEW.metadata IS OLD.metadata
           AND NEW.payload = '${REDACTED_PAYLOAD}'
           AND EXISTS (SELECT 1 FROM event_rows f JOIN event_types t ON t.id = f.type
                       WHERE f.event_id = NEW.redacted_by AND t.name = 'MemoryForgotten'))
          OR (NEW.redacted_by IS OLD.redacted_by AND OLD.block_id IS NULL AND NEW.block_id IS NOT NULL
              AND NEW.metadata IS NULL
              AND EXISTS (SELECT 1 FROM payload_blocks b WHERE b.id = NEW.block_id
                            AND NEW.position BETWEEN b.first_position AND b.last_position
                            AND OLD.payload = ralph_block_payload(b.id, NEW.block_slot, b.data)
                            AND OLD.metadata = ralph_block_metadata(b.id, NEW.block_slot, b.data)))
          OR (NEW.redacted_by IS OLD.redacted_by AND OLD.block_id IS NOT NULL AND NEW.block_id IS NULL
              AND EXISTS (SELECT 1 FROM payload_blocks b WHERE b.id = OLD.block_id
                            AND NEW.payload = ralph_block_payload(b.id, OLD.block_slot, b.data)
                            AND NEW.metadata
                              = coalesce(OLD.metadata, ralph_block_metadata(b.id, OLD.block_slot, b.data))))
        )
      )
      BEGIN SELECT RAISE(ABORT, '${ONLY_REDACTION_OR_PACKING}'); END;

      CREATE TRIGGER payload_blocks_go_only_when_unpacked BEFORE DELETE ON payload_blocks
      WHEN EXISTS (SELECT 1 FROM event_rows
                   WHERE position BETWEEN OLD.first_position AND OLD.last_position AND block_id = OLD.id)
      BEGIN SELECT RAISE(ABORT, 'payload blocks are deleted only once no event is packed in them'); END;
    `
  },
  {
    version: 4,
    description: "payload blocks may be slotted (payload-blocks.ts): each event's text found by its length",
    // Nothing to change: the blocks already written read as before. The version is what changes: a ralph-mem that
    // reads JSON blocks only refuses this database, where it would take the blocks written from now on for damage.
    sql: ""
  }
]

export const LATEST_SCHEMA_VERSION = migrations.at(-1)!.version
