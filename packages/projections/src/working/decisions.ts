/**
 * `decisions` and their full-text index: every decision with its rationale and the alternatives it
 * rejected, so "why did we do this?" has an answer. A row's id is its event's position (a stable rowid
 * for the index).
 */
import { json, type Projection, sql } from "../projection.ts"
import { searchableText } from "../search/text.ts"

export const decisions: Projection = {
  name: "decisions",
  version: 1,
  create: `
    CREATE TABLE decisions (
      id            INTEGER PRIMARY KEY,
      event_id      TEXT NOT NULL,
      stream_id     TEXT NOT NULL,
      decision_id   TEXT NOT NULL,
      project_path  TEXT NOT NULL,
      task_id       TEXT,
      decision      TEXT NOT NULL,
      rationale     TEXT NOT NULL,
      alternatives  TEXT NOT NULL,
      -- The alternatives as the index sees them: their words, not JSON (whose keys would match every row).
      alternatives_text TEXT NOT NULL,
      impact        TEXT NOT NULL CHECK (impact IN ('low', 'medium', 'high')),
      search_terms  TEXT NOT NULL,
      created_at    INTEGER NOT NULL
    ) STRICT;
  `,
  finish: `
    CREATE UNIQUE INDEX decisions_by_event ON decisions (event_id);
    CREATE INDEX decisions_by_stream ON decisions (stream_id);
    CREATE INDEX decisions_by_project ON decisions (project_path, id);
    -- The index keeps only tokens; the text is stored once, in decisions.
    CREATE VIRTUAL TABLE decisions_fts USING fts5(
      decision, rationale, alternatives_text, search_terms,
      content = 'decisions', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO decisions_fts (decisions_fts, rank) VALUES ('secure-delete', 1);
    INSERT INTO decisions_fts (decisions_fts) VALUES ('rebuild');
    CREATE TRIGGER decisions_fts_insert AFTER INSERT ON decisions BEGIN
      INSERT INTO decisions_fts (rowid, decision, rationale, alternatives_text, search_terms)
      VALUES (NEW.id, NEW.decision, NEW.rationale, NEW.alternatives_text, NEW.search_terms);
    END;
    CREATE TRIGGER decisions_fts_delete BEFORE DELETE ON decisions BEGIN
      INSERT INTO decisions_fts (decisions_fts, rowid, decision, rationale, alternatives_text, search_terms)
      VALUES ('delete', OLD.id, OLD.decision, OLD.rationale, OLD.alternatives_text, OLD.search_terms);
    END;
  `,
  tables: [{ name: "decisions", orderBy: "id" }],
  indexes: ["decisions_fts"],
  apply: ({ event, position, eventId, streamId, occurredAt }) => {
    if (event._tag !== "DecisionRecorded") return []
    const alternatives = event.alternatives.map((a) => [a.option, a.rejectedBecause ?? ""].join(" ").trim()).join("\n")
    return [
      sql(
        `INSERT INTO decisions (id, event_id, stream_id, decision_id, project_path, task_id, decision, rationale,
           alternatives, alternatives_text, impact, search_terms, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        position,
        eventId,
        streamId,
        event.decisionId,
        event.projectPath,
        event.taskId ?? null,
        event.decision,
        event.rationale,
        json(event.alternatives),
        alternatives,
        event.impact,
        searchableText([event.decision, event.rationale, alternatives].join("\n")),
        occurredAt
      )
    ]
  },
  clearStream: (streamId) => [sql(`DELETE FROM decisions WHERE stream_id = ?`, streamId)]
}
