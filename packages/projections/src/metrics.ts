/**
 * The product's success metrics (PRD section 12), computed from the log and the read models, each with the
 * definition it is measured by, as totals over a window and as daily series for plots:
 *   - injection use > 50%: injections of which at least one item was used later in that session;
 *   - hook success > 99%: hook invocations that recorded their events;
 *   - loop success > 70%: ended loops that succeeded;
 *   - mean iterations of a successful loop < 5.
 */
import type { SqliteDatabase } from "@ralph-mem/events"

export interface Metric {
  readonly name: string
  readonly definition: string
  readonly target: string
  /** null: nothing to measure in the window. */
  readonly value: number | null
  readonly numerator: number
  readonly denominator: number
  readonly met: boolean | null
}

export interface DailyPoint {
  /** UTC day, `YYYY-MM-DD`. */
  readonly day: string
  readonly injectionUse: number | null
  readonly hookSuccess: number | null
  readonly loopSuccess: number | null
  readonly meanIterations: number | null
}

export interface SuccessMetrics {
  readonly since: number
  readonly injectionUse: Metric
  readonly hookSuccess: Metric
  readonly loopSuccess: Metric
  readonly meanIterations: Metric
  readonly daily: ReadonlyArray<DailyPoint>
}

export const METRIC_DEFINITIONS = {
  injectionUse:
    "injections (ContextInjected) of which at least one item was used later in the same session: opened by id " +
    "(the memory tools' get or timeline, or `ralph-mem show @id` from Claude's shell), or one of its files or " +
    "identifiers appears in a later tool input",
  hookSuccess: "hook invocations that recorded their events, out of all invocations (failures are HookFailed events)",
  loopSuccess: "loops that ended in success, out of loops that ended (success, failed or stopped)",
  meanIterations: "the mean iteration count of the loops that succeeded"
} as const

const DAY_MS = 86_400_000
const dayOf = (at: number) => new Date(Math.floor(at / DAY_MS) * DAY_MS).toISOString().slice(0, 10)

/** Hook invocations since `since`: each that worked wrote its events under one correlation id. */
export const hookStats = (db: SqliteDatabase, since = 0) => {
  const { succeeded, failures } = db
    .prepare(
      `SELECT
         (SELECT count(DISTINCT json_extract(metadata, '$.correlationId')) FROM events
          WHERE occurred_at >= @since AND json_extract(metadata, '$.writer') LIKE 'hook:%'
            AND type != 'HookFailed') AS succeeded,
         (SELECT count(*) FROM events WHERE occurred_at >= @since AND type = 'HookFailed') AS failures`
    )
    .get({ since }) as { succeeded: number; failures: number }
  const invocations = succeeded + failures
  return { invocations, failures, successRate: invocations === 0 ? 1 : succeeded / invocations }
}

/**
 * Events that open memory items by id (`ids` in their payload): what Claude looked at on purpose, through the
 * memory tools (`get`, `timeline` around an id) or `ralph-mem show`. What a search merely returned is not use.
 */
const OPENING_EVENTS = ["MemoryToolCalled"]

/** Words that name code: camelCase, PascalCase with a second capital, snake_case, dotted; 6+ characters. */
const IDENTIFIER = /\b[A-Za-z_$][A-Za-z0-9_$]*(?:[a-z0-9][A-Z]|_[A-Za-z0-9])[A-Za-z0-9_$]*\b/g

interface Source {
  /** `ralph-mem show @12` opens the event at position 12: the id injected text gives it. */
  readonly opener: RegExp
  readonly files: ReadonlyArray<string>
  readonly identifiers: ReadonlyArray<string>
}

const sourceOf = (payload: Record<string, unknown>, position: number): Source => {
  const files = Array.isArray(payload["files"])
    ? (payload["files"] as Array<unknown>).filter((f): f is string => typeof f === "string")
    : []
  const text = ["inputSummary", "errorMessage", "text", "decision", "value"].map((k) => payload[k]).filter((
    v
  ): v is string => typeof v === "string").join(" ")
  const identifiers = [...new Set(text.match(IDENTIFIER) ?? [])].filter((word) => word.length >= 6).slice(0, 20)
  return { opener: new RegExp(`ralph-mem(?:\\.mjs)? show\\b[^\\n]*@${position}\\b`), files, identifiers }
}

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1)

interface Injection {
  readonly position: number
  readonly sessionId: string
  readonly at: number
  readonly sources: ReadonlyArray<string>
}

interface LaterEvent {
  readonly position: number
  readonly type: string
  readonly payload: Record<string, unknown>
}

/** Whether one of the injection's items is used by an event after it. */
const used = (
  injection: Injection,
  later: ReadonlyArray<LaterEvent>,
  sources: ReadonlyMap<string, Source>
): boolean => {
  const after = later.filter((e) => e.position > injection.position)
  return injection.sources.some((id) => {
    const source = sources.get(id)
    return after.some((event) => {
      if (OPENING_EVENTS.includes(event.type)) {
        return Array.isArray(event.payload["ids"]) && event.payload["ids"].includes(id)
      }
      if (source === undefined) return false
      const input = [
        event.payload["inputSummary"],
        ...(Array.isArray(event.payload["files"]) ? event.payload["files"] : [])
      ]
        .filter((v): v is string => typeof v === "string")
        .join("\n")
      return source.opener.test(input) || input.includes(id) || source.files.some((file) =>
        input.includes(file) || input.includes(basename(file))
      ) ||
        source.identifiers.some((word) => input.includes(word))
    })
  })
}

const parse = (json: string | null): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(json ?? "{}")
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** Every injection since `since` and whether it was used. */
const injectionUses = (db: SqliteDatabase, since: number): Array<{ readonly at: number; readonly used: boolean }> => {
  const injections = (db
    .prepare(
      `SELECT position, json_extract(payload, '$.sessionId') AS sessionId, occurred_at AS at,
              json_extract(payload, '$.sources') AS sources
       FROM events WHERE type = 'ContextInjected' AND redacted_by IS NULL AND occurred_at >= ? ORDER BY position`
    )
    .all(since) as Array<{ position: number; sessionId: string; at: number; sources: string | null }>)
    .map((row): Injection => ({
      ...row,
      sources: (JSON.parse(row.sources ?? "[]") as Array<string>).filter((s) => typeof s === "string")
    }))
  if (injections.length === 0) return []
  const sourceIds = [...new Set(injections.flatMap((i) => i.sources))]
  const sources = new Map<string, Source>()
  const sourceQuery = db.prepare(`SELECT position, payload FROM events WHERE event_id = ? AND redacted_by IS NULL`)
  for (const id of sourceIds) {
    const row = sourceQuery.get(id) as { position: number; payload: string } | undefined
    if (row !== undefined) sources.set(id, sourceOf(parse(row.payload), row.position))
  }
  const laterQuery = db.prepare(
    `SELECT position, type, payload FROM events
     WHERE stream_id = ? AND position > ? AND redacted_by IS NULL AND type IN ('ObservationRecorded', ${
      OPENING_EVENTS.map(() => "?").join(", ")
    })
     ORDER BY position`
  )
  const bySession = new Map<string, Array<Injection>>()
  for (const injection of injections) {
    bySession.set(injection.sessionId, [...(bySession.get(injection.sessionId) ?? []), injection])
  }
  return [...bySession.entries()].flatMap(([sessionId, list]) => {
    const later = (laterQuery.all(`session:${sessionId}`, list[0]!.position, ...OPENING_EVENTS) as Array<
      { position: number; type: string; payload: string }
    >)
      .map((row) => ({ position: row.position, type: row.type, payload: parse(row.payload) }))
    return list.map((injection) => ({ at: injection.at, used: used(injection, later, sources) }))
  })
}

const metric = (
  name: keyof typeof METRIC_DEFINITIONS,
  target: string,
  numerator: number,
  denominator: number,
  value: number | null,
  met: (v: number) => boolean
): Metric => ({
  name,
  definition: METRIC_DEFINITIONS[name],
  target,
  value,
  numerator,
  denominator,
  met: value === null ? null : met(value)
})

const share = (part: number, whole: number) => (whole === 0 ? null : part / whole)

/** The four success metrics over events and loops since `since` (epoch ms). */
export const successMetrics = (db: SqliteDatabase, since: number): SuccessMetrics => {
  const uses = injectionUses(db, since)
  const usedCount = uses.filter((u) => u.used).length
  const hooks = hookStats(db, since)
  const hookFailuresByDay = db
    .prepare(
      `SELECT occurred_at AS at, type = 'HookFailed' AS failed, json_extract(metadata, '$.correlationId') AS invocation
       FROM events
       WHERE occurred_at >= ? AND json_extract(metadata, '$.writer') LIKE 'hook:%'`
    )
    .all(since) as Array<{ at: number; failed: number; invocation: string | null }>
  const loops = db
    .prepare(`SELECT started_at AS at, status, iterations FROM loop_runs WHERE started_at >= ? AND status != 'running'`)
    .all(since) as Array<{ at: number; status: string; iterations: number }>
  const succeeded = loops.filter((l) => l.status === "success")
  const iterationSum = succeeded.reduce((sum, l) => sum + l.iterations, 0)

  const days = new Set([
    ...uses.map((u) => dayOf(u.at)),
    ...hookFailuresByDay.map((h) => dayOf(h.at)),
    ...loops.map((l) => dayOf(l.at))
  ])
  const daily = [...days].sort().map((day): DailyPoint => {
    const dayUses = uses.filter((u) => dayOf(u.at) === day)
    const dayHooks = hookFailuresByDay.filter((h) => dayOf(h.at) === day)
    const failures = dayHooks.filter((h) => h.failed === 1).length
    const invocations = new Set(dayHooks.filter((h) => h.failed === 0).map((h) => h.invocation)).size + failures
    const dayLoops = loops.filter((l) => dayOf(l.at) === day)
    const daySucceeded = dayLoops.filter((l) => l.status === "success")
    return {
      day,
      injectionUse: share(dayUses.filter((u) => u.used).length, dayUses.length),
      hookSuccess: share(invocations - failures, invocations),
      loopSuccess: share(daySucceeded.length, dayLoops.length),
      meanIterations: daySucceeded.length === 0
        ? null
        : daySucceeded.reduce((sum, l) => sum + l.iterations, 0) / daySucceeded.length
    }
  })

  return {
    since,
    injectionUse: metric(
      "injectionUse",
      "> 50%",
      usedCount,
      uses.length,
      share(usedCount, uses.length),
      (v) => v > 0.5
    ),
    hookSuccess: metric(
      "hookSuccess",
      "> 99%",
      hooks.invocations - hooks.failures,
      hooks.invocations,
      share(hooks.invocations - hooks.failures, hooks.invocations),
      (v) => v > 0.99
    ),
    loopSuccess: metric(
      "loopSuccess",
      "> 70%",
      succeeded.length,
      loops.length,
      share(succeeded.length, loops.length),
      (v) => v > 0.7
    ),
    meanIterations: metric(
      "meanIterations",
      "< 5",
      iterationSum,
      succeeded.length,
      succeeded.length === 0 ? null : iterationSum / succeeded.length,
      (v) => v < 5
    ),
    daily
  }
}

/** Where the database's space goes: bytes per table and index (SQLite's dbstat), largest first. */
export const storageByTable = (db: SqliteDatabase): Array<{ readonly name: string; readonly bytes: number }> =>
  db.prepare(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC`).all() as Array<
    { name: string; bytes: number }
  >

/**
 * Hook invocations over the whole log: every one that worked wrote its events under one correlation id;
 * every one that failed (and could still reach the database) wrote a HookFailed event, under the same id
 * when its events were recorded late from the spill file.
 */
export const hookInvocations = (db: SqliteDatabase) =>
  db
    .prepare(
      `WITH failed AS (SELECT json_extract(metadata, '$.correlationId') AS id FROM events WHERE type = 'HookFailed')
       SELECT
         (SELECT count(DISTINCT json_extract(metadata, '$.correlationId')) FROM events
          WHERE json_extract(metadata, '$.writer') LIKE 'hook:%' AND type != 'HookFailed'
            AND json_extract(metadata, '$.correlationId') NOT IN (SELECT id FROM failed WHERE id IS NOT NULL)
         ) AS succeeded,
         (SELECT count(*) FROM failed) AS failures`
    )
    .get() as { succeeded: number; failures: number }

/** The newest context injection still in the log (not forgotten), or undefined. */
export const lastInjection = (db: SqliteDatabase) =>
  db
    .prepare(
      `SELECT occurred_at AS at, json_extract(payload, '$.hookEvent') AS hook,
              json_extract(payload, '$.tokens') AS tokens, json_extract(payload, '$.reason') AS reason,
              json_array_length(json_extract(payload, '$.sources')) AS sources
       FROM events WHERE type = 'ContextInjected' AND redacted_by IS NULL ORDER BY position DESC LIMIT 1`
    )
    .get() as { at: number; hook: string; tokens: number; reason: string; sources: number } | undefined
