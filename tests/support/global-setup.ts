/** Bundles the entry points once before the suite, so process tests always run what users run. */
import { execFileSync } from "node:child_process"
import { join } from "node:path"

export default function setup() {
  const root = join(import.meta.dirname, "..", "..")
  execFileSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { cwd: root, stdio: "inherit" })
}
