/**
 * The style checks: `npm run lint` runs them all, tests/style.test.ts runs each as a test.
 *   - format: dprint (Effect's style, dprint.json) would change nothing (`npm run format` writes its changes);
 *   - lint: oxlint with type information (.oxlintrc.json) finds nothing;
 *   - width: no source line is wider than 120 characters (the formatter wraps code, not comments or strings).
 * Each check runs on a folder (the repository's root by default) with the binaries of this repository's
 * node_modules: nothing is downloaded (dprint's TypeScript plugin is the wasm file its npm package ships).
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"

const ROOT = join(import.meta.dirname, "..")
export const MAX_WIDTH = 120

export interface CheckResult {
  readonly ok: boolean
  /** What the tool said (or the wide lines), for the person who has to fix it. */
  readonly output: string
}

export interface Check {
  readonly name: string
  readonly run: (root?: string) => CheckResult
}

const tool = (name: string, args: ReadonlyArray<string>) => (root = ROOT): CheckResult => {
  const result = spawnSync(join(ROOT, "node_modules", ".bin", name), args, {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  const output = `${result.error?.message ?? ""}${result.stdout}${result.stderr}`.trim()
  return { ok: result.status === 0, output: `${name} ${args.join(" ")}: exit ${result.status}\n${output}` }
}

/** Source files: code (TypeScript, JavaScript), shell scripts and style sheets; not the built dist/. */
const SOURCE = /\.(?:[cm]?[jt]sx?|sh|css)$|^\.ci\/run$/
const BUILT = /^(?:plugin\/)?dist\//

/** Tracked and untracked (not ignored) source files, relative to `root`. */
const sourceFiles = (root: string): Array<string> => {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${root}: ${listed.stderr}`)
  return [...new Set(listed.stdout.split("\0"))].filter((file) => SOURCE.test(file) && !BUILT.test(file)).sort()
}

/** Each line wider than MAX_WIDTH characters (code points), as `file:line: width`. */
export const wideLines = (root = ROOT): Array<string> =>
  sourceFiles(root).flatMap((file) => {
    let text: string
    try {
      text = readFileSync(join(root, file), "utf8")
    } catch {
      return [] // listed by git but deleted from the work tree
    }
    return text.split("\n").flatMap((line, index) => {
      const width = [...line].length
      return width > MAX_WIDTH ? [`${file}:${index + 1}: ${width} characters`] : []
    })
  })

export const CHECKS: ReadonlyArray<Check> = [
  { name: "format", run: tool("dprint", ["check", "--list-different"]) },
  { name: "lint", run: tool("oxlint", ["--type-aware", "--deny-warnings", "--format", "unix"]) },
  {
    name: "width",
    run: (root = ROOT) => {
      const wide = wideLines(root)
      return { ok: wide.length === 0, output: `${wide.length} lines over ${MAX_WIDTH} characters\n${wide.join("\n")}` }
    }
  }
]

if (import.meta.main === true || process.argv[1]?.endsWith("lint.ts") === true) {
  let failed = 0
  for (const check of CHECKS) {
    const result = check.run()
    if (result.ok) console.log(`${check.name}: ok`)
    else {
      failed++
      console.error(`${check.name}: failed\n${result.output}\n`)
    }
  }
  if (failed > 0) {
    console.error(`${failed} of ${CHECKS.length} checks failed (npm run format fixes the formatting).`)
    process.exitCode = 1
  }
}
