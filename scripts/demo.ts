/**
 * The demo: records an embedded sample coding session into a fresh project's memory, then reads it
 * back through the real `ralph-mem` binary. `npm run demo [-- --keep]` (--keep leaves the project).
 */
import { type RalphMemEvent, resolveDatabasePath, streams } from "@ralph-mem/events"
import { openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const project = mkdtempSync(join(tmpdir(), "ralph-mem-demo-"))
mkdirSync(join(project, ".git"))
const sessionId = "demo-session-1"

const sample: ReadonlyArray<readonly [string, RalphMemEvent]> = [
  ["hook:SessionStart", { _tag: "SessionStarted", sessionId, projectPath: project, source: "startup" }],
  ["hook:UserPromptSubmit", { _tag: "PromptSubmitted", sessionId, prompt: "The login test fails with TokenExpiredError; fix it." }],
  ["hook:PostToolUseFailure", {
    _tag: "ObservationRecorded", sessionId, kind: "error", toolName: "Bash", inputSummary: "npm test -- auth",
    content: "FAIL src/auth.test.ts > refreshes an expired token\nTokenExpiredError: jwt expired", files: ["src/auth.test.ts"],
    errorMessage: "Exit code 1"
  }],
  ["hook:PostToolUse", {
    _tag: "ObservationRecorded", sessionId, kind: "tool_use", toolName: "Edit", inputSummary: "src/auth.ts",
    content: "refresh the token before it expires, with 30 s of clock skew", files: ["src/auth.ts"]
  }],
  ["hook:PostToolUse", {
    _tag: "ObservationRecorded", sessionId, kind: "success", toolName: "Bash", inputSummary: "npm test -- auth",
    content: "PASS src/auth.test.ts (4 tests)", files: ["src/auth.test.ts"]
  }],
  ["hook:Stop", { _tag: "AssistantReplied", sessionId, message: "Fixed: tokens are refreshed 30 s before expiry." }],
  ["hook:SessionEnd", { _tag: "SessionEnded", sessionId, reason: "prompt_input_exit" }]
]

const path = resolveDatabasePath({ cwd: project, env: {} })
const memory = Effect.runSync(openMemory({ path }))
let at = Date.parse("2026-11-20T09:00:00Z")
for (const [writer, event] of sample) {
  Effect.runSync(memory.log.append(streams.session(sessionId), [event], { expectedVersion: "any", writer, occurredAt: (at += 45_000) }))
}
memory.db.close()

const cli = join(import.meta.dirname, "..", "dist", "ralph-mem.mjs")
const show = (args: ReadonlyArray<string>) => {
  process.stdout.write(`\n$ ralph-mem ${args.join(" ")}\n`)
  process.stdout.write(execFileSync(process.execPath, [cli, ...args], { cwd: project, encoding: "utf8" }))
}
process.stdout.write(`Recorded a sample session of ${sample.length} events in ${path}\n`)
show(["status"])
show(["timeline"])
show(["audit", "--type", "ObservationRecorded"])
show(["replay"])
show(["verify"])

if (process.argv.includes("--keep")) process.stdout.write(`\nThe demo project is kept at ${project}\n`)
else rmSync(project, { recursive: true, force: true })
