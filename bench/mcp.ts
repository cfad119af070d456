/**
 * The memory tools' MCP server as Claude Code runs it (the bundled `ralph-mem mcp`, started by the
 * plugin's .mcp.json): cold start, from spawn to the answer to `initialize`, against `node -e 0` on the
 * same Node (after a first session, which leaves the server's code cache as a user's first session does); the
 * first search (it opens the database); and `search` through a whole JSON-RPC round trip
 * (write the request, decode, search, record the call as an event, answer) on 100,000 observations.
 * Target (issue 17): search p99 < 10 ms.
 */
import { compactLog } from "@ralph-mem/events"
import { mergeFullTextIndexes, openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { startMcp } from "../tests/support/mcp.ts"
import { elapsedMs, machine, round, summarize } from "./measure.ts"
import { QUERIES, sessionEvents } from "./search.ts"

const CLI = join(import.meta.dirname, "..", "dist", "ralph-mem.mjs")

const seed = (project: string, observations: number) => {
  const memory = Effect.runSync(openMemory({ path: join(project, ".ralph-mem", "memory.db") }))
  for (let s = 0; s * 20 < observations; s++) {
    Effect.runSync(
      memory.log.append(`session:s${s}`, sessionEvents(s, project).events, { expectedVersion: "any", writer: "bench" })
    )
  }
  compactLog(memory.db, { idleMs: 0 })
  mergeFullTextIndexes(memory.db)
  memory.db.close()
}

/**
 * The memory is written by a process of its own: the process that times the round trips then holds none of the
 * writing's garbage, whose collection would otherwise land in the timed calls.
 */
const seedApart = (project: string, observations: number) => {
  // Its memory is recorded where the server looks (memory-origin.ts): the server's home is the project.
  const seeded = spawnSync(process.execPath, [import.meta.filename, "--seed", project, String(observations)], {
    stdio: "inherit",
    env: { ...process.env, HOME: project, XDG_STATE_HOME: "" }
  })
  if (seeded.status !== 0) throw new Error(`seeding the memory failed (exit ${seeded.status})`)
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
})

/** Spawn to the first line of the answer to initialize; then stdin is closed and the exit awaited. */
const coldStart = (project: string, env: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [CLI, "mcp"], { cwd: project, env, stdio: ["pipe", "pipe", "inherit"] })
    let answered: number | undefined
    child.stdout.once("data", () => {
      answered = elapsedMs(started)
      child.stdin.end()
    })
    child.once("error", reject)
    child.once("exit", (code) =>
      answered === undefined || code !== 0
        ? reject(new Error(`the server exited with ${code} before answering`))
        : resolve(answered))
    child.stdin.write(`${INITIALIZE}\n`)
  })

const nodeBaseline = (): number => {
  const started = process.hrtime.bigint()
  spawnSync(process.execPath, ["-e", "0"])
  return elapsedMs(started)
}

export const mcpBench = async (options: {
  readonly observations: number
  readonly starts: number
  readonly searches: number
}) => {
  const project = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-bench-mcp-")))
  try {
    mkdirSync(join(project, ".git"))
    seedApart(project, options.observations)
    const env = {
      PATH: process.env["PATH"] ?? "",
      HOME: project,
      CLAUDE_PROJECT_DIR: project,
      CLAUDE_CODE_SESSION_ID: "bench"
    }
    // A first session, as a user's first: the server's code cache is written once a call is answered.
    const firstSession = await startMcp({ cwd: project, env })
    await firstSession.call("search", { query: "payment" })
    await firstSession.close()
    // Interleaved with `node -e 0`, so both see the same machine.
    const starts: Array<number> = []
    const baseline: Array<number> = []
    for (let i = 0; i < options.starts; i++) {
      starts.push(await coldStart(project, env))
      baseline.push(nodeBaseline())
    }
    const server = await startMcp({ cwd: project, env })
    const first = process.hrtime.bigint()
    const opened = await server.call("search", { query: "payment gateway timeout" })
    const firstSearchMs = elapsedMs(first)
    if (opened.isError) throw new Error(`search failed: ${opened.text}`)
    const searches: Array<number> = []
    for (let i = 0; i < options.searches; i++) {
      const started = process.hrtime.bigint()
      const answer = await server.call("search", { query: QUERIES[i % QUERIES.length] })
      searches.push(elapsedMs(started))
      if (answer.isError || !answer.text.includes("hit(s)")) throw new Error(`no hits: ${answer.text}`)
    }
    await server.close()
    const start = summarize(starts)
    const node = summarize(baseline)
    return {
      targets: "search through a JSON-RPC round trip p99 < 10 ms at 100,000 observations",
      observations: options.observations,
      coldStart: { ...start, nodeBaselineP50Ms: node.p50Ms, ratio: round(start.p50Ms / node.p50Ms, 2) },
      firstSearchMs: round(firstSearchMs),
      searchRoundTrip: summarize(searches),
      // What the tail is made of: a query's first run, a collection, or a call that waited on something else.
      slowestSearches: searches.map((ms, call) => ({ call, query: QUERIES[call % QUERIES.length]!, ms: round(ms, 2) }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 8)
    }
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
}

// `node bench/mcp.ts` runs this benchmark alone and writes bench/results/mcp.json; the machine's load
// average goes with it, since a busy machine moves these figures far more than the code does.
if (import.meta.main && process.argv[2] === "--seed") {
  seed(process.argv[3]!, Number(process.argv[4]))
} else if (import.meta.main) {
  const quick = process.argv.includes("--quick")
  const result = {
    date: new Date().toISOString(),
    command: `node bench/mcp.ts${quick ? " --quick" : ""}`,
    machine: machine(),
    loadAverage: loadavg().map((l) => round(l, 2)),
    mcp: await mcpBench(
      quick ? { observations: 10_000, starts: 5, searches: 100 } : { observations: 100_000, starts: 20, searches: 500 }
    )
  }
  const file = join(import.meta.dirname, "results", quick ? "mcp-quick.json" : "mcp.json")
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`)
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to ${file}\n`)
}
