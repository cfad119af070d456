/** `sessions`: one row per Claude Code session, folded from its stream. */
import { type Projection, sql } from "./projection.ts"

/** Creates the session's row on its first event (its id is that event's position), or marks activity. */
const touch = (sessionId: string, streamId: string, at: number, position: number) =>
  sql(
    `INSERT INTO sessions (id, session_id, stream_id, started_at, last_event_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET last_event_at = max(last_event_at, excluded.last_event_at)`,
    position,
    sessionId,
    streamId,
    at,
    at
  )

export const sessions: Projection = {
  name: "sessions",
  version: 2,
  create: `
    CREATE TABLE sessions (
      -- The position of the session's first event: a stable integer key for the summary index.
      id            INTEGER NOT NULL UNIQUE,
      session_id    TEXT PRIMARY KEY,
      stream_id     TEXT NOT NULL,
      project_path  TEXT,
      source        TEXT,
      started_at    INTEGER NOT NULL,
      last_event_at INTEGER NOT NULL,
      ended_at      INTEGER,
      end_reason    TEXT,
      prompts       INTEGER NOT NULL DEFAULT 0,
      compactions   INTEGER NOT NULL DEFAULT 0,
      summary       TEXT,
      tags          TEXT NOT NULL DEFAULT '[]'
    ) STRICT;
  `,
  finish: `
    CREATE INDEX sessions_by_project ON sessions (project_path, started_at);
    CREATE INDEX sessions_by_stream ON sessions (stream_id);
    -- Session summaries are searchable too; only sessions that have one are indexed.
    CREATE VIEW sessions_indexed AS SELECT id, summary FROM sessions WHERE summary IS NOT NULL;
    CREATE VIRTUAL TABLE sessions_fts USING fts5(
      summary, content = 'sessions_indexed', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO sessions_fts (sessions_fts, rank) VALUES ('secure-delete', 1);
    INSERT INTO sessions_fts (sessions_fts) VALUES ('rebuild');
    CREATE TRIGGER sessions_fts_update BEFORE UPDATE OF summary ON sessions WHEN OLD.summary IS NOT NULL BEGIN
      INSERT INTO sessions_fts (sessions_fts, rowid, summary) VALUES ('delete', OLD.id, OLD.summary);
    END;
    CREATE TRIGGER sessions_fts_updated AFTER UPDATE OF summary ON sessions WHEN NEW.summary IS NOT NULL BEGIN
      INSERT INTO sessions_fts (rowid, summary) VALUES (NEW.id, NEW.summary);
    END;
    CREATE TRIGGER sessions_fts_delete BEFORE DELETE ON sessions WHEN OLD.summary IS NOT NULL BEGIN
      INSERT INTO sessions_fts (sessions_fts, rowid, summary) VALUES ('delete', OLD.id, OLD.summary);
    END;
  `,
  tables: [{ name: "sessions", orderBy: "session_id" }],
  indexes: ["sessions_fts"],
  apply: ({ event, streamId, occurredAt, position }) => {
    switch (event._tag) {
      case "SessionStarted":
        return [
          touch(event.sessionId, streamId, occurredAt, position),
          // A resumed, cleared or compacted session is open again.
          sql(
            `UPDATE sessions SET project_path = ?, source = ?, ended_at = NULL, end_reason = NULL WHERE session_id = ?`,
            event.projectPath,
            event.source,
            event.sessionId
          )
        ]
      case "PromptSubmitted":
        return [
          touch(event.sessionId, streamId, occurredAt, position),
          sql(`UPDATE sessions SET prompts = prompts + 1 WHERE session_id = ?`, event.sessionId)
        ]
      case "SessionCompacted":
        return [
          touch(event.sessionId, streamId, occurredAt, position),
          sql(`UPDATE sessions SET compactions = compactions + 1 WHERE session_id = ?`, event.sessionId)
        ]
      case "SessionSummarized":
        return [
          touch(event.sessionId, streamId, occurredAt, position),
          sql(`UPDATE sessions SET summary = ? WHERE session_id = ?`, event.summary, event.sessionId)
        ]
      case "SessionEnded":
        return [
          touch(event.sessionId, streamId, occurredAt, position),
          sql(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE session_id = ?`, occurredAt, event.reason, event.sessionId)
        ]
      default:
        // Observations, replies and injections live in their own read models; the session row
        // changes only with its lifecycle, which keeps the fold cheap.
        return []
    }
  },
  clearStream: (streamId) => [sql(`DELETE FROM sessions WHERE stream_id = ?`, streamId)]
}
