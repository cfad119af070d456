/**
 * The hook programs (apps/cli/src/hook-programs/): the loader picks a hook's program by the groups' table, so
 * every hook must be in exactly one group, with the handler that `handlers` (every hook's) has for it.
 */
import { handlers, inputs } from "@ralph-mem/hooks"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { hookPrograms } from "../src/hook-programs/groups.ts"

describe("the hook programs", () => {
  it("run every hook, each in one program only", () => {
    const grouped = Object.values(hookPrograms).flat()
    expect([...grouped].sort()).toEqual(Object.keys(inputs).sort())
    expect(new Set(grouped).size).toBe(grouped.length)
  })

  it("each is a module of hook-programs/ exporting main", async () => {
    const folder = join(import.meta.dirname, "..", "src", "hook-programs")
    const modules = readdirSync(folder).filter((f) => f !== "groups.ts")
    expect(modules.map((f) => f.replace(/\.ts$/, "")).sort()).toEqual(Object.keys(hookPrograms).sort())
    for (const group of Object.keys(hookPrograms)) {
      const program = (await import(`../src/hook-programs/${group}.ts`)) as { main: unknown }
      expect(typeof program.main).toBe("function")
    }
  })

  it("have the handlers every hook has", async () => {
    const { promptHandlers, toolCallHandlers, turnEndHandlers } = await import("@ralph-mem/hooks")
    for (const group of [promptHandlers, toolCallHandlers, turnEndHandlers]) {
      for (const [hook, handler] of Object.entries(group)) expect(handler).toBe(handlers[hook as keyof typeof handlers])
    }
  })
})
