/**
 * Bundles the entry points once before the suite, so process tests always run what users run; and gives the run a
 * state home of its own (`XDG_STATE_HOME`, inherited by every worker): what ralph-mem records about this machine's
 * memories goes there, never into the user's home.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export default function setup() {
  const root = join(import.meta.dirname, "..", "..")
  execFileSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { cwd: root, stdio: "inherit" })
  const state = mkdtempSync(join(tmpdir(), "ralph-mem-test-state-"))
  process.env["XDG_STATE_HOME"] = state
  return () => rmSync(state, { recursive: true, force: true })
}
