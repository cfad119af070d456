/** Every file below a folder with a hash of its bytes (links marked): what a refused memory folder must keep. */
import { createHash } from "node:crypto"
import { lstatSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

export const snapshot = (root: string): Map<string, string> => {
  const found = new Map<string, string>()
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stats = lstatSync(path)
      if (stats.isDirectory()) walk(path)
      else found.set(path, stats.isFile() ? createHash("sha256").update(readFileSync(path)).digest("hex") : "link")
    }
  }
  walk(root)
  return found
}
