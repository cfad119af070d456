/**
 * The recall benchmark (issue 19): every scenario of the corpus through the real hooks, then what
 * ralph-mem, the newest-50 baseline and no memory would inject into the later session.
 *   node bench/recall/run.ts                 all scenarios, results to bench/results/recall.json
 *   node bench/recall/run.ts --only a,b      some scenarios (results not written)
 *   node bench/recall/run.ts --later N       N unrelated sessions after the relevant ones in every scenario
 *                                            (default 3), results to bench/results/recall-later-N.json
 *   node bench/recall/run.ts --show          also print what ralph-mem injected into each later session
 * Needs dist/ (npm run build).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { machine } from "../measure.ts"
import { corpus } from "./corpus.ts"
import { runScenario, type ScenarioResult, SYSTEMS, totals } from "./harness.ts"

const option = (
  name: string
) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined)
const only = option("--only")?.split(",")
const show = process.argv.includes("--show")
const later = option("--later") === undefined ? undefined : Number(option("--later"))
if (later !== undefined && !(Number.isInteger(later) && later >= 0)) throw new Error("--later takes a whole number")
const scenarios = (only === undefined ? corpus : corpus.filter((s) => only.includes(s.id)))
  .map((s) => (later === undefined ? s : { ...s, laterSessions: later }))

const results: Array<ScenarioResult> = []
for (const scenario of scenarios) {
  const started = Date.now()
  const result = await runScenario(scenario)
  results.push(result)
  const mine = result.systems["ralph-mem"]
  const base = result.systems["newest-50"]
  process.stderr.write(
    `${scenario.id.padEnd(24)} ralph-mem ${mine.recall.toFixed(2)} (${mine.tokens} tok)  newest-50 ${
      base.recall.toFixed(2)
    } (${base.tokens} tok)` +
      `${mine.missed.length === 0 ? "" : `  missed: ${mine.missed.join(" | ")}`}  ${Date.now() - started} ms\n`
  )
  if (show) process.stderr.write(`${result.texts["ralph-mem"]}\n\n`)
}

const summary = Object.fromEntries(SYSTEMS.map((system) => [system, {
  all: totals(results, system),
  en: totals(results, system, "en"),
  ko: totals(results, system, "ko")
}]))
const mine = summary["ralph-mem"]!.all
const base = summary["newest-50"]!.all
const targets = {
  recallAtLeast90: mine.recall >= 0.9,
  recallAboveNewest50: mine.recall > base.recall,
  atMostHalfTheTokens: mine.tokens <= base.tokens / 2
}

const table = [
  "| system | recall | precision | tokens injected (mean) | scenarios showing the home folder |",
  "|---|---|---|---|---|",
  ...SYSTEMS.map((system) => {
    const t = summary[system]!.all
    return `| ${system} | ${t.recall.toFixed(2)} (en ${summary[system]!.en.recall.toFixed(2)}, ko ${
      summary[system]!.ko.recall.toFixed(2)
    }) | ${t.precision.toFixed(2)} | ${t.tokens} | ${t.homeShown} of ${t.scenarios} |`
  })
].join("\n")

const report = {
  date: new Date().toISOString(),
  command: `node bench/recall/run.ts${only === undefined ? "" : ` --only ${only.join(",")}`}${
    later === undefined ? "" : ` --later ${later}`
  }`,
  machine: machine(),
  scenarios: results.length,
  summary,
  targets,
  results: results.map(({ texts: _texts, ...rest }) => rest)
}
if (only === undefined) {
  const folder = join(import.meta.dirname, "..", "results")
  mkdirSync(folder, { recursive: true })
  writeFileSync(
    join(folder, later === undefined ? "recall.json" : `recall-later-${later}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
}
process.stdout.write(`${table}\n\ntargets: ${JSON.stringify(targets)}\n`)
