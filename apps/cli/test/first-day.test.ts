/**
 * What a daily user trips on (issue 18 item 6): loop status times, audit order, search layer 2 grouping,
 * a full Markdown export, memory outside a git repository, one duration grammar.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../../packages/events/test/helpers.ts"
import { config, ended, observation, prompt, started } from "../../../packages/projections/test/events.ts"
import { append, type Given, open } from "../../../packages/projections/test/spec.ts"
import { runCli } from "../../../tests/support/cli.ts"

/** A project folder that is a git repository (a `.git` folder is what marks one). */
const gitProject = (): string => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

describe("ralph status", () => {
  it("shows how long ago a loop started and how long it ran, apart", () => {
    const path = join(tempFolder(), "memory.db")
    const memory = open(path)
    // Started a minute ago, ended 3 s later.
    append(
      memory,
      [
        [
          "loop:l1",
          {
            _tag: "LoopStarted",
            loopId: "l1",
            goal: "green tests",
            projectPath: "/work/app",
            driver: "external",
            config
          }
        ],
        ["loop:l1", { _tag: "LoopIterationStarted", loopId: "l1", iteration: 1 }],
        ["loop:l1", { _tag: "LoopIterationCompleted", loopId: "l1", iteration: 1, passed: true, filesChanged: [] }],
        ["loop:l1", { _tag: "LoopSucceeded", loopId: "l1", iteration: 1 }]
      ],
      Date.now() - 60_000
    )
    memory.db.close()
    const result = runCli(["ralph", "status", "--loop", "l1", "--db", path])
    expect(result.stderr).toBe("")
    const line = result.stdout.split("\n").find((l) => l.startsWith("started"))
    expect(line).toMatch(/^started\s+\S+ \S+ \((6\d s|1 min) ago\), ran 3 s, ended$/)
  })
})

describe("ralph-mem audit", () => {
  const seeded = () => {
    const path = join(tempFolder(), "memory.db")
    const memory = open(path)
    append(
      memory,
      Array.from({ length: 8 }, (_, i) => [`session:s${i}`, started(`s${i}`)] as const)
    )
    memory.db.close()
    return path
  }

  it("lists the newest events first, like git log; --limit keeps the newest", () => {
    const positions = JSON.parse(runCli(["audit", "--db", seeded(), "--limit", "5", "--json"]).stdout).map(
      (e: { position: number }) => e.position
    )
    expect(positions).toEqual([8, 7, 6, 5, 4])
  })

  it("lists the oldest first with --reverse", () => {
    const path = seeded()
    const positions = JSON.parse(runCli(["audit", "--db", path, "--limit", "3", "--reverse", "--json"]).stdout).map(
      (e: { position: number }) => e.position
    )
    expect(positions).toEqual([1, 2, 3])
    expect(runCli(["audit", "--db", path, "--limit", "2"]).stdout).toMatch(/^#8 .*\n#7 /)
  })
})

describe("ralph-mem search --layer 2", () => {
  it("prints each hit with its own neighbours under it, one block a hit", () => {
    const root = gitProject()
    const path = join(root, ".ralph-mem", "memory.db")
    const memory = open(path)
    const session = (id: string, error: string): Given => [
      [`session:${id}`, { _tag: "SessionStarted", sessionId: id, projectPath: root, source: "startup" }],
      [`session:${id}`, observation(id, `before ${id}`, { inputSummary: `ls ${id}-before` })],
      [`session:${id}`, observation(id, error, { kind: "error", inputSummary: "npm test" })],
      [`session:${id}`, observation(id, `after ${id}`, { inputSummary: `ls ${id}-after` })]
    ]
    append(memory, [...session("a", "QuotaExceededError in alpha"), ...session("b", "QuotaExceededError in beta")])
    memory.db.close()
    const result = runCli(["search", "QuotaExceededError", "--layer", "2"], { cwd: root })
    expect(result.stderr).toBe("")
    const blocks = result.stdout.trim().split("\n\n")
    // Two hits, each a block: the hit first, then its neighbours (marked before/after), nothing of the other hit.
    const hitBlocks = blocks.filter((b) => /^ ?\d+\. /.test(b))
    expect(hitBlocks).toHaveLength(2)
    for (const block of hitBlocks) {
      const id = block.includes("alpha") ? "a" : "b"
      const other = id === "a" ? "b" : "a"
      expect(block).toMatch(new RegExp(`before +\\S+ \\S+ +tool_use +Bash ls ${id}-before`))
      expect(block).toMatch(new RegExp(`after +\\S+ \\S+ +tool_use +Bash ls ${id}-after`))
      expect(block).not.toContain(`${other}-before`)
      expect(block).not.toContain(`${other}-after`)
    }
  })
})

describe("ralph-mem export --format md", () => {
  it("writes the sessions, notes and loops too", () => {
    const root = gitProject()
    const memory = open(join(root, ".ralph-mem", "memory.db"))
    append(memory, [
      ["session:a", { _tag: "SessionStarted", sessionId: "a", projectPath: root, source: "startup" }],
      ["session:a", prompt("a", "fix the login timeout")],
      [
        "session:a",
        { _tag: "SessionSummarized", sessionId: "a", summary: "Fixed refreshSession's seconds.", summarizer: "local" }
      ],
      ["session:a", ended("a")],
      [
        "note:n1",
        { _tag: "NoteInjected", noteId: "n1", projectPath: root, noteType: "convention", text: "use pnpm, never npm" }
      ],
      [
        "loop:l1",
        {
          _tag: "LoopStarted",
          loopId: "l1",
          goal: "green tests",
          projectPath: root,
          driver: "session",
          sessionId: "a",
          config
        }
      ]
    ])
    memory.db.close()
    const out = join(tempFolder(), "export")
    const result = runCli(["export", "--out", out], { cwd: root })
    expect(result.stderr).toBe("")
    const written = readdirSync(out).sort()
    expect(written).toEqual(expect.arrayContaining(["loops.md", "notes.md", "sessions.md"]))
    expect(readFileSync(join(out, "sessions.md"), "utf8")).toContain("Fixed refreshSession's seconds.")
    expect(readFileSync(join(out, "notes.md"), "utf8")).toContain("use pnpm, never npm")
    expect(readFileSync(join(out, "notes.md"), "utf8")).toContain("convention")
    expect(readFileSync(join(out, "loops.md"), "utf8")).toMatch(/green tests/)
    expect(result.stdout).toMatch(/1 session\(s\), 1 note\(s\), 1 loop\(s\)/)
  })
})

describe("memory outside a git repository", () => {
  it("read commands do not create .ralph-mem/, and say where memory would live", () => {
    const folder = tempFolder()
    for (
      const args of [["status"], ["search", "anything"], ["audit"], ["timeline"], ["why", "x"], ["resume"], ["stats"]]
    ) {
      const result = runCli(args, { cwd: folder })
      expect(existsSync(join(folder, ".ralph-mem")), args.join(" ")).toBe(false)
      expect(result.stderr, args.join(" ")).toContain(`No memory at ${join(folder, ".ralph-mem", "memory.db")} yet`)
      expect(result.stderr, args.join(" ")).toContain("not in a git repository")
    }
  })

  it("a write command says where it creates the memory when there is no git repository", () => {
    const folder = tempFolder()
    const result = runCli(["inject", "use pnpm"], { cwd: folder })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(
      `not in a git repository: the memory is created at ${join(folder, ".ralph-mem", "memory.db")}`
    )
    // Said once: the memory exists now.
    expect(runCli(["inject", "use pnpm again"], { cwd: folder }).stderr).toBe("")
    // Inside a git repository nothing needs saying.
    expect(runCli(["inject", "use pnpm"], { cwd: gitProject() }).stderr).toBe("")
  })
})

describe("one duration grammar", () => {
  it("compact --idle takes what ralph start --max-duration takes", () => {
    const path = join(tempFolder(), "memory.db")
    for (const value of ["90s", "1h30m", "10m", "0", "2w"]) {
      const result = runCli(["compact", "--idle", value, "--db", path])
      expect(result.stderr, value).toBe("")
      expect(result.code, value).toBe(0)
    }
    const bad = runCli(["compact", "--idle", "soon", "--db", path])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("--idle \"soon\" is not a duration")
  })

  it("--since takes the same ages", () => {
    const path = join(tempFolder(), "memory.db")
    open(path).db.close()
    expect(runCli(["audit", "--since", "90s", "--db", path]).code).toBe(0)
    expect(runCli(["audit", "--since", "1h30m", "--db", path]).code).toBe(0)
  })
})
