/**
 * One of the load test's writers: `node hook-load-writer.ts <project> <writer> <count>`.
 * Imports the real hook runner, prints "ready", waits for a line on stdin, then runs the PostToolUse
 * hook <count> times in this process, each invocation exactly as `dist/hook.mjs` runs it (decode, privacy,
 * open the memory, append with projections, close). Prints one JSON line: what it saw, how long it took, and
 * when (epoch ms) it started and finished.
 */
import * as Effect from "effect/Effect"
import { once } from "node:events"
import { runHook } from "../../packages/hooks/src/index.ts"

const [project, writer, count] = process.argv.slice(2)
const env = { PATH: process.env["PATH"] ?? "", HOME: project! }

process.stdout.write("ready\n")
await once(process.stdin, "data")
process.stdin.pause()

let outputs = 0
const startedAt = Date.now()
const started = performance.now()
for (let i = 0; i < Number(count); i++) {
  const stdin = JSON.stringify({
    session_id: `load-${Number(writer) % 4}`,
    transcript_path: `${project}/t.jsonl`,
    cwd: project,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: `npm test -- --shard ${writer}/${i}` },
    tool_response: { stdout: `PASS src/writer-${writer}/case-${i}.test.ts (3 tests)`, stderr: "", interrupted: false },
    tool_use_id: `toolu_${writer}_${i}`
  })
  const output = await Effect.runPromise(runHook("PostToolUse", stdin, { env, cwd: project! }))
  if (output !== undefined) outputs++
}
const ms = performance.now() - started
process.stdout.write(
  `${JSON.stringify({ writer, count: Number(count), ms, outputs, startedAt, finishedAt: Date.now() })}\n`
)
