/**
 * `observations` and their full-text index: what happened in sessions (tool uses, errors, successes)
 * and the notes users asked to remember. A row's id is the position of the event it came from, so
 * the full-text rowids are stable however the table is built.
 *
 * The text is stored once, in the log: `observation_rows` keeps only what searches filter and sort on,
 * the full-text index keeps only tokens, and the `observations` view reads the text from the event's
 * payload. The view reads the payloads as ObservationRecorded v1 and NoteInjected v1 store them: a new
 * version of either event must be handled there too.
 */
import type { RalphMemEvent, SqliteDatabase } from "@ralph-mem/events"
import { type Projection, sql, type SqlChange } from "./projection.ts"
import { searchableText } from "./search/text.ts"

interface ObservationRow {
  readonly id: number
  readonly createdAt: number
  readonly sessionId: string | null
  readonly projectPath: string | null
  readonly type: string
  readonly toolName: string | null
  readonly inputSummary: string | null
  readonly content: string
  readonly errorMessage: string | null
  readonly files: ReadonlyArray<string>
}

// A tool observation names its project; one written before events did takes it from its session's row
// (written by the sessions projection, which runs first for every event), so searches filter on one
// indexed column.
const INSERT_ROW = `INSERT INTO observation_rows (id, session_id, project_path, type, created_at)
  VALUES (?, ?, coalesce(?, (SELECT s.project_path FROM sessions s WHERE s.session_id = ?)), ?, ?)`

const INSERT_TEXT = `INSERT INTO observations_fts (rowid, body, title, terms) VALUES (?, ?, ?, ?)`

const insert = (row: ObservationRow): ReadonlyArray<SqlChange> => {
  const title = [row.toolName, row.inputSummary].filter((t) => t !== null).join(" ")
  // The files weigh as much as the text, and mostly repeat its words: they are indexed with it.
  const files = row.files.join("\n")
  const body = [row.content, row.errorMessage, files].filter((t) => t !== null && t !== "").join("\n")
  return [
    sql(INSERT_ROW, row.id, row.sessionId, row.projectPath, row.sessionId, row.type, row.createdAt),
    sql(INSERT_TEXT, row.id, body, title, searchableText(`${title}\n${body}`))
  ]
}

const rowOf = (event: RalphMemEvent, position: number, occurredAt: number): ObservationRow | undefined => {
  const common = { id: position, createdAt: occurredAt }
  switch (event._tag) {
    case "ObservationRecorded":
      return {
        ...common,
        sessionId: event.sessionId,
        projectPath: event.projectPath ?? null,
        type: event.kind,
        toolName: event.toolName ?? null,
        inputSummary: event.inputSummary ?? null,
        content: event.content,
        errorMessage: event.errorMessage ?? null,
        files: event.files
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
        files: []
      }
    default:
      return undefined
  }
}

export const observations: Projection = {
  name: "observations",
  version: 11,
  create: `
    CREATE TABLE observation_rows (
      id           INTEGER PRIMARY KEY,
      session_id   TEXT,
      project_path TEXT,
      -- Not "type IN (...)": SQLite builds a lookup table for an IN list every time an INSERT runs,
      -- which doubled the cost of a row in a replay.
      type         TEXT NOT NULL CHECK (type = 'tool_use' OR type = 'error' OR type = 'success' OR type = 'note'),
      -- When its event occurred, as the log keeps it. Kept here too: a search filters and ranks on it for
      -- hundreds of rows, and reading it from the log reads one page of the log for nearly every row.
      created_at   INTEGER NOT NULL
    ) STRICT;
    -- Contentless: the index keeps tokens only, fed by the fold. Its deleted rows are merged away by
    -- 'purge' after a forget (secure-delete cannot reach a contentless index's tombstones).
    -- The body comes first: a term's positions in the first column need no column marker, and most
    -- terms are only in the body (title first made the index 25% larger).
    CREATE VIRTUAL TABLE observations_fts USING fts5(
      body, title, terms,
      content = '', contentless_delete = 1,
      tokenize = 'unicode61 remove_diacritics 2'
    );
    -- A rebuild loads every row first: its segments are merged once, at the end, not as they pile up.
    -- Up to 200 of them (about 200 MB of index); past that they are merged, since FTS5 refuses a 2001st
    -- segment (SQLITE_FULL), and every savepoint (a trigger, a multi-row statement) flushes one.
    INSERT INTO observations_fts (observations_fts, rank) VALUES ('automerge', 0);
    INSERT INTO observations_fts (observations_fts, rank) VALUES ('crisismerge', 200);
    -- Terms are gathered in memory up to 32 MB before a segment is written (1 MB by default): a rebuild
    -- writes a few large segments, which the final merge joins for a fraction of the cost of hundreds.
    -- An append's transaction flushes what it added at its commit, long before that.
    INSERT INTO observations_fts (observations_fts, rank) VALUES ('hashsize', 33554432);
  `,
  finish: `
    INSERT INTO observations_fts (observations_fts) VALUES ('optimize');
    INSERT INTO observations_fts (observations_fts, rank) VALUES ('automerge', 4);
    INSERT INTO observations_fts (observations_fts, rank) VALUES ('crisismerge', 16);
    CREATE INDEX observation_rows_by_session ON observation_rows (session_id, id);
    CREATE INDEX observation_rows_by_project ON observation_rows (project_path, id);
    CREATE TRIGGER observation_rows_delete AFTER DELETE ON observation_rows BEGIN
      DELETE FROM observations_fts WHERE rowid = OLD.id;
    END;
    -- How many observations hold each term: the search leaves out terms nearly every row has, and finds
    -- identifiers by their substrings among these terms.
    CREATE VIRTUAL TABLE observations_vocab USING fts5vocab(observations_fts, 'row');
    CREATE VIEW observations AS
      SELECT o.id, e.event_id, e.stream_id, o.session_id, o.project_path, o.type,
             e.payload ->> '$.toolName' AS tool_name,
             e.payload ->> '$.inputSummary' AS input_summary,
             e.payload ->> (CASE e.type WHEN 'NoteInjected' THEN '$.text' ELSE '$.content' END) AS content,
             e.payload ->> '$.errorMessage' AS error_message,
             coalesce(e.payload -> '$.files', '[]') AS files,
             CASE e.type
               WHEN 'NoteInjected' THEN
                 json_object('noteId', e.payload -> '$.noteId', 'noteType', e.payload -> '$.noteType')
               -- Only the fields that are set: a null member of a merge patch adds nothing.
               ELSE json_patch('{}', json_object('toolUseId', e.payload -> '$.toolUseId',
                                                 'durationMs', e.payload -> '$.durationMs',
                                                 'truncated', e.payload -> '$.truncated'))
             END AS metadata,
             o.created_at
      FROM observation_rows o JOIN events e ON e.position = o.id;
  `,
  tables: [{ name: "observation_rows", orderBy: "id" }],
  // A tool observation takes its project from its session's row as it stands at that event.
  dependsOn: ["sessions"],
  indexes: ["observations_fts"],
  retired: ["observations_trigram", "observations_indexed"],
  purge: `INSERT INTO observations_fts (observations_fts) VALUES ('optimize')`,
  apply: (recorded) => {
    const row = rowOf(recorded.event, recorded.position, recorded.occurredAt)
    return row === undefined ? [] : insert(row)
  },
  clearStream: (
    streamId
  ) => [sql(`DELETE FROM observation_rows WHERE id IN (SELECT position FROM events WHERE stream_id = ?)`, streamId)]
}

/** The newest observations of some sessions since a time (a loop's session and its agent runs), newest first. */
export const observationsOfSessionsSince = (
  db: SqliteDatabase,
  sessionIds: ReadonlyArray<string>,
  since: number,
  limit: number
): Array<
  {
    readonly id: string
    readonly type: string
    readonly sessionId: string
    readonly createdAt: number
    readonly text: string
  }
> =>
  db
    .prepare(
      `SELECT event_id AS id, type, session_id AS sessionId, created_at AS createdAt,
              coalesce(tool_name || ' ' || coalesce(input_summary, '') || ': ', '') || content AS text
       FROM observations WHERE session_id IN (SELECT value FROM json_each(?)) AND created_at >= ?
       ORDER BY id DESC LIMIT ?`
    )
    .all(JSON.stringify(sessionIds), since, limit) as Array<
      { id: string; type: string; sessionId: string; createdAt: number; text: string }
    >

/** How many observations of each type; from observation_rows, not the view: counting needs no join with the log. */
export const observationCountsByType = (db: SqliteDatabase): Record<string, number> =>
  Object.fromEntries(
    (db.prepare("SELECT type, count(*) AS n FROM observation_rows GROUP BY type ORDER BY type").all() as Array<{
      type: string
      n: number
    }>).map((r) => [r.type, r.n])
  )
