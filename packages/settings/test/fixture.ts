/** Real temp folders laid out like a user's machine: a home with ~/.config and a project root. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach } from "vitest"
import { type Environment, loadSettings } from "../src/index.ts"

const created: Array<string> = []
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true })
})

export interface Machine {
  readonly home: string
  readonly projectRoot: string
  readonly globalFile: string
  readonly projectFile: string
  readonly write: (file: string, text: string) => void
  readonly load: (env?: Environment) => ReturnType<typeof loadSettings>
}

export const machine = (): Machine => {
  const root = mkdtempSync(join(tmpdir(), "ralph-mem-settings-"))
  created.push(root)
  const home = join(root, "home")
  const projectRoot = join(root, "project")
  mkdirSync(projectRoot, { recursive: true })
  return {
    home,
    projectRoot,
    globalFile: join(home, ".config", "ralph-mem", "config.yaml"),
    projectFile: join(projectRoot, ".ralph-mem", "config.yaml"),
    write: (file, text) => {
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, text)
    },
    load: (env = {}) => loadSettings({ projectRoot, home, env })
  }
}
