/**
 * A project moved or renamed with its memory folder: memory is read by the project root as it is now, so what
 * was recorded at the old place is out of reach of searches. That must never be silent: `doctor` says so, names
 * the old place and how to reach it. Real hook processes, the real CLI, a real folder renamed.
 */
import { mkdirSync, renameSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"

const PLANTED = "ZEBRA-QUOKKA-4412"

/** A git project at `root` with one session that recorded a failure naming PLANTED. */
const recordAt = (root: string, session: string, env: Record<string, string> = {}) => {
  mkdirSync(join(root, ".git"), { recursive: true })
  const hook = (event: string, fields: Record<string, unknown>) =>
    expect(runHookProcess(event, payload(event, session, root, fields), { cwd: root, env }).code).toBe(0)
  hook("SessionStart", { source: "startup" })
  hook("PostToolUseFailure", {
    tool_name: "Bash",
    tool_input: { command: "npm test" },
    tool_use_id: "t1",
    error: `Exit code 1\n${PLANTED} timeout in the payment gateway`
  })
}

const cli = (root: string, args: ReadonlyArray<string>, env: Record<string, string> = { RALPH_MEM_DB: "" }) => {
  const result = runCli(args, { cwd: root, env })
  expect(result.stderr, args.join(" ")).toBe("")
  return result
}

interface Check {
  readonly check: string
  readonly ok: boolean
  readonly note?: boolean
  readonly detail: string
}

const doctor = (root: string, env?: Record<string, string>) => {
  const result = cli(root, ["doctor", "--json"], env)
  expect(result.code).toBe(0)
  return (JSON.parse(result.stdout) as { checks: Array<Check> }).checks
}

describe("a project moved with its memory", () => {
  it("doctor says that what was recorded at the old place is out of the searches' reach, and how to reach it", () => {
    const parent = tempFolder()
    const before = join(parent, "shop")
    recordAt(before, "s1")
    expect(doctor(before).map((c) => c.check)).not.toContain("project location")
    expect(cli(before, ["search", PLANTED]).stdout).toContain(PLANTED)
    expect(JSON.parse(cli(before, ["status", "--json"]).stdout)).toMatchObject({ recordedElsewhere: [] })

    const after = join(parent, "shop-renamed")
    renameSync(before, after)
    // What the note is about: the project's searches no longer see the old session.
    expect(cli(after, ["search", PLANTED]).stdout).toContain(`Nothing found for "${PLANTED}"`)
    expect(cli(after, ["search", "--all-projects", PLANTED]).stdout).toContain(PLANTED)

    const note = doctor(after).find((c) => c.check === "project location")
    expect(note).toMatchObject({ ok: true, note: true })
    expect(note?.detail).toContain(
      `1 session(s) of this memory were recorded with the project at another place: ${before} (1,`
    )
    expect(note?.detail).toContain(`It is now at ${after}`)
    expect(note?.detail).toContain("ralph-mem search --all-projects")
    const status = JSON.parse(cli(after, ["status", "--json"]).stdout) as {
      recordedElsewhere: Array<{ projectPath: string; sessions: number }>
    }
    expect(status.recordedElsewhere).toMatchObject([{ projectPath: before, sessions: 1 }])
    expect(cli(after, ["status"]).stdout).toContain(`recorded elsewhere  1 session(s) at ${before}`)
    const printed = cli(after, ["doctor"])
    expect(printed.code).toBe(0)
    expect(printed.stdout).toMatch(/^NOTE {2}project location: 1 session\(s\)/m)
  })

  it("says nothing of a database shared by several projects, which holds other roots by design", () => {
    const parent = tempFolder()
    const shared = { RALPH_MEM_DB: join(parent, "shared", "memory.db") }
    mkdirSync(join(parent, "shared"), { mode: 0o700 })
    recordAt(join(parent, "one"), "s1", shared)
    recordAt(join(parent, "two"), "s2", shared)
    // Both sessions are in it, each under its own root.
    expect(cli(join(parent, "two"), ["search", "--all-projects", PLANTED], shared).stdout).toContain("2 result(s)")
    expect(doctor(join(parent, "two"), shared).map((c) => c.check)).not.toContain("project location")
  })
})
