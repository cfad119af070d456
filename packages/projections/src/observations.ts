/**
 * `observations` and their full-text index: what happened in sessions (tool uses, errors, successes)
 * and the notes users asked to remember. A row's id is the position of the event it came from, so
 * the full-text rowids are stable however the table is built.
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import { json, type Projection, type SqlChange, sql } from "./projection.ts"
import { identifiersOf } from "./search/identifiers.ts"
import { searchableText } from "./search/text.ts"

interface ObservationRow {
  readonly id: number
  readonly eventId: string
  readonly streamId: string
  readonly sessionId: string | null
  readonly projectPath: string | null
  readonly type: string
  readonly toolName: string | null
  readonly inputSummary: string | null
  readonly content: string
  readonly errorMessage: string | null
  readonly files: ReadonlyArray<string>
  readonly metadata: Record<string, unknown>
  readonly createdAt: number
}

// A tool observation takes its project from its session's row (written by the sessions projection,
// which runs first for every event), so searches filter on one indexed column.
const INSERT = `INSERT INTO observations (id, event_id, stream_id, session_id, project_path, type, tool_name, input_summary,
  content, error_message, files, metadata, search_terms, identifiers, created_at)
  VALUES (?, ?, ?, ?, coalesce(?, (SELECT s.project_path FROM sessions s WHERE s.session_id = ?)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const insert = (row: ObservationRow): ReadonlyArray<SqlChange> => {
  const indexed = [row.toolName, row.inputSummary, row.content, row.errorMessage, ...row.files].filter((t) => t !== null).join("\n")
  return [
    sql(
      INSERT,
      row.id,
      row.eventId,
      row.streamId,
      row.sessionId,
      row.projectPath,
      row.sessionId,
      row.type,
      row.toolName,
      row.inputSummary,
      row.content,
      row.errorMessage,
      json(row.files),
      json(row.metadata),
      searchableText(indexed),
      identifiersOf(indexed),
      row.createdAt
    )
  ]
}

/** Only the fields that are set, so equal observations store equal bytes. */
const defined = (fields: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))

const rowOf = (
  event: RalphMemEvent,
  at: { readonly position: number; readonly eventId: string; readonly streamId: string; readonly occurredAt: number }
): ObservationRow | undefined => {
  const common = { id: at.position, eventId: at.eventId, streamId: at.streamId, createdAt: at.occurredAt }
  switch (event._tag) {
    case "ObservationRecorded":
      return {
        ...common,
        sessionId: event.sessionId,
        projectPath: null,
        type: event.kind,
        toolName: event.toolName ?? null,
        inputSummary: event.inputSummary ?? null,
        content: event.content,
        errorMessage: event.errorMessage ?? null,
        files: event.files,
        metadata: defined({ toolUseId: event.toolUseId, durationMs: event.durationMs, truncated: event.truncated })
      }
    case "NoteInjected":
      return {
        ...common,
        sessionId: event.sessionId ?? null,
        projectPath: event.projectPath,
        type: "note",
        toolName: null,
        inputSummary: null,
        content: event.text,
        errorMessage: null,
        files: [],
        metadata: { noteId: event.noteId, noteType: event.noteType }
      }
    default:
      return undefined
  }
}

export const observations: Projection = {
  name: "observations",
  version: 4,
  create: `
    CREATE TABLE observations (
      id            INTEGER PRIMARY KEY,
      event_id      TEXT NOT NULL,
      stream_id     TEXT NOT NULL,
      session_id    TEXT,
      project_path  TEXT,
      type          TEXT NOT NULL CHECK (type IN ('tool_use', 'error', 'success', 'note')),
      tool_name     TEXT,
      input_summary TEXT,
      content       TEXT NOT NULL,
      error_message TEXT,
      files         TEXT NOT NULL,
      metadata      TEXT NOT NULL,
      search_terms  TEXT NOT NULL,
      identifiers   TEXT NOT NULL,
      created_at    INTEGER NOT NULL
    ) STRICT;
  `,
  finish: `
    CREATE UNIQUE INDEX observations_by_event ON observations (event_id);
    CREATE INDEX observations_by_session ON observations (session_id, id);
    CREATE INDEX observations_by_stream ON observations (stream_id);
    CREATE INDEX observations_by_type ON observations (type, created_at);
    CREATE INDEX observations_by_project ON observations (project_path, id);
    CREATE INDEX observations_by_time ON observations (created_at);
    -- What the index sees: the text is stored once, in observations; the index keeps only tokens.
    CREATE VIEW observations_indexed AS
      SELECT id,
             trim(coalesce(tool_name, '') || ' ' || coalesce(input_summary, '')) AS title,
             content || CASE WHEN error_message IS NULL THEN '' ELSE char(10) || error_message END AS body,
             files,
             search_terms AS terms
      FROM observations;
    CREATE VIRTUAL TABLE observations_fts USING fts5(
      title, body, files, terms,
      content = 'observations_indexed',
      content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2'
    );
    -- Deleted rows leave no readable tokens behind in the index.
    INSERT INTO observations_fts (observations_fts, rank) VALUES ('secure-delete', 1);
    -- How many observations hold each term: the search leaves out terms nearly every row has.
    CREATE VIRTUAL TABLE observations_vocab USING fts5vocab(observations_fts, 'row');
    -- Index what the table already holds in one pass (the bulk path of a rebuild), then stay in step row by row.
    INSERT INTO observations_fts (observations_fts) VALUES ('rebuild');
    CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations BEGIN
      INSERT INTO observations_fts (rowid, title, body, files, terms)
      SELECT id, title, body, files, terms FROM observations_indexed WHERE id = NEW.id;
    END;
    -- External-content rows leave the index with the values they were indexed with, read before they go.
    CREATE TRIGGER observations_fts_delete BEFORE DELETE ON observations BEGIN
      INSERT INTO observations_fts (observations_fts, rowid, title, body, files, terms)
      SELECT 'delete', id, title, body, files, terms FROM observations_indexed WHERE id = OLD.id;
    END;
    -- Substring search over identifiers (paths, snake_case, CamelCase, anything with digits): trigrams
    -- of just those words, so the index stays small next to the text it covers.
    CREATE VIRTUAL TABLE observations_trigram USING fts5(
      identifiers, content = 'observations', content_rowid = 'id', tokenize = 'trigram'
    );
    INSERT INTO observations_trigram (observations_trigram, rank) VALUES ('secure-delete', 1);
    INSERT INTO observations_trigram (observations_trigram) VALUES ('rebuild');
    CREATE TRIGGER observations_trigram_insert AFTER INSERT ON observations BEGIN
      INSERT INTO observations_trigram (rowid, identifiers) VALUES (NEW.id, NEW.identifiers);
    END;
    CREATE TRIGGER observations_trigram_delete BEFORE DELETE ON observations BEGIN
      INSERT INTO observations_trigram (observations_trigram, rowid, identifiers) VALUES ('delete', OLD.id, OLD.identifiers);
    END;
  `,
  tables: [{ name: "observations", orderBy: "id" }],
  // A tool observation takes its project from its session's row as it stands at that event.
  dependsOn: ["sessions"],
  indexes: ["observations_fts", "observations_trigram"],
  apply: (recorded) => {
    const row = rowOf(recorded.event, recorded)
    return row === undefined ? [] : insert(row)
  },
  clearStream: (streamId) => [sql(`DELETE FROM observations WHERE stream_id = ?`, streamId)]
}
