/**
 * `failures`: the failed runs of shell commands and of a loop's checks, and the passing runs that can resolve
 * them. A failure is resolved by the first passing run after it, in its project, of the same command, of a
 * shorter run of it (`npm test` after `npm test -- auth`), or of the loop criterion of its check; that is
 * found when read (queries.ts), so every row derives from its own event's stream, as forget and replay need.
 *
 * A failure row keeps the command's family and text, the keys of the runs that resolve it, and what the failure
 * is recognised by and told with (identity.ts): the digest and distinctive terms of what failed, and its headline.
 * Those are worked out once, in the fold, from the event's output: the failure hook compares a new failure with
 * them and recalls one by them without reading (or unpacking, once compaction packed it) the event's payload. A
 * passing run is a key and a position only: there is one for every command that succeeds.
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import { json, type Projection, sql, type SqlChange } from "../projection.ts"
import {
  commandFamily,
  criterionFamily,
  normalizeCommand,
  passingKeys,
  recogniseFailure,
  resolvingKeys
} from "./identity.ts"

interface Failure {
  readonly part: number
  readonly family: string
  readonly command: string
  /** What the failing run printed, as recorded. */
  readonly output: string
}

// An observation's project and session are its session's; a loop check's are its loop's.
const FROM_SESSION = `?, (SELECT s.project_path FROM sessions s WHERE s.session_id = ?)`
const FROM_LOOP = `(SELECT l.session_id FROM loop_runs l WHERE l.loop_id = ?),
  (SELECT l.project_path FROM loop_runs l WHERE l.loop_id = ?)`

const insertFailure = (position: number, owner: string, ownerId: string, failure: Failure): SqlChange => {
  const { digest, terms, headline } = recogniseFailure(failure.output)
  return sql(
    `INSERT INTO failure_rows
       (position, part, session_id, project_path, family, command, resolving_keys, digest, terms, headline)
     VALUES (?, ?, ${owner}, ?, ?, ?, ?, ?, ?)`,
    position,
    failure.part,
    ownerId,
    ownerId,
    failure.family,
    failure.command,
    json(resolvingKeys(failure.family, failure.command)),
    digest,
    json(terms),
    headline
  )
}

const insertPasses = (position: number, keys: ReadonlyArray<number>, projectOfLoop?: string): Array<SqlChange> =>
  keys.map((key) =>
    projectOfLoop === undefined
      ? sql(`INSERT OR IGNORE INTO pass_rows (command_key, position, project_path) VALUES (?, ?, NULL)`, key, position)
      : sql(
        `INSERT OR IGNORE INTO pass_rows (command_key, position, project_path)
         VALUES (?, ?, (SELECT l.project_path FROM loop_runs l WHERE l.loop_id = ?))`,
        key,
        position,
        projectOfLoop
      )
  )

const fold = (event: RalphMemEvent, position: number): Array<SqlChange> => {
  switch (event._tag) {
    case "ObservationRecorded": {
      if (event.toolName !== "Bash" || event.inputSummary === undefined) return []
      const command = normalizeCommand(event.inputSummary)
      if (command === "") return []
      const family = commandFamily(command)
      if (event.kind !== "error") return insertPasses(position, passingKeys(family, command, false))
      const failure = { part: 0, family, command, output: event.content }
      return [insertFailure(position, FROM_SESSION, event.sessionId, failure)]
    }
    case "LoopCriteriaEvaluated":
      return event.results.flatMap((result, part) => {
        const family = criterionFamily(result.kind)
        if (family === undefined) return []
        const command = result.command === undefined ? "" : normalizeCommand(result.command.join(" "))
        if (result.passed) return insertPasses(position, passingKeys(family, command, true), event.loopId)
        const failure = { part, family, command: command === "" ? result.kind : command, output: result.outputTail }
        return [insertFailure(position, FROM_LOOP, event.loopId, failure)]
      })
    default:
      return []
  }
}

export const failures: Projection = {
  name: "failures",
  // 2: a folder named like a check in a command's path (`tests/`) no longer makes the command a check.
  // 3: a failure keeps its digest, terms and headline, so recognising and recalling it reads no payload; its
  // rows are indexed by family, as a recall reads them.
  version: 3,
  create: `
    CREATE TABLE failure_rows (
      position       INTEGER NOT NULL,
      -- Which of a loop check's criteria failed; 0 for a command's observation.
      part           INTEGER NOT NULL,
      session_id     TEXT,
      project_path   TEXT,
      family         TEXT NOT NULL,
      command        TEXT NOT NULL,
      resolving_keys TEXT NOT NULL,
      -- What failed, from the output (identity.ts): its digest (NULL when the output names nothing), its
      -- distinctive terms (JSON), and its headline without the closing period, as lessons and recalls say it.
      digest         TEXT,
      terms          TEXT NOT NULL,
      headline       TEXT NOT NULL,
      PRIMARY KEY (position, part)
    ) STRICT;
    -- project_path is set for a loop's check only: an observation's project is its observation row's.
    CREATE TABLE pass_rows (
      command_key  INTEGER NOT NULL,
      position     INTEGER NOT NULL,
      project_path TEXT,
      PRIMARY KEY (command_key, position)
    ) STRICT, WITHOUT ROWID;
  `,
  finish: `
    -- A recall reads the latest failures of one family of the project: the family's rows, newest first.
    CREATE INDEX failure_rows_by_family ON failure_rows (project_path, family, position);
    CREATE INDEX failure_rows_by_project ON failure_rows (project_path, position);
    CREATE INDEX pass_rows_by_position ON pass_rows (position);
  `,
  tables: [
    { name: "failure_rows", orderBy: "position, part" },
    { name: "pass_rows", orderBy: "command_key, position" }
  ],
  indexes: [],
  dependsOn: ["sessions", "loop_runs"],
  apply: ({ event, position }) => fold(event, position),
  clearStream: (streamId) => [
    sql(`DELETE FROM failure_rows WHERE position IN (SELECT position FROM events WHERE stream_id = ?)`, streamId),
    sql(`DELETE FROM pass_rows WHERE position IN (SELECT position FROM events WHERE stream_id = ?)`, streamId)
  ]
}
