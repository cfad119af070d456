/** `beliefs`: the current value of each belief of a project (the latest set, gone once unset). */
import { type Projection, sql } from "../projection.ts"

export const beliefs: Projection = {
  name: "beliefs",
  version: 1,
  create: `
    CREATE TABLE beliefs (
      project_path TEXT NOT NULL,
      key          TEXT NOT NULL,
      value        TEXT NOT NULL,
      event_id     TEXT NOT NULL,
      stream_id    TEXT NOT NULL,
      -- The position of the event that set the value: orders beliefs by how recently they were set.
      position     INTEGER NOT NULL,
      updated_at   INTEGER NOT NULL,
      PRIMARY KEY (project_path, key)
    ) STRICT;
  `,
  finish: `
    CREATE INDEX beliefs_by_stream ON beliefs (stream_id);
  `,
  tables: [{ name: "beliefs", orderBy: "project_path, key" }],
  indexes: [],
  apply: ({ event, position, eventId, streamId, occurredAt }) => {
    switch (event._tag) {
      case "BeliefSet":
        return [
          sql(
            `INSERT INTO beliefs (project_path, key, value, event_id, stream_id, position, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (project_path, key) DO UPDATE SET value = excluded.value, event_id = excluded.event_id,
               stream_id = excluded.stream_id, position = excluded.position, updated_at = excluded.updated_at`,
            event.projectPath,
            event.key,
            event.value,
            eventId,
            streamId,
            position,
            occurredAt
          )
        ]
      case "BeliefUnset":
        return [sql(`DELETE FROM beliefs WHERE project_path = ? AND key = ?`, event.projectPath, event.key)]
      default:
        return []
    }
  },
  clearStream: (streamId) => [sql(`DELETE FROM beliefs WHERE stream_id = ?`, streamId)]
}
