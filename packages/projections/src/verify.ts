/**
 * Verify: is the database sound, is the log well-formed, and do the projections equal a fresh replay?
 * Every problem is a finding with a readable detail; nothing is changed.
 */
import { catalog, newSqliteDatabase, REDACTED_PAYLOAD, type SqliteDatabase, UndecodableEvent } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { describeLoss, unacknowledgedLosses } from "./losses.ts"
import type { MemoryStore } from "./memory-store.ts"
import type { Projection } from "./projection.ts"
import { eventsAfter, makeApplier, projectedPages } from "./runner.ts"

export interface Finding {
  readonly check: string
  readonly detail: string
}

export interface VerifyReport {
  readonly ok: boolean
  readonly events: number
  readonly checks: ReadonlyArray<string>
  readonly findings: ReadonlyArray<Finding>
  /** Checks that could not run here, each with why: neither passed nor failed. */
  readonly skipped: ReadonlyArray<Finding>
}

const clip = (text: string, max = 240) => (text.length > max ? `${text.slice(0, max)}…` : text)

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

const sqliteIntegrity = (db: SqliteDatabase): Array<string> => {
  const rows = db.pragma("integrity_check") as Array<{ integrity_check: string }>
  return rows.map((r) => r.integrity_check).filter((line) => line !== "ok")
}

const positionsGapFree = (db: SqliteDatabase): Array<string> => {
  const { count, low, high } = db
    .prepare(
      "SELECT count(*) AS count, coalesce(min(position), 0) AS low, coalesce(max(position), 0) AS high FROM events"
    )
    .get() as { count: number; low: number; high: number }
  if (count === high && (count === 0 || low === 1)) return []
  const gap = db
    .prepare(
      `SELECT position + 1 FROM events e
       WHERE position < ? AND NOT EXISTS (SELECT 1 FROM events n WHERE n.position = e.position + 1) LIMIT 1`
    )
    .pluck()
    .get(high) as number | undefined
  return [`${count} events span positions ${low}..${high}; the first missing position is ${gap ?? 1}`]
}

const streamVersionsContiguous = (db: SqliteDatabase): Array<string> => {
  const bad = db
    .prepare(
      `SELECT stream_id AS stream, count(*) AS count, min(stream_version) AS low, max(stream_version) AS high
       FROM events GROUP BY stream_id HAVING count(*) != max(stream_version) OR min(stream_version) != 1 LIMIT 5`
    )
    .all() as Array<{ stream: string; count: number; low: number; high: number }>
  return bad.map((b) => `stream ${b.stream}: ${b.count} events with versions ${b.low}..${b.high}`)
}

const payloadsDecode = (memory: MemoryStore): { findings: Array<string>; events: number } => {
  const forgets = new Set(
    memory.db.prepare("SELECT event_id FROM events WHERE type = 'MemoryForgotten'").pluck().all() as Array<string>
  )
  const findings: Array<string> = []
  let events = 0
  for (const recorded of eventsAfter(memory.log, 0)) {
    events++
    if (findings.length >= 5) continue
    if (recorded.redactedBy !== null) {
      if (JSON.stringify(recorded.payload) !== REDACTED_PAYLOAD || !forgets.has(recorded.redactedBy)) {
        findings.push(`event #${recorded.position} is marked redacted but its marker or its forget event is wrong`)
      }
      continue
    }
    const decoded = catalog.decode(recorded.type, recorded.schemaVersion, recorded.payload)
    if (Result.isFailure(decoded)) {
      findings.push(new UndecodableEvent({ position: recorded.position, reason: decoded.failure }).message)
    }
  }
  return { findings, events }
}

const checkpointsCurrent = (memory: MemoryStore): Array<string> => {
  const head = memory.db.prepare("SELECT coalesce(max(position), 0) FROM events").pluck().get() as number
  return memory.runner.projections.flatMap((p) => {
    const cp = memory.runner.checkpoint(p.name)
    if (cp === undefined) return [`projection ${p.name} has no checkpoint`]
    if (cp.version !== p.version) {
      return [`projection ${p.name} was built by version ${cp.version}, this is version ${p.version}`]
    }
    return cp.position === head ? [] : [`projection ${p.name} is at position ${cp.position}, the log at ${head}`]
  })
}

/**
 * FTS5 checks an index only through an INSERT of its 'integrity-check' command, which a read-only connection
 * (a folder or file this process cannot write) refuses whatever the index holds.
 */
const INDEX_CHECK_NEEDS_WRITE = "needs write access, and the database is read-only here; " +
  "projections equal a replay still compares every term the indexes hold"

const indexesConsistent = (memory: MemoryStore): Array<string> =>
  memory.runner.projections.flatMap((p) =>
    p.indexes.flatMap((index) => {
      try {
        memory.db.prepare(`INSERT INTO ${index} (${index}, rank) VALUES ('integrity-check', 1)`).run()
        return []
      } catch (error) {
        return [`full-text index ${index} does not match its table: ${describe(error)}`]
      }
    })
  )

/** Replays the log into an in-memory database and compares every projection table row by row. */
const projectionsEqualReplay = (memory: MemoryStore, projections: ReadonlyArray<Projection>): Array<string> => {
  const fresh = newSqliteDatabase(":memory:")
  try {
    for (const projection of projections) fresh.exec(projection.create)
    const apply = makeApplier(fresh)
    fresh.transaction(() => {
      for (const page of projectedPages(memory.db, { after: 0, until: Number.MAX_SAFE_INTEGER })) {
        for (const event of page.events) for (const projection of projections) apply(projection.apply(event))
      }
      for (const projection of projections) fresh.exec(projection.finish)
    })()
    for (const projection of projections) {
      for (const table of projection.tables) {
        const difference = firstDifference(memory.db, fresh, table.name, table.orderBy)
        if (difference !== undefined) return [`projection ${projection.name}, table ${table.name}: ${difference}`]
      }
      // A full-text index may hold no text to check itself against: compare every token it holds.
      for (const index of projection.indexes) {
        const tokens = `temp.${index}_tokens`
        for (const db of [memory.db, fresh]) {
          db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${tokens} USING fts5vocab(main, ${index}, 'instance')`)
        }
        const difference = firstTokenDifference(memory.db, fresh, tokens)
        if (difference !== undefined) return [`projection ${projection.name}, full-text index ${index}: ${difference}`]
      }
    }
    return []
  } finally {
    fresh.close()
  }
}

const firstDifference = (
  stored: SqliteDatabase,
  replayed: SqliteDatabase,
  table: string,
  orderBy: string
): string | undefined => {
  const query = `SELECT * FROM ${table} ORDER BY ${orderBy}`
  const left = stored.prepare(query).raw().iterate() as IterableIterator<Array<unknown>>
  const right = replayed.prepare(query).raw().iterate() as IterableIterator<Array<unknown>>
  try {
    for (let row = 1;; row++) {
      const a = left.next()
      const b = right.next()
      if (a.done && b.done) return undefined
      if (a.done || b.done) {
        return `the stored table has ${a.done ? "fewer" : "more"} rows than a replay (from row ${row})`
      }
      const sa = JSON.stringify(a.value)
      const sb = JSON.stringify(b.value)
      if (sa !== sb) return `row ${row} differs: stored ${clip(sa)}, replayed ${clip(sb)}`
    }
  } finally {
    left.return?.()
    right.return?.()
  }
}

/**
 * Every instance of a term as one string, a row per term in the order the index keeps them (term, then document,
 * column and offset). An index holds millions of instances: read a row each, they cost seconds in JavaScript; built
 * here in SQLite they cost a fraction of that.
 */
const termInstancesSql = (tokens: string, ordered: boolean, oneTerm: boolean): string =>
  `SELECT term, group_concat(doc || ',' || col || ',' || offset, ';'${
    ordered ? " ORDER BY doc, col, offset" : ""
  }) AS instances FROM ${tokens}${oneTerm ? " WHERE term = ?" : ""} GROUP BY term ORDER BY term`

const instances = (concatenated: string): string => {
  const count = concatenated.split(";").length
  return `${count} instance${count === 1 ? "" : "s"}`
}

/**
 * SQLite orders text by its UTF-8 bytes; JavaScript's `<` by UTF-16 code units, which put a letter past U+FFFF (a
 * surrogate pair) before U+E000-U+FFFF (fullwidth forms, say): comparing the terms so would misalign the two lists.
 */
const inSqliteOrder = (a: string, b: string): number => (a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b)))

/**
 * The first term the stored index and a replay's hold differently, described, or nothing. The strings of a term are
 * equal only when its instances are; unequal, they are built again in an order SQLite is told to keep, so that only a
 * real difference is reported, with the first instance that differs.
 */
const firstTokenDifference = (
  stored: SqliteDatabase,
  replayed: SqliteDatabase,
  tokens: string
): string | undefined => {
  type TermRow = readonly [term: string, instances: string]
  const query = termInstancesSql(tokens, false, false)
  const left = stored.prepare(query).raw().iterate() as IterableIterator<TermRow>
  const right = replayed.prepare(query).raw().iterate() as IterableIterator<TermRow>
  const ordered = (db: SqliteDatabase, term: string): string =>
    (db.prepare(termInstancesSql(tokens, true, true)).raw().get(term) as TermRow)[1]
  try {
    let a = left.next()
    let b = right.next()
    for (;;) {
      if (a.done && b.done) return undefined
      const order = a.done || b.done ? 0 : inSqliteOrder(a.value[0], b.value[0])
      if (!a.done && (b.done || order < 0)) {
        return `term ${JSON.stringify(a.value[0])} is in the stored index (${instances(a.value[1])}), not in a replay`
      }
      if (!b.done && (a.done || order > 0)) {
        return `term ${JSON.stringify(b.value[0])} is missing from the stored index (a replay holds ${
          instances(b.value[1])
        })`
      }
      const [term, held] = a.value as TermRow
      if (held !== (b.value as TermRow)[1]) {
        const mine = ordered(stored, term).split(";")
        const theirs = ordered(replayed, term).split(";")
        const at = mine.findIndex((instance, i) => instance !== theirs[i])
        const first = at === -1 ? mine.length : at
        if (first < Math.max(mine.length, theirs.length)) {
          return `term ${JSON.stringify(term)}, instance ${first + 1} (document, column, offset) differs: stored ${
            mine[first] ?? "none"
          }, replayed ${theirs[first] ?? "none"}`
        }
      }
      a = left.next()
      b = right.next()
    }
  } finally {
    left.return?.()
    right.return?.()
  }
}

export interface VerifyOptions {
  /** Told before each check runs and once all have (`done` of `total` checks): a large memory's take seconds. */
  readonly onProgress?: (done: number, total: number) => void
}

/** Runs every check; a check that throws becomes a finding rather than an error. */
export const verify = (memory: MemoryStore, options: VerifyOptions = {}): Effect.Effect<VerifyReport> =>
  Effect.sync(() => {
    const findings: Array<Finding> = []
    let events = 0
    const skipped: Array<Finding> = []
    // A check with a reason to skip it does not run: the reason is reported instead.
    const checks: Array<readonly [string, () => Array<string>, skippedBecause?: string | undefined]> = [
      ["sqlite integrity", () => sqliteIntegrity(memory.db)],
      ["positions gap-free", () => positionsGapFree(memory.db)],
      ["stream versions contiguous", () => streamVersionsContiguous(memory.db)],
      [
        "payloads decode",
        () => {
          const result = payloadsDecode(memory)
          events = result.events
          return result.findings
        }
      ],
      ["checkpoints current", () => checkpointsCurrent(memory)],
      [
        "full-text indexes consistent",
        () => indexesConsistent(memory),
        memory.db.readonly ? INDEX_CHECK_NEEDS_WRITE : undefined
      ],
      ["projections equal a replay", () => projectionsEqualReplay(memory, memory.runner.projections)],
      ["no events known to be missing", () => unacknowledgedLosses(memory.db).map(describeLoss)]
    ]
    for (const [done, [check, run, skippedBecause]] of checks.entries()) {
      options.onProgress?.(done, checks.length)
      if (skippedBecause !== undefined) {
        skipped.push({ check, detail: skippedBecause })
        continue
      }
      try {
        for (const detail of run()) findings.push({ check, detail })
      } catch (error) {
        findings.push({ check, detail: `could not check: ${describe(error)}` })
      }
    }
    options.onProgress?.(checks.length, checks.length)
    return { ok: findings.length === 0, events, checks: checks.map(([name]) => name), findings, skipped }
  })
