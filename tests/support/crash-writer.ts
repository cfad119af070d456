/**
 * A writer to be killed, for tests/crash.test.ts: `node crash-writer.ts <db> <writer>`.
 * Opens the memory (projections included, as every real writer does), prints "ready", then appends
 * single-event batches numbered 0, 1, 2, ... to the stream `session:<writer>` until it is killed,
 * printing each number only after its append has returned (committed).
 *
 * Printing is a blocking write(2) to fd 1: process.stdout on a pipe queues a write in user space when
 * the pipe is momentarily full, and a loop that never yields to the event loop would then never send it.
 * A number the test reads was written to the pipe before the next append began.
 */
import * as Effect from "effect/Effect"
import { writeSync } from "node:fs"
import { flushCompileCache } from "node:module"
import { openMemory } from "../../packages/projections/src/index.ts"

const print = (line: string) => {
  const bytes = Buffer.from(`${line}\n`)
  for (let offset = 0; offset < bytes.length;) {
    try {
      offset += writeSync(1, bytes, offset)
    } catch (error) {
      // The pipe is non-blocking and full: the reader is busy, wait for it.
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1)
    }
  }
}

const [path, writer] = process.argv.slice(2)
// Killed processes never write NODE_COMPILE_CACHE at exit: write it now, so the next writer starts fast.
flushCompileCache()
const memory = Effect.runSync(openMemory({ path: path! }))
print("ready")
for (let n = 0; n < 1_000_000; n++) {
  Effect.runSync(
    memory.log.append(
      `session:${writer}`,
      [{
        _tag: "ObservationRecorded",
        sessionId: writer!,
        kind: n % 7 === 0 ? "error" : "tool_use",
        toolName: "Bash",
        inputSummary: `npm test -- case-${n}`,
        content: `${writer} ${n}: ran the ParserError check on src/file-${n % 50}.ts`,
        files: [`src/file-${n % 50}.ts`]
      }],
      { expectedVersion: "any", writer: `crash:${writer}` }
    )
  )
  print(String(n))
}
memory.db.close()
