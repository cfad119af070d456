/**
 * The search evaluation (bench/search-eval/): top-1 and top-3 of every query group on the corpus alone and
 * buried under 5,000 and 50,000 later observations; writes bench/results/search-eval.json.
 *   node bench/search-eval.ts              all three memories
 *   node bench/search-eval.ts --buried 0   one of them
 *   node bench/search-eval.ts --misses     also print each query that missed the top 3, with its rank
 * Targets (issue 20): top-3 >= 85% overall and >= 80% in every group, buried or not; direct queries >= 95% buried.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { machine, withTempFolder } from "./measure.ts"
import { buildEvalMemory, type EvalReport, GROUPS, runEval } from "./search-eval/evaluate.ts"

const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(name)
  return at === -1 ? undefined : process.argv[at + 1]
}
const only = argument("--buried")
const sizes = only === undefined ? [0, 5_000, 50_000] : [Number(only)]
const showMisses = process.argv.includes("--misses")

const percent = (share: number) => `${(share * 100).toFixed(1)}%`

const targetsMet = (report: EvalReport): boolean =>
  report.overall.top3 >= 0.85 &&
  GROUPS.every((g) => report.groups[g].top3 >= 0.8) &&
  (report.buried === 0 || report.groups.direct.top3 >= 0.95)

const reports = withTempFolder((folder) =>
  sizes.map((buried) => {
    const db = buildEvalMemory(join(folder, `eval-${buried}.db`), buried)
    try {
      return runEval(db, buried)
    } finally {
      db.memory.db.close()
    }
  })
)

for (const report of reports) {
  const line = [
    `overall ${percent(report.overall.top1)} / ${percent(report.overall.top3)}`,
    ...GROUPS.map((g) => `${g} ${percent(report.groups[g].top1)} / ${percent(report.groups[g].top3)}`)
  ]
  process.stdout.write(
    `buried under ${report.buried} (top-1 / top-3, ${report.overall.queries} queries): ${line.join(", ")}; targets ${
      targetsMet(report) ? "met" : "NOT met"
    }\n`
  )
  if (showMisses) {
    for (const o of report.outcomes.filter((o) => o.rank === undefined || o.rank > 3)) {
      process.stdout.write(`  miss [${o.group}] ${JSON.stringify(o.query)} -> ${o.expect}: rank ${o.rank ?? "-"}\n`)
    }
  }
}

const folder = join(import.meta.dirname, "results")
mkdirSync(folder, { recursive: true })
const file = join(folder, "search-eval.json")
writeFileSync(
  file,
  `${
    JSON.stringify(
      {
        date: new Date().toISOString(),
        command: `node bench/search-eval.ts${only === undefined ? "" : ` --buried ${only}`}`,
        machine: machine(),
        reports: reports.map((r) => ({ ...r, targetsMet: targetsMet(r) }))
      },
      null,
      2
    )
  }\n`
)
process.stdout.write(`written to ${file}\n`)
