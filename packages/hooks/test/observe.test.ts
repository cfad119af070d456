import { describe, expect, it } from "vitest"
import { observeToolFailure, observeToolUse, summarizeInput, trim } from "../src/observe.ts"

const base = { session_id: "s", cwd: "/p" }

describe("observing tool calls", () => {
  it("calls a passing test, build or lint command a success, anything else a tool use", () => {
    const bash = (command: string) =>
      observeToolUse({ ...base, tool_name: "Bash", tool_input: { command }, tool_response: { stdout: "ok" } }, 4000)
        .kind
    expect(["npm test", "pytest -q", "cargo build", "npx tsc --noEmit", "make", "go vet ./..."].map(bash)).toEqual(
      Array(6).fill("success")
    )
    expect(["ls -la", "git status", "echo testing"].map(bash)).toEqual(["tool_use", "tool_use", "tool_use"])
    expect(observeToolUse({ ...base, tool_name: "Read", tool_input: { file_path: "/p/a.ts" } }, 4000).kind).toBe(
      "tool_use"
    )
  })

  it("always calls a failure an error, with its message", () => {
    const failure = observeToolFailure({
      ...base,
      tool_name: "Bash",
      tool_input: { command: "npm test" },
      error: "Exit code 1\nFAIL x",
      is_interrupt: false
    }, 4000)
    expect(failure).toMatchObject({
      kind: "error",
      errorMessage: "Exit code 1 FAIL x",
      content: "Exit code 1\nFAIL x",
      inputSummary: "npm test"
    })
    expect(observeToolFailure({ ...base, tool_name: "Bash", is_interrupt: true }, 4000).errorMessage).toBe(
      "interrupted"
    )
  })

  it("summarises inputs compactly, per tool", () => {
    expect(summarizeInput("Bash", { command: "npm   test\n-- auth" })).toBe("npm test -- auth")
    expect(summarizeInput("Grep", { pattern: "TODO", path: "src" })).toBe("TODO in src")
    expect(summarizeInput("Edit", { file_path: "/p/a.ts", old_string: "x" })).toBe("/p/a.ts")
    expect(summarizeInput("WebFetch", { url: "https://example.com" })).toBe("https://example.com")
    expect(summarizeInput("Mystery", { alpha: 1, beta: 2 })).toBe("alpha, beta")
    expect(summarizeInput("Mystery", "not an object")).toBeUndefined()
    expect(summarizeInput("Bash", { command: "x".repeat(1000) })!.length).toBe(300)
  })

  it("names the files a call touched", () => {
    const files = (tool_name: string, tool_input: unknown, tool_response: unknown) =>
      observeToolUse({ ...base, tool_name, tool_input, tool_response }, 4000).files
    expect(files("Write", { file_path: "/p/a.ts" }, { filePath: "/p/a.ts" })).toEqual(["/p/a.ts"])
    expect(files("Write", { content: "x" }, { filePath: "/p/b.ts" })).toEqual(["/p/b.ts"])
    expect(files("NotebookEdit", { notebook_path: "/p/n.ipynb" }, undefined)).toEqual(["/p/n.ipynb"])
    expect(files("Bash", { command: "rm -rf /" }, "text")).toEqual([])
    const failed = { ...base, tool_name: "Edit", tool_input: { file_path: "/p/c.ts" }, error: "no match" }
    expect(observeToolFailure({ ...failed, is_interrupt: false }, 4000).files).toEqual(["/p/c.ts"])
  })

  it("records what edits and reads did, not whole files", () => {
    const read = observeToolUse({
      ...base,
      tool_name: "Read",
      tool_input: { file_path: "/p/a.ts" },
      tool_response: { file: { filePath: "/p/a.ts", numLines: 120, content: "secret source" } }
    }, 4000)
    expect(read.content).toBe("read /p/a.ts (120 lines)")
    const edit = observeToolUse({
      ...base,
      tool_name: "Edit",
      tool_input: { file_path: "/p/a.ts", old_string: "a", new_string: "b" }
    }, 4000)
    expect(edit.content).toBe("- a\n+ b")
  })

  it("trims long output keeping head and tail, and says how much was cut", () => {
    const long = `HEAD${"m".repeat(10_000)}TAIL`
    const trimmed = trim(long, 1000)
    expect(trimmed.truncated).toBe(true)
    expect(trimmed.content.startsWith("HEAD")).toBe(true)
    expect(trimmed.content.endsWith("TAIL")).toBe(true)
    expect(trimmed.content).toContain("[9008 characters cut]")
    expect(trim("short", 1000)).toEqual({ content: "short", truncated: false })
  })
})
