/**
 * A hook in a project whose memory is refused as not made here (memory-origin.ts): a memory made before ids were
 * kept, whose sessions Claude Code on this machine holds no transcript of, on a machine with many Claude Code
 * projects. Each PostToolUse is timed as a whole process, alternating between the refusal kept (one `stat` per
 * transcript folder) and no refusal kept (removed before the run: every session looked for in every folder, as
 * each hook did before refusals were kept).
 *   node bench/refused-memory.ts [--folders 400] [--runs 30]
 * Writes bench/results/refused-memory.json.
 */
import { newSqliteDatabase } from "@ralph-mem/events"
import { openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { HOOK_NODE_OPTIONS } from "../tests/support/cli.ts"
import { elapsedMs, machine, percentile, round, withTempFolder } from "./measure.ts"
import { sessionEvents } from "./search.ts"

const HOOK = join(import.meta.dirname, "..", "dist", "hook.mjs")

const argument = (name: string, otherwise: number): number => {
  const at = process.argv.indexOf(name)
  return at === -1 ? otherwise : Number(process.argv[at + 1])
}

const median = (samples: ReadonlyArray<number>) => round(percentile([...samples].sort((a, b) => a - b), 50), 2)

export const refusedMemoryBench = (folders: number, runs: number) =>
  withTempFolder((folder) => {
    const home = join(folder, "home")
    const project = join(folder, "project")
    for (let p = 0; p < folders; p++) {
      const transcripts = join(home, ".claude", "projects", `-work-project-${p}`)
      mkdirSync(transcripts, { recursive: true })
      for (let t = 0; t < 3; t++) writeFileSync(join(transcripts, `session-${p}-${t}.jsonl`), "{}\n")
    }
    const env = { PATH: process.env["PATH"] ?? "", HOME: home, XDG_STATE_HOME: "" }
    // An older memory of 25 sessions: no id in it, none recorded, no transcript of its sessions anywhere.
    const path = join(project, ".ralph-mem", "memory.db")
    // Made under the hooks' home, as the user's memory once was; the process's own home is given back after.
    const own = { HOME: process.env["HOME"], XDG_STATE_HOME: process.env["XDG_STATE_HOME"] }
    Object.assign(process.env, { HOME: home, XDG_STATE_HOME: "" })
    try {
      const memory = Effect.runSync(openMemory({ path }))
      for (let s = 0; s < 25; s++) {
        const { events } = sessionEvents(s, project)
        Effect.runSync(memory.log.append(`session:s${s}`, events, { expectedVersion: "any", writer: "bench" }))
      }
      memory.db.close()
    } finally {
      for (const [name, value] of Object.entries(own)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
    const db = newSqliteDatabase(path)
    db.exec("DROP TABLE memory_identity")
    db.close()
    const state = join(home, ".local", "state", "ralph-mem")
    rmSync(join(state, "memories"), { recursive: true, force: true })
    const payload = (i: number) =>
      JSON.stringify({
        session_id: "bench",
        cwd: project,
        hook_event_name: "PostToolUse",
        tool_name: "Bash",
        tool_input: { command: `ls src/${i}` },
        tool_response: { stdout: "a.ts", stderr: "" },
        tool_use_id: `toolu_${i}`
      })
    const hook = (i: number) => {
      const start = process.hrtime.bigint()
      const result = spawnSync(process.execPath, [...HOOK_NODE_OPTIONS, HOOK, "PostToolUse"], {
        input: payload(i),
        cwd: project,
        env
      })
      const ms = elapsedMs(start)
      if (result.status !== 0) throw new Error(`the hook exited ${result.status}: ${result.stderr}`)
      return ms
    }
    hook(0)
    if (readdirSync(join(state, "unproven")).length !== 1) throw new Error("the refusal was not kept")
    const kept: Array<number> = []
    const lookedUp: Array<number> = []
    for (let i = 1; i <= runs; i++) {
      kept.push(hook(i))
      rmSync(join(state, "unproven"), { recursive: true, force: true })
      lookedUp.push(hook(i))
    }
    return {
      folders,
      runs,
      keptMedianMs: median(kept),
      lookedUpMedianMs: median(lookedUp),
      pairedRatio: median(kept.map((ms, i) => ms / lookedUp[i]!))
    }
  })

if (import.meta.main) {
  const result = {
    date: new Date().toISOString(),
    command: "node bench/refused-memory.ts",
    machine: machine(),
    loadAverage: loadavg().map((n) => round(n, 2)),
    refusedMemory: refusedMemoryBench(argument("--folders", 400), argument("--runs", 30))
  }
  mkdirSync(join(import.meta.dirname, "results"), { recursive: true })
  writeFileSync(join(import.meta.dirname, "results", "refused-memory.json"), `${JSON.stringify(result, null, 2)}\n`)
  console.log(JSON.stringify(result.refusedMemory))
}
