import type { CriterionKind } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { detectCommand } from "../../src/criteria/index.ts"
import { tempProject } from "./helpers.ts"

const packageJson = (scripts: Record<string, string>) => JSON.stringify({ name: "fixture", scripts })
const allScripts = packageJson({ test: "vitest run", build: "tsc -b", lint: "eslint .", typecheck: "tsc --noEmit" })

describe("detectCommand: package.json scripts through the project's package manager", () => {
  it.each(
    [
      ["no lockfile", {}, "npm"],
      ["package-lock.json", { "package-lock.json": "{}" }, "npm"],
      ["pnpm-lock.yaml", { "pnpm-lock.yaml": "" }, "pnpm"],
      ["yarn.lock", { "yarn.lock": "" }, "yarn"],
      ["bun.lockb", { "bun.lockb": "" }, "bun"],
      ["bun.lock", { "bun.lock": "{}" }, "bun"]
    ] as const
  )("%s -> %s", (_, lockfiles, manager) => {
    const root = tempProject({ "package.json": allScripts, ...lockfiles })
    const run = (script: string) => (manager === "npm" ? ["npm", "run", "--silent", script] : [manager, "run", script])
    expect(detectCommand("test_pass", root)).toEqual(run("test"))
    expect(detectCommand("build_success", root)).toEqual(run("build"))
    expect(detectCommand("lint_clean", root)).toEqual(run("lint"))
    expect(detectCommand("type_check", root)).toEqual(run("typecheck"))
  })

  it.each(["type-check", "tsc"])("finds a type check script named %s", (name) => {
    const root = tempProject({ "package.json": packageJson({ [name]: "tsc --noEmit" }), "tsconfig.json": "{}" })
    expect(detectCommand("type_check", root)).toEqual(["npm", "run", "--silent", name])
  })

  it("ignores npm init's placeholder test script and empty scripts", () => {
    const root = tempProject({
      "package.json": packageJson({ test: `echo "Error: no test specified" && exit 1`, build: " " })
    })
    expect(detectCommand("test_pass", root)).toBeUndefined()
    expect(detectCommand("build_success", root)).toBeUndefined()
  })

  it("survives a package.json that is not valid JSON", () => {
    const root = tempProject({ "package.json": "{ nope" })
    expect(detectCommand("test_pass", root)).toBeUndefined()
  })
})

describe("detectCommand: ecosystem conventions", () => {
  it("a tsconfig.json without a type check script -> tsc --noEmit, never installing a package named tsc", () => {
    const root = tempProject({ "package.json": packageJson({ test: "vitest run" }), "tsconfig.json": "{}" })
    expect(detectCommand("type_check", root)).toEqual(["npx", "--no", "tsc", "--noEmit"])
    expect(detectCommand("test_pass", root)).toEqual(["npm", "run", "--silent", "test"])
    expect(detectCommand("lint_clean", root)).toBeUndefined()
  })

  it("Cargo.toml -> cargo", () => {
    const root = tempProject({ "Cargo.toml": `[package]\nname = "fixture"\n` })
    expect(detectCommand("test_pass", root)).toEqual(["cargo", "test"])
    expect(detectCommand("build_success", root)).toEqual(["cargo", "build"])
    expect(detectCommand("lint_clean", root)).toEqual(["cargo", "clippy", "--", "-D", "warnings"])
    expect(detectCommand("type_check", root)).toEqual(["cargo", "check"])
  })

  it("go.mod -> go", () => {
    const root = tempProject({ "go.mod": "module example.com/fixture\n\ngo 1.23\n" })
    expect(detectCommand("test_pass", root)).toEqual(["go", "test", "./..."])
    expect(detectCommand("build_success", root)).toEqual(["go", "build", "./..."])
    expect(detectCommand("lint_clean", root)).toEqual(["go", "vet", "./..."])
    expect(detectCommand("type_check", root)).toEqual(["go", "build", "./..."])
  })

  it("pyproject.toml -> pytest, ruff, mypy (no build convention)", () => {
    const root = tempProject({ "pyproject.toml": `[project]\nname = "fixture"\n` })
    expect(detectCommand("test_pass", root)).toEqual(["pytest"])
    expect(detectCommand("lint_clean", root)).toEqual(["ruff", "check"])
    expect(detectCommand("type_check", root)).toEqual(["mypy", "."])
    expect(detectCommand("build_success", root)).toBeUndefined()
  })

  it("a lone pytest.ini only says how to test", () => {
    const root = tempProject({ "pytest.ini": "[pytest]\n" })
    expect(detectCommand("test_pass", root)).toEqual(["pytest"])
    expect(detectCommand("lint_clean", root)).toBeUndefined()
  })

  it("Makefile targets -> make <target>, declared targets winning over conventions", () => {
    const makefile = [
      ".PHONY: test build",
      "CC := gcc",
      "test: build",
      "\tgo test ./...",
      "build:",
      "\tgo build ./...",
      ""
    ].join("\n")
    const root = tempProject({ Makefile: makefile, "go.mod": "module x\n" })
    expect(detectCommand("test_pass", root)).toEqual(["make", "test"])
    expect(detectCommand("build_success", root)).toEqual(["make", "build"])
    // No lint target: the Go convention answers.
    expect(detectCommand("lint_clean", root)).toEqual(["go", "vet", "./..."])
  })

  it("reads rule lines, not variables or recipes", () => {
    const root = tempProject({ Makefile: "X := 1\ntypecheck ::= 2\nall test: deps\n\techo lint: no\nbuild::\n" })
    expect(detectCommand("test_pass", root)).toEqual(["make", "test"])
    expect(detectCommand("build_success", root)).toEqual(["make", "build"])
    expect(detectCommand("lint_clean", root)).toBeUndefined()
    expect(detectCommand("type_check", root)).toBeUndefined()
  })

  it("returns undefined when nothing fits, and for kinds a project cannot answer", () => {
    const empty = tempProject({ "README.md": "# nothing to run" })
    for (const kind of ["test_pass", "build_success", "lint_clean", "type_check"] satisfies Array<CriterionKind>) {
      expect(detectCommand(kind, empty)).toBeUndefined()
    }
    const full = tempProject({ "package.json": allScripts })
    expect(detectCommand("custom", full)).toBeUndefined()
    expect(detectCommand("marker", full)).toBeUndefined()
  })
})
