/**
 * Runs every benchmark and writes bench/results/latest.json (and prints it).
 *   npm run bench            full sizes
 *   npm run bench -- --quick smaller sizes, for a smoke run
 *   npm run bench -- --only search    one benchmark, written to bench/results/search.json
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { progress } from "../apps/cli/src/progress.ts"
import { eventLogBench } from "./event-log.ts"
import { hooksBench } from "./hooks.ts"
import { mcpBench } from "./mcp.ts"
import { machine } from "./measure.ts"
import { refusedMemoryBench } from "./refused-memory.ts"
import { replayBench } from "./replay.ts"
import { searchBench } from "./search.ts"

const quick = process.argv.includes("--quick")
const stages = {
  eventLog: () =>
    eventLogBench(
      quick ? { batched: 20_000, batchSize: 500, single: 500 } : { batched: 200_000, batchSize: 1000, single: 5000 }
    ),
  hooks: () => hooksBench(quick ? 10 : 30),
  search: () => searchBench(quick ? [1_000, 10_000] : [1_000, 10_000, 100_000], quick ? 50 : 200),
  refusedMemory: () => refusedMemoryBench(quick ? 50 : 400, quick ? 5 : 30),
  replay: () => replayBench(quick ? [10_000, 50_000] : [100_000, 1_000_000]),
  mcp: () =>
    mcpBench(
      quick ? { observations: 10_000, starts: 5, searches: 100 } : { observations: 100_000, starts: 20, searches: 500 }
    )
}
const onlyAt = process.argv.indexOf("--only")
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1]
if (only !== undefined && !Object.hasOwn(stages, only)) {
  throw new Error(`--only takes one of ${Object.keys(stages).join(", ")}, not ${only}`)
}
// The benchmarks run for minutes: a bar over them (on stderr) says which one runs and about how long is left.
const names = (Object.keys(stages) as Array<keyof typeof stages>).filter((name) => only === undefined || name === only)
const bar = progress({ label: "benchmarks", unit: "done", lineEveryMs: 0 })
const measured: Partial<{ [K in keyof typeof stages]: Awaited<ReturnType<(typeof stages)[K]>> }> = {}
for (const [i, name] of names.entries()) {
  process.stderr.write(`bench: ${name} (${i + 1} of ${names.length})\n`)
  ;(measured as Record<string, unknown>)[name] = await stages[name]()
  bar.update(i + 1, names.length)
}
bar.finish()
const flags = [quick ? "--quick" : "", only === undefined ? "" : `--only ${only}`].filter(Boolean).join(" ")
const results = {
  date: new Date().toISOString(),
  command: `npm run bench${flags === "" ? "" : ` -- ${flags}`}`,
  machine: machine(),
  ...measured
}

const folder = join(import.meta.dirname, "results")
mkdirSync(folder, { recursive: true })
const file = join(
  folder,
  only !== undefined ? `${only}${quick ? "-quick" : ""}.json` : quick ? "quick.json" : "latest.json"
)
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`)
process.stdout.write(`${JSON.stringify(results, null, 2)}\nwritten to ${file}\n`)
