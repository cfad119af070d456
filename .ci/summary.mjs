// Prints vitest's JSON report as the closing line CI reads: "N passed, N failed[, N skipped]".
// Exits 1 when anything failed or the report is missing (the runner crashed before writing it).
import { readFileSync } from "node:fs"

let report
try {
  report = JSON.parse(readFileSync(process.argv[2], "utf8"))
} catch (error) {
  console.log(`no test report (${error.message})`)
  console.log("0 passed, 1 failed")
  process.exit(1)
}
const passed = report.numPassedTests
const failed = report.numFailedTests + (report.numFailedTestSuites > 0 && report.numFailedTests === 0 ? 1 : 0)
const skipped = report.numPendingTests + report.numTodoTests
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
