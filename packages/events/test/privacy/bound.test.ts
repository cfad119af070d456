import { describe, expect, it } from "vitest"
import { boundForScan, SCAN_BUDGET, SCAN_EDGE } from "../../src/privacy/index.ts"

describe("boundForScan", () => {
  it("keeps a long string's head and tail around a cut that says how much went", () => {
    const text = "HEAD" + "x".repeat(3 * SCAN_EDGE) + "TAIL"
    const bounded = boundForScan({ tool_response: { stdout: text } }) as { tool_response: { stdout: string } }
    const stdout = bounded.tool_response.stdout
    expect(stdout.startsWith("HEAD")).toBe(true)
    expect(stdout.endsWith("TAIL")).toBe(true)
    expect(stdout).toContain(`[${text.length - 2 * SCAN_EDGE} characters cut before scanning]`)
    expect(stdout.length).toBeLessThan(2 * SCAN_EDGE + 100)
  })

  it("leaves a payload within its bounds as it was, without changing the input", () => {
    const input = {
      session_id: "s",
      tool_input: { command: "ls" },
      tool_response: { stdout: "a\nb", items: [1, "two", null, { ok: true }] }
    }
    const copy = structuredClone(input)
    expect(boundForScan(input)).toEqual(input)
    expect(input).toEqual(copy)
  })

  it("cuts what is nested past the budget, but never a top-level field", () => {
    const items = Array.from({ length: 2 * SCAN_BUDGET / 1000 }, (_, i) => `${i}:` + "y".repeat(1000))
    const bounded = boundForScan({ tool_response: { items }, tool_use_id: "toolu_1" }) as {
      tool_response: { items: Array<string> }
      tool_use_id: string
    }
    expect(bounded.tool_use_id).toBe("toolu_1")
    const kept = bounded.tool_response.items.filter((item) => !item.includes("cut before scanning"))
    expect(kept.length).toBeGreaterThan(SCAN_BUDGET / 1100)
    expect(kept.length).toBeLessThan(SCAN_BUDGET / 900)
    expect(bounded.tool_response.items[0]).toBe(items[0])
    expect(bounded.tool_response.items).toHaveLength(kept.length + 1)
    expect(bounded.tool_response.items.at(-1)).toBe(
      `… [${items.length - kept.length} more items cut before scanning] …`
    )
  })

  it("handles deep nesting without overflowing the stack", () => {
    let value: unknown = "leaf"
    for (let i = 0; i < 100_000; i++) value = [value]
    let bounded = boundForScan(value)
    for (let i = 0; i < 100_000; i++) bounded = (bounded as Array<unknown>)[0]
    expect(bounded).toBe("leaf")
  })

  it("cuts an object's fields past the budget into one marker field", () => {
    const fields = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`f${i}`, "z".repeat(1000)]))
    const bounded = boundForScan({ data: fields }) as { data: Record<string, string> }
    const keys = Object.keys(bounded.data)
    expect(keys.length).toBeLessThan(1100)
    expect(bounded.data["…"]).toMatch(/^… \[\d+ more fields cut before scanning\] …$/)
  })
})
