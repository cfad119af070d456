/** `sessions`: one row per Claude Code session, folded from its stream. */
import type { SqliteDatabase } from "@ralph-mem/events"
import { type Projection, sql } from "./projection.ts"

/**
 * Each lifecycle event is one upsert: it creates the session's row on its first event (its id is that
 * event's position) or marks activity, and records what the event says.
 */
const upsert = (columns: string, set: string) =>
  `INSERT INTO sessions (id, session_id, stream_id, started_at, last_event_at, ${columns})
   VALUES (?, ?, ?, ?, ?, ${columns.split(",").map(() => "?").join(", ")})
   ON CONFLICT (session_id) DO UPDATE SET last_event_at = max(last_event_at, excluded.last_event_at), ${set}`

// A resumed, cleared or compacted session is open again.
const STARTED = upsert(
  "project_path, source, ended_at, end_reason",
  "project_path = excluded.project_path, source = excluded.source, ended_at = NULL, end_reason = NULL"
)
// Every other event of a session names its project too (when its hook knew it): a session whose
// SessionStart never ran takes its project from the first event that says it.
const PROJECT = "project_path = coalesce(project_path, excluded.project_path)"
const PROMPTED = upsert("project_path, prompts", `${PROJECT}, prompts = prompts + 1`)
const COMPACTED = upsert("project_path, compactions", `${PROJECT}, compactions = compactions + 1`)
const SUMMARIZED = upsert(
  "project_path, summary, summarizer, memory_only",
  `${PROJECT}, summary = excluded.summary, summarizer = excluded.summarizer, memory_only = excluded.memory_only`
)
const ENDED = upsert(
  "project_path, ended_at, end_reason",
  `${PROJECT}, ended_at = excluded.ended_at, end_reason = excluded.end_reason`
)
// Replies and injections leave a known session's row as it is (no write); they create the row of a
// session no lifecycle event has named, or give it its project. Tool observations carry their project
// themselves and leave the row alone: they are most of the log, and a replay folds each one.
const SEEN = `INSERT INTO sessions (id, session_id, stream_id, started_at, last_event_at, project_path)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (session_id) DO UPDATE SET project_path = excluded.project_path WHERE project_path IS NULL`

export const sessions: Projection = {
  name: "sessions",
  version: 4,
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
      -- Which summariser (and version) wrote the summary: an older one is summarised again by maintain.
      summarizer    TEXT,
      -- 1 when the session only ran memory commands: not a "recent session" worth injecting.
      memory_only   INTEGER NOT NULL DEFAULT 0,
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
    CREATE TRIGGER sessions_fts_insert AFTER INSERT ON sessions WHEN NEW.summary IS NOT NULL BEGIN
      INSERT INTO sessions_fts (rowid, summary) VALUES (NEW.id, NEW.summary);
    END;
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
    const row = (sessionId: string) => [position, sessionId, streamId, occurredAt, occurredAt] as const
    switch (event._tag) {
      case "SessionStarted":
        return [sql(STARTED, ...row(event.sessionId), event.projectPath, event.source, null, null)]
      case "PromptSubmitted":
        return [sql(PROMPTED, ...row(event.sessionId), event.projectPath ?? null, 1)]
      case "SessionCompacted":
        return [sql(COMPACTED, ...row(event.sessionId), event.projectPath ?? null, 1)]
      case "SessionSummarized":
        return [sql(
          SUMMARIZED,
          ...row(event.sessionId),
          event.projectPath ?? null,
          event.summary,
          event.summarizer,
          event.memoryOnly ? 1 : 0
        )]
      case "SessionEnded":
        return [sql(ENDED, ...row(event.sessionId), event.projectPath ?? null, occurredAt, event.reason)]
      case "AssistantReplied":
      case "ContextInjected":
        return event.projectPath === undefined ? [] : [sql(SEEN, ...row(event.sessionId), event.projectPath)]
      default:
        // Everything else lives in its own read model.
        return []
    }
  },
  clearStream: (streamId) => [sql(`DELETE FROM sessions WHERE stream_id = ?`, streamId)]
}

export interface SessionRow {
  readonly sessionId: string
  readonly projectPath: string | null
  readonly source: string | null
  readonly startedAt: number
  readonly lastEventAt: number
  readonly endedAt: number | null
  readonly endReason: string | null
  readonly prompts: number
  readonly compactions: number
  readonly summary: string | null
  /** Observations the session recorded, and how many were errors. */
  readonly observations: number
  readonly errors: number
}

const SESSION_ROW = `
  SELECT s.session_id AS sessionId, s.project_path AS projectPath, s.source, s.started_at AS startedAt,
         s.last_event_at AS lastEventAt, s.ended_at AS endedAt, s.end_reason AS endReason, s.prompts, s.compactions,
         s.summary,
         (SELECT count(*) FROM observation_rows o WHERE o.session_id = s.session_id) AS observations,
         (SELECT count(*) FROM observation_rows o WHERE o.session_id = s.session_id AND o.type = 'error') AS errors
  FROM sessions s`

/** Sessions, newest first. */
export const listSessions = (
  db: SqliteDatabase,
  options: { readonly limit: number; readonly offset?: number }
): Array<SessionRow> =>
  db.prepare(`${SESSION_ROW} ORDER BY s.started_at DESC LIMIT ? OFFSET ?`).all(
    options.limit,
    options.offset ?? 0
  ) as Array<SessionRow>

export const findSession = (db: SqliteDatabase, sessionId: string): SessionRow | undefined =>
  db.prepare(`${SESSION_ROW} WHERE s.session_id = ?`).get(sessionId) as SessionRow | undefined

export const sessionCount = (db: SqliteDatabase): number =>
  db.prepare("SELECT count(*) FROM sessions").pluck().get() as number

/** The project roots, other than `projectRoot`, that sessions of this memory were recorded at. */
export interface RecordedElsewhere {
  readonly projectPath: string
  readonly sessions: number
  /** When the newest of them started, in ms. */
  readonly lastStartedAt: number
}

/**
 * Sessions recorded at another project root than `projectRoot`, by root, the most sessions first. In a project's own
 * memory (`<root>/.ralph-mem/memory.db`) these are the project's past at a place it has moved from: searches, the
 * injected context and recall are scoped to the root as it is now, and do not see them.
 */
export const sessionsRecordedElsewhere = (db: SqliteDatabase, projectRoot: string): Array<RecordedElsewhere> =>
  db.prepare(
    `SELECT project_path AS projectPath, count(*) AS sessions, max(started_at) AS lastStartedAt FROM sessions
     WHERE project_path IS NOT NULL AND project_path != ?
     GROUP BY project_path ORDER BY count(*) DESC, project_path`
  ).all(projectRoot) as Array<RecordedElsewhere>
