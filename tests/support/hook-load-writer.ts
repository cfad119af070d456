/**
 * One of the load test's writers: `node hook-load-writer.ts <project> <writer> <count>`.
 * Imports the real hook runner, runs it once on a project of its own (see `warmUp`), prints "ready", waits
 * for a line on stdin, then runs the PostToolUse hook <count> times in this process, each invocation exactly
 * as `dist/hook.mjs` runs it (decode, privacy, open the memory, append with projections, close). Prints one
 * JSON line: what it saw, how long it took, its slowest invocation, and when (epoch ms) it started and
 * finished.
 */
import * as Effect from "effect/Effect"
import { once } from "node:events"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runHook } from "../../packages/hooks/src/index.ts"

const [project, writer, count] = process.argv.slice(2)

const postToolUse = (root: string, i: number) =>
  JSON.stringify({
    session_id: `load-${Number(writer) % 4}`,
    transcript_path: `${root}/t.jsonl`,
    cwd: root,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: `npm test -- --shard ${writer}/${i}` },
    tool_response: { stdout: `PASS src/writer-${writer}/case-${i}.test.ts (3 tests)`, stderr: "", interrupted: false },
    tool_use_id: `toolu_${writer}_${i}`
  })

const invoke = (root: string, i: number) =>
  Effect.runPromise(
    runHook("PostToolUse", postToolUse(root, i), { env: { PATH: process.env["PATH"] ?? "", HOME: root }, cwd: root })
  )

/**
 * One invocation on a project of its own, before "ready". The first invocation in a process compiles the
 * hook's code; sixteen writers doing that at the same go, on two cores, made each first append wait far
 * longer than any later one, and on a busy machine past the hook's lock budget. A real hook pays that cost
 * in a process of its own, spread over time: the test of `dist/hook.mjs` processes covers it. What this
 * writer measures is hooks contending for one database.
 */
const warmUp = async () => {
  const root = mkdtempSync(join(tmpdir(), "ralph-mem-load-warm-"))
  try {
    mkdirSync(join(root, ".git"))
    await invoke(root, -1)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

await warmUp()
process.stdout.write("ready\n")
await once(process.stdin, "data")
process.stdin.pause()

let outputs = 0
let slowestMs = 0
const startedAt = Date.now()
const started = performance.now()
for (let i = 0; i < Number(count); i++) {
  const before = performance.now()
  const output = await invoke(project!, i)
  slowestMs = Math.max(slowestMs, performance.now() - before)
  if (output !== undefined) outputs++
}
const ms = performance.now() - started
process.stdout.write(
  `${JSON.stringify({ writer, count: Number(count), ms, slowestMs, outputs, startedAt, finishedAt: Date.now() })}\n`
)
