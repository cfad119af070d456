import { describe, expect, it } from "vitest"
import { stringify } from "yaml"
import { defaultSettings, listSettings, settingKeys, type Settings, settingValue, writeSetting } from "../src/index.ts"
import { machine } from "./fixture.ts"

describe("settingValue", () => {
  it("gives a setting as YAML spells it", () => {
    expect(settingValue(defaultSettings, "memory.context_window")).toBe(200_000)
    expect(settingValue(defaultSettings, "memory.search.recency_half_life_days")).toBe(14)
    expect(settingValue(defaultSettings, "loop.max_duration")).toBeNull()
    expect(settingValue(defaultSettings, "backup.interval")).toBe("1h")
    expect(settingValue(defaultSettings, "loop.success_criteria")).toEqual([{ type: "test_pass" }])
  })

  it("turns durations and criteria back into their YAML form", () => {
    const m = machine()
    m.write(
      m.globalFile,
      "loop:\n  max_duration: 90m\n  success_criteria:\n"
        + "    - {type: custom, command: make, expected_exit_code: 2, timeout: 30s}\n"
    )
    const { settings } = m.load()
    expect(settings.loop.maxDurationMs).toBe(5_400_000)
    expect(settingValue(settings, "loop.max_duration")).toBe("90m")
    expect(settingValue(settings, "loop.success_criteria")).toEqual([{
      type: "custom",
      command: "make",
      expected_exit_code: 2,
      timeout: "30s"
    }])
  })

  it("is undefined for an unknown key or a section", () => {
    expect(settingValue(defaultSettings, "memory.contxt_window")).toBeUndefined()
    expect(settingValue(defaultSettings, "memory")).toBeUndefined()
  })
})

describe("listSettings", () => {
  it("lists every known key once, in order, with its value", () => {
    const listed = listSettings(defaultSettings)
    expect(listed.map((entry) => entry.key)).toEqual(settingKeys())
    expect(listed).toHaveLength(20)
    expect(listed.filter((entry) => entry.key.startsWith("loop.max_"))).toEqual([
      { key: "loop.max_iterations", value: 10 },
      { key: "loop.max_duration", value: null },
      { key: "loop.max_tokens", value: null },
      { key: "loop.max_cost_usd", value: null }
    ])
    expect(listed[0]).toEqual({ key: "memory.context_window", value: 200_000 })
    expect(listed.at(-1)).toEqual({ key: "backup.interval", value: "1h" })
  })

  it("round-trips: writing every listed value to a file and loading it gives the same settings", () => {
    const m = machine()
    const custom: Settings = {
      ...defaultSettings,
      memory: {
        ...defaultSettings.memory,
        contextWindow: 128_000,
        task: 0.3,
        search: { recencyHalfLifeDays: 7, recencyWeight: 0.5 }
      },
      loop: {
        ...defaultSettings.loop,
        maxDurationMs: 7_200_000,
        maxTokens: 2_000_000,
        maxCostUsd: 12.5,
        successCriteria: [{ type: "marker", marker: "DONE", expectedExitCode: 0, timeoutMs: 1_500 }]
      },
      backup: { keep: 2, intervalMs: 7_200_000 }
    }
    for (const { key, value } of listSettings(custom)) {
      expect(writeSetting({ file: m.projectFile, key, value: stringify(value) }).problems).toEqual([])
    }
    expect(m.load()).toMatchObject({ settings: custom, problems: [] })
  })
})
