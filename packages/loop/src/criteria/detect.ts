/**
 * Finds the command that checks a criterion for a project, from the files at its root.
 *
 * Order: what the project declares (package.json scripts, Makefile targets) wins over ecosystem conventions
 * (tsconfig.json, Cargo.toml, go.mod, pyproject.toml / pytest.ini), because a declared script is how the
 * project's own people run that check.
 */
import type { CriterionKind } from "@ralph-mem/events"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

/** The kinds a project can answer for; `custom` needs an explicit command and `marker` runs nothing. */
export type DetectableKind = Extract<CriterionKind, "test_pass" | "build_success" | "lint_clean" | "type_check">

export type Argv = ReadonlyArray<string>

export const isDetectableKind = (kind: CriterionKind): kind is DetectableKind =>
  kind === "test_pass" || kind === "build_success" || kind === "lint_clean" || kind === "type_check"

export const detectCommand = (kind: CriterionKind, projectRoot: string): Argv | undefined => {
  if (!isDetectableKind(kind)) return undefined
  const project = new ProjectFiles(projectRoot)
  for (const detector of detectors) {
    const command = detector(kind, project)
    if (command !== undefined) return command
  }
  return undefined
}

type Detector = (kind: DetectableKind, project: ProjectFiles) => Argv | undefined

/** Reads each root file at most once; a missing or unreadable file reads as undefined. */
class ProjectFiles {
  private readonly cache = new Map<string, string | undefined>()
  private readonly root: string

  constructor(root: string) {
    this.root = root
  }

  has(name: string): boolean {
    return existsSync(join(this.root, name))
  }

  read(name: string): string | undefined {
    if (!this.cache.has(name)) {
      let text: string | undefined
      try {
        text = readFileSync(join(this.root, name), "utf8")
      } catch {
        text = undefined
      }
      this.cache.set(name, text)
    }
    return this.cache.get(name)
  }
}

// --- package.json scripts -------------------------------------------------------------------------------------

const scriptNames: Record<DetectableKind, ReadonlyArray<string>> = {
  test_pass: ["test"],
  build_success: ["build"],
  lint_clean: ["lint"],
  type_check: ["typecheck", "type-check", "tsc"]
}

/** `npm init` writes this placeholder; running it can only fail, so it does not count as a test script. */
const NPM_PLACEHOLDER_TEST = /no test specified/

const packageScripts = (project: ProjectFiles): Record<string, string> => {
  const text = project.read("package.json")
  if (text === undefined) return {}
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== "object" || parsed === null || !("scripts" in parsed)) return {}
    const scripts: unknown = parsed.scripts
    if (typeof scripts !== "object" || scripts === null) return {}
    const result: Record<string, string> = {}
    for (const [name, body] of Object.entries(scripts)) if (typeof body === "string") result[name] = body
    return result
  } catch {
    return {}
  }
}

type PackageManager = "npm" | "pnpm" | "yarn" | "bun"

const packageManagerOf = (project: ProjectFiles): PackageManager => {
  if (project.has("pnpm-lock.yaml")) return "pnpm"
  if (project.has("yarn.lock")) return "yarn"
  if (project.has("bun.lockb") || project.has("bun.lock")) return "bun"
  return "npm"
}

const runScript = (manager: PackageManager, script: string): Argv => {
  switch (manager) {
    // --silent drops npm's banner and its "log written to <timestamped path>" lines, which would add noise to
    // the output tail and to failure fingerprints.
    case "npm":
      return ["npm", "run", "--silent", script]
    // `bun test` is bun's own test runner, not the script: `bun run` always means the package.json script.
    case "bun":
      return ["bun", "run", script]
    case "pnpm":
    case "yarn":
      return [manager, "run", script]
  }
}

const fromPackageScripts: Detector = (kind, project) => {
  const scripts = packageScripts(project)
  const name = scriptNames[kind].find((candidate) => {
    const body = scripts[candidate]
    return body !== undefined && body.trim() !== "" && !(candidate === "test" && NPM_PLACEHOLDER_TEST.test(body))
  })
  return name === undefined ? undefined : runScript(packageManagerOf(project), name)
}

// --- Makefile targets -----------------------------------------------------------------------------------------

const makeTargets: Record<DetectableKind, string> = {
  test_pass: "test",
  build_success: "build",
  lint_clean: "lint",
  type_check: "typecheck"
}

const MAKEFILE_NAMES = ["GNUmakefile", "makefile", "Makefile"]

/** Targets named at the start of a rule line (`test:` or `test build: deps`), not variables (`X := 1`). */
const makefileTargets = (text: string): ReadonlySet<string> => {
  const targets = new Set<string>()
  for (const line of text.split(/\r?\n/)) {
    const rule = /^([A-Za-z0-9_.\-/ ]+?)\s*::?(?![=:])/.exec(line)
    if (rule?.[1] !== undefined) { for (const target of rule[1].trim().split(/\s+/)) targets.add(target) }
  }
  return targets
}

const fromMakefile: Detector = (kind, project) => {
  const makefile = MAKEFILE_NAMES.find((name) => project.read(name) !== undefined)
  if (makefile === undefined) return undefined
  const target = makeTargets[kind]
  return makefileTargets(project.read(makefile) ?? "").has(target) ? ["make", target] : undefined
}

// --- ecosystem conventions ------------------------------------------------------------------------------------

/**
 * `--no` makes npx fail instead of installing when TypeScript is not a local dependency: without it, a non-TTY
 * npx silently installs the unrelated npm package named `tsc`.
 */
const fromTsconfig: Detector = (kind, project) =>
  kind === "type_check" && project.has("tsconfig.json") ? ["npx", "--no", "tsc", "--noEmit"] : undefined

const cargoCommands: Record<DetectableKind, Argv> = {
  test_pass: ["cargo", "test"],
  build_success: ["cargo", "build"],
  // clippy exits 0 on warnings unless they are denied; "lint clean" means no warnings either.
  lint_clean: ["cargo", "clippy", "--", "-D", "warnings"],
  type_check: ["cargo", "check"]
}

const fromCargo: Detector = (kind, project) => (project.has("Cargo.toml") ? cargoCommands[kind] : undefined)

const goCommands: Record<DetectableKind, Argv> = {
  test_pass: ["go", "test", "./..."],
  build_success: ["go", "build", "./..."],
  lint_clean: ["go", "vet", "./..."],
  // Compiling is Go's type check; vet would also fail on style findings that are not type errors.
  type_check: ["go", "build", "./..."]
}

const fromGoModule: Detector = (kind, project) => (project.has("go.mod") ? goCommands[kind] : undefined)

const pythonCommands: Partial<Record<DetectableKind, Argv>> = {
  test_pass: ["pytest"],
  lint_clean: ["ruff", "check"],
  type_check: ["mypy", "."]
}

/** pyproject.toml marks a Python project (all three tools); a lone pytest.ini only says how to run tests. */
const fromPython: Detector = (kind, project) => {
  if (project.has("pyproject.toml")) return pythonCommands[kind]
  if (project.has("pytest.ini") && kind === "test_pass") return pythonCommands.test_pass
  return undefined
}

const detectors: ReadonlyArray<Detector> = [
  fromPackageScripts,
  fromMakefile,
  fromTsconfig,
  fromCargo,
  fromGoModule,
  fromPython
]
