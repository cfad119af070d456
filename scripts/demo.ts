/**
 * The demo, ralph-mem's main job on an embedded sample: in a fresh temporary project it
 *   1. feeds a recorded coding session through the real hook process, as Claude Code would;
 *   2. shows what a new session is told, and searches the memory;
 *   3. runs a Ralph loop whose (scripted) agent makes the project's check pass on its third try.
 * Everything goes through the built binaries in dist/. `npm run demo [-- --keep]` keeps the project.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dist = join(import.meta.dirname, "..", "dist")
const project = mkdtempSync(join(tmpdir(), "ralph-mem-demo-"))
mkdirSync(join(project, ".git"))
const env = { ...process.env, RALPH_MEM_DB: "", HOME: project, XDG_CONFIG_HOME: join(project, ".config") }

const hook = (event: string, sessionId: string, fields: Record<string, unknown>) => {
  const input = JSON.stringify({ session_id: sessionId, cwd: project, hook_event_name: event, ...fields })
  const result = spawnSync(process.execPath, [join(dist, "hook.mjs"), event], {
    cwd: project,
    env,
    input,
    encoding: "utf8"
  })
  return result.stdout
}

const show = (args: ReadonlyArray<string>) => {
  process.stdout.write(`\n$ ralph-mem ${args.join(" ")}\n`)
  const result = spawnSync(process.execPath, [join(dist, "ralph-mem.mjs"), ...args], {
    cwd: project,
    env,
    encoding: "utf8"
  })
  process.stdout.write(result.stdout + result.stderr)
}

// 1. A recorded session: a failing test, a fix, a passing run.
hook("SessionStart", "demo-1", { source: "startup" })
hook("UserPromptSubmit", "demo-1", { prompt: "The login test fails with TokenExpiredError; fix it." })
hook("PostToolUseFailure", "demo-1", {
  tool_name: "Bash",
  tool_input: { command: "npm test -- auth" },
  tool_use_id: "t1",
  error: "Exit code 1\nFAIL src/auth.test.ts > refreshes an expired token\n"
    + "TokenExpiredError: jwt expired at refreshSession (src/auth.ts:42:11)"
})
hook("PostToolUse", "demo-1", {
  tool_name: "Edit",
  tool_use_id: "t2",
  tool_input: {
    file_path: join(project, "src/auth.ts"),
    old_string: "if (expired) throw",
    new_string: "if (expiresWithin(30_000)) return refresh()"
  }
})
hook("PostToolUse", "demo-1", {
  tool_name: "Bash",
  tool_input: { command: "npm test -- auth" },
  tool_use_id: "t3",
  tool_response: { stdout: "PASS src/auth.test.ts (4 tests)" }
})
hook("Stop", "demo-1", {
  stop_hook_active: false,
  last_assistant_message: "Fixed: tokens are refreshed 30 s before they expire."
})
hook("SessionEnd", "demo-1", { reason: "prompt_input_exit" })
process.stdout.write(`Recorded a sample session through the hooks into ${join(project, ".ralph-mem", "memory.db")}\n`)

// 2. What the next session is told, and the memory commands.
const context = JSON.parse(hook("SessionStart", "demo-2", { source: "startup" })).hookSpecificOutput
  .additionalContext as string
process.stdout.write(`\nThe next session starts with this context:\n${context.replace(/^/gm, "  | ")}\n`)
show(["search", "token", "expired"])
show(["timeline"])
show(["status"])

// 3. A Ralph loop: the harness runs the check; the scripted agent fixes the project on its third run.
writeFileSync(
  join(project, "check.js"),
  `if (!require("fs").existsSync("fixed.txt")) { console.error("FAIL check > the thing is fixed"); process.exit(1) }`
)
writeFileSync(
  join(project, "agent.js"),
  `const fs = require("fs"); const n = Number(fs.existsSync("runs") ? fs.readFileSync("runs", "utf8") : 0) + 1
   fs.writeFileSync("runs", String(n))
   if (n === 3) fs.writeFileSync("fixed.txt", "yes")
   console.log("agent run " + n)`
)
show(["ralph", "run", "make the check pass", "--agent", "node agent.js", "--criteria", "custom=node check.js"])
show(["ralph", "status"])
show(["verify"])

if (process.argv.includes("--keep")) process.stdout.write(`\nThe demo project is kept at ${project}\n`)
else rmSync(project, { recursive: true, force: true })
