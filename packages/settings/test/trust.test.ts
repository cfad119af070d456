/**
 * A project's config file may have come with a clone: what would make ralph-mem run a command applies
 * only once the user accepts the file as it is (`ralph-mem config trust`).
 */
import { appendFileSync, readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { acceptProjectFile, defaultSettings, keepAccepted, writeSetting } from "../src/index.ts"
import { machine } from "./fixture.ts"

const PLANTED = "$(touch ~/pwned)"
const withCommand = [
  "memory:",
  "  context_window: 5000",
  `  system: "${PLANTED}"`,
  `  "${PLANTED}": 3`,
  "loop:",
  "  success_criteria:",
  "    - type: custom",
  "      command: make deploy",
  ""
].join("\n")

describe("a project's config file the user has not accepted", () => {
  it("ignores criteria with commands, applies harmless keys, and says so without repeating any value", () => {
    const m = machine()
    m.write(m.projectFile, withCommand)
    const loaded = m.load()
    expect(loaded.settings.memory.contextWindow).toBe(5000)
    expect(loaded.settings.loop.successCriteria).toEqual(defaultSettings.loop.successCriteria)
    expect(loaded.untrusted).toEqual([
      `${m.projectFile}: loop.success_criteria sets commands to run, ignored until you accept this file ` +
      "(it may have come with the repository): review it, then run `ralph-mem config trust`"
    ])
    const expected = "memory.system: expected a number between 0 and 1, got a string of 16 characters"
    expect(loaded.problems).toEqual([
      `${m.projectFile}: ${expected}`,
      `${m.projectFile}: memory: an unknown key of 16 characters, not a plain name`
    ])
    expect(JSON.stringify(loaded)).not.toContain("touch ~/pwned")
  })

  it("needs no accepting for criteria without a command of their own", () => {
    const m = machine()
    m.write(m.projectFile, "loop:\n  success_criteria:\n    - type: lint_clean\n")
    const loaded = m.load()
    expect(loaded.untrusted).toEqual([])
    expect(loaded.settings.loop.successCriteria).toEqual([{ type: "lint_clean", expectedExitCode: 0 }])
  })

  it("applies the global file's commands: it is the user's own", () => {
    const m = machine()
    m.write(m.globalFile, "loop:\n  success_criteria:\n    - type: custom\n      command: make check\n")
    const loaded = m.load()
    expect(loaded.untrusted).toEqual([])
    expect(loaded.settings.loop.successCriteria[0]?.command).toBe("make check")
  })
})

describe("limits in a project's config file the user has not accepted", () => {
  const raising = [
    "memory:",
    "  context_window: 10000000",
    "  injected_memory: 0.5",
    "  max_observation_chars: 1000000",
    "loop:",
    "  max_iterations: 100000",
    "  max_cost_usd: 1000",
    "  no_progress_threshold: 1000",
    "backup:",
    "  keep: 100000",
    "  interval: 1s",
    ""
  ].join("\n")

  it("may tighten a limit, never loosen one past the user's own settings or the defaults", () => {
    const m = machine()
    m.write(m.projectFile, raising)
    const loaded = m.load()
    // A cost limit where the user set none tightens: it applies.
    expect(loaded.settings).toEqual({ ...defaultSettings, loop: { ...defaultSettings.loop, maxCostUsd: 1000 } })
    expect(loaded.untrusted).toEqual([
      `${m.projectFile}: memory.context_window, memory.injected_memory, memory.max_observation_chars, ` +
      "loop.max_iterations, loop.no_progress_threshold, backup.keep, backup.interval raise limits past your own " +
      "settings, ignored until you accept this file (it may have come with the repository): review it, then run " +
      "`ralph-mem config trust`"
    ])

    // Lower limits apply at once, and so does a limit where the user set none (no cost limit by default).
    const tighter = machine()
    tighter.write(
      tighter.projectFile,
      "loop:\n  max_iterations: 3\n  max_cost_usd: 5\n  max_duration: 30m\nbackup:\n  interval: 2h\n"
    )
    const applied = tighter.load()
    expect(applied.untrusted).toEqual([])
    expect(applied.settings.loop).toMatchObject({ maxIterations: 3, maxCostUsd: 5, maxDurationMs: 1_800_000 })
    expect(applied.settings.backup.intervalMs).toBe(7_200_000)
  })

  it("judges a limit against the user's global file, and removing one (null) loosens it", () => {
    const m = machine()
    m.write(m.globalFile, "loop:\n  max_iterations: 50\n  max_cost_usd: 20\n")
    m.write(m.projectFile, "loop:\n  max_iterations: 40\n  max_cost_usd: null\n")
    const loaded = m.load()
    expect(loaded.settings.loop).toMatchObject({ maxIterations: 40, maxCostUsd: 20 })
    expect(loaded.untrusted).toEqual([
      `${m.projectFile}: loop.max_cost_usd raises a limit past your own settings, ignored until you accept this ` +
      "file (it may have come with the repository): review it, then run `ralph-mem config trust`"
    ])
  })

  it("names commands and raised limits in one finding, and applies both once the file is accepted", () => {
    const m = machine()
    m.write(m.projectFile, `${withCommand}  max_iterations: 30\n`)
    expect(m.load().untrusted).toEqual([
      `${m.projectFile}: loop.success_criteria sets commands to run and loop.max_iterations raises a limit past ` +
      "your own settings, ignored until you accept this file (it may have come with the repository): review it, " +
      "then run `ralph-mem config trust`"
    ])
    const { acceptance } = acceptProjectFile(m.load().files)
    expect(acceptance?.accepted.map((a) => a.key)).toEqual(["loop.success_criteria", "loop.max_iterations"])
    const loaded = m.load()
    expect(loaded.untrusted).toEqual([])
    expect(loaded.settings.loop.maxIterations).toBe(30)
  })

  it("leaves the environment's limits alone: they are the user's own", () => {
    const m = machine()
    m.write(m.projectFile, "loop:\n  max_iterations: 100000\n")
    const loaded = m.load({ RALPH_MEM_MAX_ITERATIONS: "200" })
    expect(loaded.settings.loop.maxIterations).toBe(200)
  })
})

describe("accepting a project's config file", () => {
  it("applies it as it is, records a hash outside the project (0600), and a later change needs accepting again", () => {
    const m = machine()
    m.write(m.projectFile, withCommand)
    const { acceptance } = acceptProjectFile(m.load().files)
    const criteria = [{ type: "custom", command: "make deploy" }]
    expect(acceptance?.accepted).toEqual([{ key: "loop.success_criteria", value: criteria }])
    // Beside the global config file: <config home>/ralph-mem/trusted-projects.json, as the README says.
    const store = join(dirname(m.globalFile), "trusted-projects.json")
    expect(JSON.parse(readFileSync(store, "utf8"))).toEqual({ [m.projectFile]: acceptance?.sha256 })
    expect(statSync(store).mode & 0o777).toBe(0o600)
    expect(m.load().untrusted).toEqual([])
    expect(m.load().settings.loop.successCriteria[0]?.command).toBe("make deploy")

    appendFileSync(m.projectFile, "# changed by a later pull\n")
    expect(m.load().untrusted).toHaveLength(1)
    expect(m.load().settings.loop.successCriteria).toEqual(defaultSettings.loop.successCriteria)
  })

  it("refuses to accept a file that does not exist", () => {
    const m = machine()
    expect(acceptProjectFile(m.load().files).problem).toContain("nothing to accept")
  })

  it("keeps a file ralph-mem config writes accepted only if it was accepted before", () => {
    const m = machine()
    // Written by `ralph-mem config` from nothing: the user's own.
    const before = m.load()
    writeSetting({ file: m.projectFile, key: "loop.success_criteria", value: "[{type: custom, command: make check}]" })
    keepAccepted(before.files, before.untrusted.length === 0)
    expect(m.load().untrusted).toEqual([])
    expect(m.load().settings.loop.successCriteria[0]?.command).toBe("make check")

    // A cloned file with a command: changing another key does not accept it.
    const cloned = machine()
    cloned.write(cloned.projectFile, withCommand)
    const loaded = cloned.load()
    writeSetting({ file: cloned.projectFile, key: "memory.context_window", value: "6000" })
    keepAccepted(loaded.files, loaded.untrusted.length === 0)
    expect(cloned.load().untrusted).toHaveLength(1)
    expect(cloned.load().settings.memory.contextWindow).toBe(6000)
  })
})
