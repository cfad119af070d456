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
