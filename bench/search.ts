/**
 * Search latency by layer and scale, and database size against the text it stores.
 * Targets (issue 5): layer 1 p99 < 5 ms at 100,000 observations; layer 3 (10 results) p99 < 20 ms;
 * 1,000 sessions of the workload below take at most 1.5x the raw text they store.
 *
 * Workload, per session: a start, 3 prompts (~80 chars), 20 tool observations (~300 chars: commands,
 * test output, stack traces with identifiers), a summary (~200 chars) and an end. The databases are
 * measured as `ralph-mem compact` leaves them: every session ended and packed, the full-text indexes merged.
 */
import { compactLog, type RalphMemEvent } from "@ralph-mem/events"
import { mergeFullTextIndexes, openMemory } from "@ralph-mem/projections"
import { fullDetails, searchIndex, timelineOf } from "@ralph-mem/projections/search"
import * as Effect from "effect/Effect"
import { statSync } from "node:fs"
import { join } from "node:path"
import { elapsedMs, round, summarize, withTempFolder } from "./measure.ts"

/**
 * 120 words, so a term matches a realistic share of observations (a 15-word corpus makes every term match
 * everything).
 */
const WORDS = [
  "parser",
  "token",
  "cache",
  "session",
  "refresh",
  "payment",
  "gateway",
  "timeout",
  "render",
  "schema",
  "migration",
  "queue",
  "worker",
  "login",
  "upload",
  "invoice",
  "ledger",
  "tenant",
  "webhook",
  "retry",
  "backoff",
  "cursor",
  "index",
  "shard",
  "replica",
  "lease",
  "mutex",
  "buffer",
  "stream",
  "socket",
  "header",
  "cookie",
  "locale",
  "currency",
  "rounding",
  "discount",
  "coupon",
  "basket",
  "checkout",
  "refund",
  "shipment",
  "carrier",
  "label",
  "barcode",
  "inventory",
  "warehouse",
  "supplier",
  "catalog",
  "variant",
  "price",
  "tax",
  "vat",
  "receipt",
  "email",
  "template",
  "digest",
  "notifier",
  "scheduler",
  "cron",
  "batch",
  "export",
  "import",
  "csv",
  "parquet",
  "archive",
  "thumbnail",
  "image",
  "resize",
  "crop",
  "watermark",
  "video",
  "transcode",
  "subtitle",
  "player",
  "playlist",
  "search",
  "ranking",
  "synonym",
  "stemmer",
  "tokenizer",
  "embedding",
  "vector",
  "cluster",
  "graph",
  "node",
  "edge",
  "path",
  "router",
  "middleware",
  "handler",
  "controller",
  "service",
  "repository",
  "adapter",
  "client",
  "server",
  "config",
  "secret",
  "vault",
  "policy",
  "role",
  "permission",
  "audit",
  "trace",
  "metric",
  "alert",
  "dashboard",
  "report",
  "chart",
  "widget",
  "modal",
  "dialog",
  "form",
  "input",
  "validator",
  "sanitizer",
  "encoder",
  "decoder",
  "compressor",
  "hash"
]
const pick = (n: number) => WORDS[n % WORDS.length]!

export const sessionEvents = (s: number, project: string): { events: Array<RalphMemEvent>; rawChars: number } => {
  const sessionId = `s${s}`
  const events: Array<RalphMemEvent> = [{ _tag: "SessionStarted", sessionId, projectPath: project, source: "startup" }]
  for (let p = 0; p < 3; p++) {
    events.push({
      _tag: "PromptSubmitted",
      sessionId,
      prompt: `Please fix the ${pick(s + p)} ${pick(s * 3 + p)} bug; the ${pick(p)} tests fail since yesterday.`
    })
  }
  for (let i = 0; i < 20; i++) {
    const a = pick(s + i)
    const b = pick(s * 7 + i * 3)
    events.push({
      _tag: "ObservationRecorded",
      sessionId,
      kind: i % 6 === 0 ? "error" : i % 5 === 0 ? "success" : "tool_use",
      toolName: i % 3 === 0 ? "Edit" : "Bash",
      inputSummary: `npm test -- src/${a}/${b}.test.ts`,
      content: `FAIL src/${a}/${b}.test.ts > handles ${a} ${b} case ${s}.${i}\n  ${a[0]!.toUpperCase()}${a.slice(1)}${
        b[0]!.toUpperCase()
      }${b.slice(1)}Error: expected ${a} to equal ${b}\n    at ${a}_${b}_handler (src/${a}/${b}.ts:${i + 10}:${
        s % 80
      })\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)`,
      files: [`src/${a}/${b}.ts`]
    })
  }
  events.push({
    _tag: "SessionSummarized",
    sessionId,
    summary: `Goal: fix the ${pick(s)} bug. Errors (4): ${pick(s + 1)} ${pick(s + 2)} failures. Passed (3): ${
      pick(s + 3)
    } tests. Files: src/${pick(s)}/${pick(s + 1)}.ts`,
    summarizer: "local-v1"
  })
  events.push({ _tag: "SessionEnded", sessionId, reason: "exit" })
  // Every string an event holds, the file paths in its lists included.
  const rawChars = events.reduce(
    (sum, e) =>
      sum + Object.values(e).flat().filter((v): v is string => typeof v === "string").reduce((t, v) => t + v.length, 0),
    0
  )
  return { events, rawChars }
}

export const QUERIES = [
  "token refresh",
  "TokenRefreshError",
  "payment gateway timeout",
  "parser cache",
  "render schema migration",
  "queue worker",
  "login session",
  "upload retry backoff",
  "expected invoice to equal ledger",
  "src/payment/gateway.ts"
]

const measureLayers = (path: string, project: string, samples: number) => {
  const memory = Effect.runSync(openMemory({ path }))
  const layers = { index: [] as Array<number>, timeline: [] as Array<number>, full: [] as Array<number> }
  for (let i = 0; i < samples; i++) {
    const query = QUERIES[i % QUERIES.length]!
    let t = process.hrtime.bigint()
    const { hits } = searchIndex(memory.db, { query, project, limit: 10 })
    layers.index.push(elapsedMs(t))
    t = process.hrtime.bigint()
    timelineOf(memory.db, searchIndex(memory.db, { query, project, limit: 10 }).hits)
    layers.timeline.push(elapsedMs(t))
    t = process.hrtime.bigint()
    fullDetails(
      memory.db,
      searchIndex(memory.db, { query, project, limit: 10 }).hits.filter((h) => h.kind === "observation").map((h) =>
        h.id
      )
    )
    layers.full.push(elapsedMs(t))
    if (hits.length === 0) throw new Error(`no hits for ${query}`)
  }
  memory.db.close()
  return {
    layer1Index: summarize(layers.index),
    layer2Timeline: summarize(layers.timeline),
    layer3Full10: summarize(layers.full)
  }
}

export const searchBench = (scales: ReadonlyArray<number>, samples: number) =>
  withTempFolder((folder) => {
    const project = "/work/bench"
    const latency = scales.map((observations) => {
      const path = join(folder, `search-${observations}.db`)
      const memory = Effect.runSync(openMemory({ path }))
      for (let s = 0; s * 20 < observations; s++) {
        Effect.runSync(
          memory.log.append(`session:s${s}`, sessionEvents(s, project).events, {
            expectedVersion: "any",
            writer: "bench"
          })
        )
      }
      compactLog(memory.db, { idleMs: 0 })
      mergeFullTextIndexes(memory.db)
      memory.db.close()
      return { observations, ...measureLayers(path, project, samples) }
    })
    // Size: 1,000 sessions, packed and merged as `ralph-mem compact` leaves them, checkpointed and
    // vacuumed so the file holds only live pages.
    const sizePath = join(folder, "size.db")
    const memory = Effect.runSync(openMemory({ path: sizePath }))
    let rawChars = 0
    for (let s = 0; s < 1000; s++) {
      const { events, rawChars: chars } = sessionEvents(s, project)
      rawChars += chars
      Effect.runSync(memory.log.append(`session:s${s}`, events, { expectedVersion: "any", writer: "bench" }))
    }
    compactLog(memory.db, { idleMs: 0 })
    mergeFullTextIndexes(memory.db)
    memory.db.pragma("wal_checkpoint(TRUNCATE)")
    memory.db.exec("VACUUM")
    const tables = memory.db
      .prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 12")
      .all() as Array<{ name: string; bytes: number }>
    memory.db.close()
    const bytes = statSync(sizePath).size
    return {
      targets: "layer 1 p99 < 5 ms at 100k; layer 3 (10 results) p99 < 20 ms; size <= 1.5x raw text",
      latency,
      size: {
        sessions: 1000,
        rawTextBytes: rawChars,
        databaseBytes: bytes,
        ratio: round(bytes / rawChars, 2),
        largest: Object.fromEntries(tables.map((t) => [t.name, round(t.bytes / rawChars, 2)]))
      }
    }
  })
