import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { acceptProjectFile, writeSetting } from "../src/index.ts"
import { machine } from "./fixture.ts"

const commented = [
  "# ralph-mem settings for this project",
  "memory:",
  "  # a smaller model",
  "  context_window: 100000 # tokens",
  "  task: 0.3",
  "",
  "loop:",
  "  max_iterations: 5 # keep it short",
  ""
].join("\n")

/** Asserts the file is byte-for-byte what it was, and returns the problems. */
const refused = (file: string, key: string, value: string): ReadonlyArray<string> => {
  const before = existsSync(file) ? readFileSync(file, "utf8") : undefined
  const { problems } = writeSetting({ file, key, value })
  expect(problems.length).toBeGreaterThan(0)
  expect(existsSync(file) ? readFileSync(file, "utf8") : undefined).toBe(before)
  return problems
}

describe("writeSetting changes one key and keeps the rest of the file", () => {
  it("replaces a value in place, keeping comments, order and other keys", () => {
    const m = machine()
    m.write(m.projectFile, commented)
    expect(writeSetting({ file: m.projectFile, key: "memory.context_window", value: "150000" })).toEqual({
      problems: []
    })
    expect(readFileSync(m.projectFile, "utf8")).toBe(commented.replace("100000", "150000"))
  })

  it("adds a missing key to its section and a missing section at the end", () => {
    const m = machine()
    m.write(m.projectFile, commented)
    for (
      const [key, value] of [
        ["loop.max_duration", "2h"],
        ["memory.search.recency_weight", "0.5"],
        ["backup.keep", "3"]
      ] as const
    ) {
      expect(writeSetting({ file: m.projectFile, key, value })).toEqual({ problems: [] })
    }
    const text = readFileSync(m.projectFile, "utf8")
    expect(text).toContain(
      "# ralph-mem settings for this project\nmemory:\n  # a smaller model\n  context_window: 100000 # tokens\n"
    )
    expect(text).toContain("  max_iterations: 5 # keep it short\n  max_duration: 2h\n")
    expect(text).toContain("  search:\n    recency_weight: 0.5\n")
    expect(text.endsWith("backup:\n  keep: 3\n")).toBe(true)
    expect(m.load().settings).toMatchObject({
      memory: { contextWindow: 100_000, search: { recencyWeight: 0.5 } },
      loop: { maxIterations: 5, maxDurationMs: 7_200_000 },
      backup: { keep: 3 }
    })
  })

  it("reads the value as YAML: numbers, null and lists", () => {
    const m = machine()
    const writes = [
      ["memory.injected_memory", "0.1"],
      ["loop.max_duration", "30m"],
      ["loop.max_duration", "null"],
      ["loop.success_criteria", "[{type: custom, command: [npm, test]}]"]
    ] as const
    for (const [key, value] of writes) {
      expect(writeSetting({ file: m.projectFile, key, value })).toEqual({ problems: [] })
    }
    // The criteria hold a command: they apply once the user accepts the file (trust.test.ts).
    acceptProjectFile(m.load().files)
    const { settings, problems } = m.load()
    expect(problems).toEqual([])
    expect(settings.memory.injectedMemory).toBe(0.1)
    expect(settings.loop.maxDurationMs).toBeNull()
    expect(settings.loop.successCriteria).toEqual([{ type: "custom", command: ["npm", "test"], expectedExitCode: 0 }])
  })

  it("creates a missing file private (0600) in a private folder (0700)", () => {
    const m = machine()
    expect(writeSetting({ file: m.globalFile, key: "backup.keep", value: "2" })).toEqual({ problems: [] })
    expect(readFileSync(m.globalFile, "utf8")).toBe("backup:\n  keep: 2\n")
    expect(statSync(m.globalFile).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(m.globalFile)).mode & 0o777).toBe(0o700)
    expect(m.load().settings.backup.keep).toBe(2)
  })

  it("keeps the global file's mode; a project's file, in its memory folder, is made 0600", () => {
    const m = machine()
    m.write(m.globalFile, commented)
    chmodSync(m.globalFile, 0o644)
    writeSetting({ file: m.globalFile, key: "loop.max_iterations", value: "8" })
    expect(statSync(m.globalFile).mode & 0o777).toBe(0o644)
    m.write(m.projectFile, commented)
    chmodSync(m.projectFile, 0o644)
    writeSetting({ file: m.projectFile, key: "loop.max_iterations", value: "8" })
    expect(statSync(m.projectFile).mode & 0o777).toBe(0o600)
  })

  it("writes the global file through a symlink (dotfile managers), leaving the link in place", () => {
    const m = machine()
    const real = join(m.home, "dotfiles", "ralph-mem.yaml")
    m.write(real, commented)
    mkdirSync(dirname(m.globalFile), { recursive: true })
    symlinkSync(real, m.globalFile)
    writeSetting({ file: m.globalFile, key: "loop.max_iterations", value: "8" })
    expect(readFileSync(real, "utf8")).toContain("max_iterations: 8 # keep it short")
  })

  it("never writes a project's file through a link (a repository may have planted it)", () => {
    const m = machine()
    const target = join(m.home, ".bashrc")
    m.write(target, "# shell start-up\n")
    mkdirSync(dirname(m.projectFile), { recursive: true })
    symlinkSync(target, m.projectFile)
    const { problems } = writeSetting({ file: m.projectFile, key: "loop.max_iterations", value: "8" })
    expect(problems[0]).toContain("symbolic link")
    expect(readFileSync(target, "utf8")).toBe("# shell start-up\n")
  })

  it("fills a section left empty, keeping its comments", () => {
    const m = machine()
    m.write(m.projectFile, "memory: # later\nloop:\n  max_iterations: 3\n")
    expect(writeSetting({ file: m.projectFile, key: "memory.task", value: "0.2" })).toEqual({ problems: [] })
    const text = readFileSync(m.projectFile, "utf8")
    expect(text).toContain("memory:\n  task: 0.2\n")
    expect(text).toContain("# later")
    expect(m.load().settings.memory.task).toBe(0.2)
  })

  it("lowers a share in a file already over budget", () => {
    const m = machine()
    m.write(m.projectFile, "memory:\n  task: 0.6\n")
    expect(writeSetting({ file: m.projectFile, key: "memory.task", value: "0.55" })).toEqual({ problems: [] })
  })
})

describe("writeSetting refuses, leaving the file untouched", () => {
  it("an unknown key, suggesting the nearest", () => {
    const m = machine()
    m.write(m.projectFile, commented)
    expect(refused(m.projectFile, "memory.contxt_window", "1")).toEqual([
      `${m.projectFile}: unknown key memory.contxt_window; did you mean memory.context_window? (not changed)`
    ])
    expect(refused(m.projectFile, "memory", "1")).toEqual([`${m.projectFile}: unknown key memory (not changed)`])
  })

  it("an invalid value, naming the file and the key", () => {
    const m = machine()
    m.write(m.projectFile, commented)
    expect(refused(m.projectFile, "memory.injected_memory", "lots")).toEqual([
      `${m.projectFile}: memory.injected_memory: expected a number between 0 and 1,`
      + " got a string of 4 characters (not changed)"
    ])
    expect(refused(m.projectFile, "loop.max_duration", "30")).toEqual([
      `${m.projectFile}: loop.max_duration: expected a duration like "90s", "30m" or "2h",`
      + " or null for no limit, got 30 (not changed)"
    ])
  })

  it("a value that is not YAML", () => {
    const m = machine()
    const [problem] = refused(m.projectFile, "loop.success_criteria", "[{type: custom")
    expect(problem).toMatch(
      new RegExp(`^${m.projectFile}: loop.success_criteria: the value is not valid YAML \\(.+\\) \\(not changed\\)$`)
    )
    expect(existsSync(m.projectFile)).toBe(false)
  })

  it("a criterion with an unknown key", () => {
    const m = machine()
    expect(refused(m.projectFile, "loop.success_criteria", "[{type: custom, command: make, timout: 5m}]")).toEqual([
      `${m.projectFile}: unknown key loop.success_criteria[0].timout; did you mean timeout? (not changed)`
    ])
  })

  it("a share that would push the budget over 1", () => {
    const m = machine()
    m.write(m.projectFile, commented)
    expect(refused(m.projectFile, "memory.injected_memory", "0.3")).toEqual([
      `${m.projectFile}: memory.system + memory.injected_memory + memory.task + memory.response must be at most 1, ` +
      "got 1.1 (0.1 + 0.3 + 0.3 + 0.4); lower another share first (not changed)"
    ])
  })

  it("a file that is not valid YAML, or not a mapping", () => {
    const m = machine()
    m.write(m.projectFile, "memory: [1\n")
    expect(refused(m.projectFile, "memory.task", "0.2")[0]).toMatch(/: not valid YAML \(.+\) \(not changed\)$/)
    m.write(m.projectFile, "- a\n")
    expect(refused(m.projectFile, "memory.task", "0.2")).toEqual([
      `${m.projectFile}: expected a mapping of settings at the top, got a list (not changed)`
    ])
  })

  it("a key whose section is a scalar", () => {
    const m = machine()
    m.write(m.projectFile, "memory: 5\n")
    expect(refused(m.projectFile, "memory.task", "0.2")).toEqual([
      `${m.projectFile}: memory: is not a mapping, so memory.task cannot be set (not changed)`
    ])
  })
})
