/**
 * Working memory through the real binary: decisions and `why`, beliefs, tasks, `resume` and `export`,
 * on a real SQLite file, with the hooks recording the sessions in between.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../../packages/events/test/helpers.ts"
import { runCli } from "../../../tests/support/cli.ts"
import { payload, runHookProcess } from "../../../tests/support/hook.ts"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const cli = (root: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  runCli(args, { cwd: root, env: { RALPH_MEM_DB: "", CLAUDE_CODE_SESSION_ID: "", ...env } })
const ok = (root: string, ...args: Array<string>) => {
  const result = cli(root, args)
  expect(result.stderr, `ralph-mem ${args.join(" ")}`).toBe("")
  expect(result.code).toBe(0)
  return result.stdout
}
const json = (root: string, ...args: Array<string>) => JSON.parse(ok(root, ...args, "--json"))
/** A refusal: exit 1, the reason on stderr, no stack trace. */
const refused = (root: string, ...args: Array<string>) => {
  const result = cli(root, args)
  expect(result.code, `ralph-mem ${args.join(" ")}: ${result.stdout}`).toBe(1)
  expect(result.stderr).not.toMatch(/\n\s+at /)
  return result.stderr
}
const hook = (root: string, event: string, session: string, fields: Record<string, unknown>) =>
  expect(runHookProcess(event, payload(event, session, root, fields), { cwd: root }).code).toBe(0)

/** The database and its WAL as text. */
const databaseText = (root: string) =>
  ["memory.db", "memory.db-wal"].map((f) => join(root, ".ralph-mem", f)).filter(existsSync).map((f) =>
    readFileSync(f).toString("latin1")
  ).join("")

describe("ralph-mem decide and why", () => {
  it("records a decision that why finds by any of its words, with rationale and rejected alternatives", () => {
    const root = project()
    json(root, "task", "start", "Speed up search")
    const stored = json(
      root,
      "decide",
      "Use",
      "FTS5 with a trigram index",
      "--why",
      "substring search on identifiers",
      "--alternative",
      "LIKE scans: too slow past 10k rows",
      "--alternative",
      "Elasticsearch",
      "--impact",
      "high"
    )
    expect(stored).toMatchObject({
      id: expect.stringMatching(/^\w{26}$/),
      decision: "Use FTS5 with a trigram index",
      impact: "high",
      taskId: "speed-up-search"
    })
    ok(root, "decide", "Keep bm25 defaults", "--why", "tuning showed no gain", "--task", "speed-up-search")
    ok(root, "decide", "검색은 bm25 순서로", "--why", "사용자가 이해하기 쉽다")
    const found = json(root, "why", "trigram", "index")
    expect(found.decisions).toEqual([expect.objectContaining({
      id: stored.id,
      rationale: "substring search on identifiers",
      alternatives: [{ option: "LIKE scans", rejectedBecause: "too slow past 10k rows" }, { option: "Elasticsearch" }]
    })])
    expect(ok(root, "why", "why", "trigram?")).toMatch(
      new RegExp(
        /^## Use FTS5 with a trigram index\n\n- why: substring search on identifiers\n/.source
          + /- rejected: LIKE scans \(too slow past 10k rows\)\n- rejected: Elasticsearch\n/.source
          + /- impact high, task `speed-up-search`, \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ, id `\w{26}`\n$/.source
      )
    )
    expect(json(root, "why", "검색을").decisions.map((d: { decision: string }) => d.decision)).toEqual([
      "검색은 bm25 순서로"
    ])
    expect(json(root, "why", "bm25", "--limit", "1").decisions).toHaveLength(1)
  })

  it("takes any text as a question, and says when nothing matches", () => {
    const root = project()
    ok(root, "decide", "Use SQLite", "--why", "one file")
    for (
      const query of [
        "\"SQLite",
        "SQLite*",
        "NEAR(SQLite one)",
        "decision:SQLite",
        "((",
        "SQLite'; DROP TABLE decisions; --"
      ]
    ) {
      expect(json(root, "why", query).decisions.length, query).toBe(query === "((" ? 0 : 1)
    }
    // A leading dash reads as a flag: after `--` it is a word like any other.
    expect(JSON.parse(cli(root, ["why", "--json", "--", "-SQLite"]).stdout).decisions).toHaveLength(1)
    expect(ok(root, "why", "postgres")).toBe("No decision matches \"postgres\".\n")
    expect(refused(root, "why", "x", "--limit", "0")).toMatch(/--limit must be a positive whole number/)
  })

  it("refuses an empty decision or rationale, no --why, a bad impact or an unknown task, and writes nothing", () => {
    const root = project()
    expect(refused(root, "decide", " ", "--why", "x")).toMatch(/the decision is empty/)
    expect(refused(root, "decide", "x", "--why", " ")).toMatch(/the rationale is empty/)
    expect(refused(root, "decide", "x")).toMatch(/Missing required flag: --why/)
    expect(refused(root, "decide", "x", "--why", "y", "--impact", "huge")).toMatch(
      /Invalid value for flag --impact: "huge"/
    )
    expect(refused(root, "decide", "x", "--why", "y", "--task", "nope")).toMatch(/unknown task nope in this project/)
    expect(refused(root, "decide", "x", "--why", "y", "--alternative", ": z")).toMatch(/names no option/)
    expect(json(root, "audit", "--type", "DecisionRecorded")).toEqual([])
  })
})

describe("ralph-mem belief", () => {
  it("sets, lists (most recent first), replaces and unsets beliefs", () => {
    const root = project()
    expect(ok(root, "belief", "set", "Stack", "TypeScript", "on", "Node", "24")).toBe("stack: TypeScript on Node 24\n")
    expect(ok(root, "belief", "set", "stack", "TypeScript on Node 24")).toBe(
      "stack: TypeScript on Node 24 (unchanged)\n"
    )
    ok(root, "belief", "set", "focus", "the login flow")
    expect(json(root, "belief", "list").map((b: { key: string; value: string }) => [b.key, b.value])).toEqual([[
      "focus",
      "the login flow"
    ], ["stack", "TypeScript on Node 24"]])
    expect(ok(root, "belief", "list")).toBe("focus  the login flow\nstack  TypeScript on Node 24\n")
    expect(json(root, "belief", "unset", "focus")).toMatchObject({ key: "focus", value: null, changed: true })
    expect(json(root, "belief", "list").map((b: { key: string }) => b.key)).toEqual(["stack"])
    expect(json(root, "audit", "--type", "BeliefSet")).toHaveLength(2)
  })

  it("refuses unknown, empty, malformed and secret-looking keys and empty values", () => {
    const root = project()
    expect(refused(root, "belief", "unset", "nope")).toMatch(/there is no belief nope/)
    expect(refused(root, "belief", "set", "../etc", "x")).toMatch(/belief key "..\/etc": use letters, digits/)
    expect(refused(root, "belief", "set", "ghp_0123456789abcdefghijABCDEFGHIJklmnop", "x")).toMatch(
      /looks like a secret/
    )
    expect(refused(root, "belief", "set", "stack", " ")).toMatch(/the value of stack is empty/)
    expect(ok(root, "belief", "list")).toMatch(/^No beliefs yet/)
  })
})

describe("ralph-mem task", () => {
  it("keeps a task's plan, step statuses, findings, handoff note, and the files the session read and changed", () => {
    const root = project()
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "PostToolUse", "s1", {
      tool_name: "Read",
      tool_input: { file_path: `${root}/README.md` },
      tool_response: {},
      tool_use_id: "before"
    })
    expect(ok(root, "task", "start", "Fix", "the", "login", "timeout")).toMatch(/^Started task fix-the-login-timeout\./)
    expect(ok(root, "task", "plan", "Read src/auth.ts", "Patch refreshSession()", "Run the tests")).toBe(
      "Task fix-the-login-timeout: planned steps 1 to 3.\n"
    )
    hook(root, "PostToolUse", "s1", {
      tool_name: "Read",
      tool_input: { file_path: `${root}/src/auth.ts` },
      tool_response: {},
      tool_use_id: "t1"
    })
    hook(root, "PostToolUse", "s1", {
      tool_name: "Edit",
      tool_input: { file_path: `${root}/src/auth.ts`, old_string: "a", new_string: "b" },
      tool_response: { filePath: `${root}/src/auth.ts` },
      tool_use_id: "t2"
    })
    ok(root, "task", "step", "1", "done")
    expect(ok(root, "task", "step", "2", "in_progress")).toBe(
      "Task fix-the-login-timeout: step 2 is now in progress.\n"
    )
    expect(ok(root, "task", "step", "2", "in_progress")).toBe(
      "Task fix-the-login-timeout: step 2 was already in progress.\n"
    )
    ok(root, "task", "finding", "refreshSession counts seconds, not milliseconds")
    ok(root, "task", "handoff", "Patch is half done; run npm test -- auth next")
    ok(root, "decide", "Store the expiry in ms", "--why", "every other clock is in ms")
    const shown = json(root, "task", "show")
    expect(shown).toMatchObject({
      taskId: "fix-the-login-timeout",
      status: "open",
      steps: [{ step: 1, status: "done" }, { step: 2, status: "in_progress" }, { step: 3, status: "pending" }],
      currentStep: { step: 2, text: "Patch refreshSession()" },
      findings: [{ finding: "refreshSession counts seconds, not milliseconds" }],
      handoff: { note: "Patch is half done; run npm test -- auth next" },
      files: { read: ["src/auth.ts"], modified: ["src/auth.ts"] },
      decisions: [{ decision: "Store the expiry in ms" }]
    })
    const text = ok(root, "task", "show", "fix-the-login-timeout")
    expect(text).toMatch(/^# Task fix-the-login-timeout: Fix the login timeout\n\nopen; started /)
    expect(text).toContain(
      "## Plan\n\n- [x] 1. Read src/auth.ts\n- [ ] 2. Patch refreshSession() (in progress)\n- [ ] 3. Run the tests\n"
    )
    expect(text).toContain("## Files\n\n- read: src/auth.ts\n- modified: src/auth.ts\n")
    expect(text).toContain("### Store the expiry in ms")
    expect(ok(root, "task", "done")).toBe("Task fix-the-login-timeout is done.\n")
    expect(ok(root, "task", "list")).toMatch(
      /^fix-the-login-timeout {2}done {2}1\/3 steps done {4}Fix the login timeout\n$/
    )
  })

  it("lines up task list and belief list by the columns a terminal draws, a Korean character taking two", () => {
    const root = project()
    ok(root, "task", "start", "x", "--id", "t1")
    ok(root, "task", "start", "로그인 고치기")
    expect(ok(root, "task", "list")).toBe(
      "로그인-고치기  open  no plan           로그인 고치기\n" +
        "t1             open  no plan           x\n"
    )
    ok(root, "belief", "set", "스택", "TypeScript")
    ok(root, "belief", "set", "stack", "Node 24")
    expect(ok(root, "belief", "list")).toBe("stack  Node 24\n스택   TypeScript\n")
  })

  it("makes the task changed last the current one, and --task chooses another", () => {
    const root = project()
    ok(root, "task", "start", "First")
    ok(root, "task", "start", "Second", "--id", "T2")
    expect(json(root, "task", "plan", "a step").taskId).toBe("t2")
    ok(root, "task", "finding", "back on the first", "--task", "first")
    expect(json(root, "task", "show").taskId).toBe("first")
    expect(json(root, "task", "list").map((t: { taskId: string }) => t.taskId)).toEqual(["first", "t2"])
    expect(ok(root, "task", "start", "First")).toMatch(/^Started task first-2\./)
  })

  it("refuses with a reason: no task, unknown task, a step the plan lacks, a done task, a bad status or id", () => {
    const root = project()
    expect(refused(root, "task", "plan", "x")).toMatch(
      /there is no open task; start one with ralph-mem task start <title>/
    )
    expect(refused(root, "task", "show")).toMatch(/there is no task in this project/)
    ok(root, "task", "start", "Only", "--id", "only")
    expect(refused(root, "task", "start", "Again", "--id", "only")).toMatch(/task only already exists/)
    expect(refused(root, "task", "start", "Bad", "--id", "a b")).toMatch(/task id "a b": use letters/)
    expect(refused(root, "task", "step", "1", "done")).toMatch(/task only has no step 1 \(it has no plan yet/)
    expect(refused(root, "task", "step", "1", "finished")).toMatch(/Invalid value for argument <status>|finished/)
    expect(refused(root, "task", "step", "one", "done")).toMatch(/one/)
    expect(refused(root, "task", "handoff", "x", "--task", "nope")).toMatch(/unknown task nope/)
    expect(refused(root, "task", "finding", " ")).toMatch(/the finding is empty/)
    ok(root, "task", "done")
    expect(refused(root, "task", "done", "--task", "only")).toMatch(/task only is done/)
    expect(refused(root, "task", "plan", "x")).toMatch(/there is no open task/)
  })
})

describe("ralph-mem resume", () => {
  it("prints where the last session stopped: task, step, handoff note, that session's errors and summary", () => {
    const root = project()
    expect(ok(root, "resume")).toBe("Nothing to resume: no open task and no earlier session in this project.\n")
    ok(root, "task", "start", "Fix the login")
    ok(root, "task", "plan", "Reproduce", "Patch refresh()")
    ok(root, "task", "step", "1", "done")
    ok(root, "task", "handoff", "Reproduced with an expired token; patch refresh() next")
    hook(root, "SessionStart", "s1", { source: "startup" })
    hook(root, "UserPromptSubmit", "s1", { prompt: "fix the login" })
    hook(root, "PostToolUseFailure", "s1", {
      tool_name: "Bash",
      tool_input: { command: "npm test" },
      tool_use_id: "t1",
      error: "Exit code 1\nTokenExpiredError in refresh()"
    })
    hook(root, "SessionEnd", "s1", { reason: "exit" })
    const text = ok(root, "resume")
    expect(text).toMatch(
      new RegExp(
        /^## Where the last session stopped\n- task `fix-the-login`: Fix the login; step 2 of 2, pending: /.source
          + /Patch refresh\(\) @\d+\n {2}\[x\] 1\. Reproduce\n {2}\[ \] 2\. Patch refresh\(\)\n/.source
      )
    )
    expect(text).toContain("- handoff note (")
    expect(text).toMatch(/^- error .*`Bash npm test`: Exit code 1 TokenExpiredError in refresh\(\) @\d+$/m)
    expect(text).toMatch(/^- last session \(.*\): Asked: fix the login\. Errors \(1 command, 0 fixed\)/m)
    const brief = json(root, "resume")
    expect(brief).toMatchObject({
      task: { taskId: "fix-the-login", currentStep: { step: 2 } },
      lastSession: { sessionId: "s1", errors: [{ toolName: "Bash" }] }
    })
    // Asked from inside a new session, the last session is the one before it.
    hook(root, "SessionStart", "s2", { source: "startup" })
    expect(JSON.parse(cli(root, ["resume", "--json"], { CLAUDE_CODE_SESSION_ID: "s2" }).stdout).lastSession.sessionId)
      .toBe("s1")
  })
})

describe("ralph-mem export", () => {
  const populated = () => {
    const root = project()
    ok(root, "belief", "set", "stack", "TypeScript")
    ok(root, "task", "start", "Fix the login")
    ok(root, "task", "plan", "Patch refresh()")
    ok(root, "decide", "Use ms everywhere", "--why", "one unit")
    ok(root, "task", "start", "Write docs")
    ok(root, "decide", "Docs in README", "--why", "one place")
    return root
  }

  it("writes Markdown to .ralph-mem/export by default, one file per task, and says what it wrote", () => {
    const root = populated()
    const folder = join(root, ".ralph-mem", "export")
    const out = ok(root, "export")
    expect(out).toBe(
      [
        `Wrote 7 file(s) to ${folder}: 1 belief(s), 2 decision(s), 2 task(s), 0 session(s), 0 note(s), 0 loop(s).`,
        ...[
          "beliefs.md",
          "decisions.md",
          "sessions.md",
          "notes.md",
          "loops.md",
          "task-write-docs.md",
          "task-fix-the-login.md"
        ]
          .map((f) => `  ${join(folder, f)}`)
      ].join("\n") + "\n"
    )
    expect(readFileSync(join(folder, "beliefs.md"), "utf8")).toBe("# Project beliefs\n\n- **stack**: TypeScript\n")
    expect(readFileSync(join(folder, "decisions.md"), "utf8")).toMatch(
      new RegExp(
        /^# Decisions\n\n## Use ms everywhere\n\n- why: one unit\n/.source
          + /- impact medium, task `fix-the-login`, .*\n\n## Docs in README\n/.source
      )
    )
    expect(readFileSync(join(folder, "task-fix-the-login.md"), "utf8")).toMatch(
      /^# Task fix-the-login: Fix the login\n[\s\S]*- \[ \] 1\. Patch refresh\(\)[\s\S]*### Use ms everywhere/
    )
    expect(readFileSync(join(root, ".ralph-mem", ".gitignore"), "utf8")).toBe("*\n")
  })

  it("writes JSON for one task to a chosen folder", () => {
    const root = populated()
    const result = json(root, "export", "--format", "json", "--task", "fix-the-login", "--out", "exported")
    const folder = join(root, "exported")
    expect(result).toEqual({
      folder,
      files: ["beliefs.json", "decisions.json", "task-fix-the-login.json"].map((f) => join(folder, f))
    })
    expect(readdirSync(folder).sort()).toEqual(["beliefs.json", "decisions.json", "task-fix-the-login.json"])
    expect(
      JSON.parse(readFileSync(join(folder, "decisions.json"), "utf8")).map((d: { decision: string }) => d.decision)
    ).toEqual(["Use ms everywhere"])
    expect(JSON.parse(readFileSync(join(folder, "task-fix-the-login.json"), "utf8"))).toMatchObject({
      title: "Fix the login",
      steps: [{ text: "Patch refresh()" }],
      decisions: [{ decision: "Use ms everywhere" }]
    })
    expect(refused(root, "export", "--task", "nope")).toMatch(/unknown task nope/)
    expect(refused(root, "export", "--format", "pdf")).toMatch(/Invalid value for flag --format/)
    expect(refused(root, "export", "--out", join(root, ".ralph-mem", "memory.db", "x"))).toMatch(
      /cannot write to .*memory\.db\/x: .*memory\.db: it is not a folder/
    )
  })
})

describe("privacy and forgetting on the working-memory write paths", () => {
  const SECRET = "sk-ant-api03-WORKINGsecretVALUE0123456789abcdefABCDEF"
  const PIN = "QX-HERON-5521"

  it("keeps <private> text and secrets out of the database, its WAL, the exports and what the CLI prints", () => {
    const root = project()
    const planted = (text: string) => `${text} key ${SECRET} <private>pin ${PIN}</private>`
    ok(
      root,
      "decide",
      planted("Deploy with the vault"),
      "--why",
      planted("the vault rotates"),
      "--alternative",
      planted("env files: leak")
    )
    ok(root, "belief", "set", "deploy", planted("vault at vault.internal"))
    ok(root, "task", "start", planted("Rotate the keys"))
    ok(root, "task", "plan", planted("Rotate"), "Verify")
    ok(root, "task", "finding", planted("old key still valid"))
    ok(root, "task", "handoff", planted("rotation half done"))
    const taskId = json(root, "task", "list")[0].taskId
    expect(taskId).toBe("rotate-the-keys-key")
    ok(root, "export")
    ok(root, "export", "--format", "json")
    const exported = readdirSync(join(root, ".ralph-mem", "export")).map((f) =>
      readFileSync(join(root, ".ralph-mem", "export", f), "utf8")
    ).join("\n")
    const printed = [["why", "vault"], ["belief", "list"], ["task", "show"], ["resume"]].map((args) =>
      ok(root, ...args) + ok(root, ...args, "--json")
    ).join("\n")
    for (
      const [where, text] of [["database", databaseText(root)], ["exports", exported], ["output", printed]] as const
    ) {
      for (const leak of [SECRET, PIN, "HERON"]) expect(text.includes(leak), `${leak} in the ${where}`).toBe(false)
    }
    expect(exported).toContain("Deploy with the vault key [secret:anthropic-key] [private]")
    expect(printed).toContain("rotation half done key [secret:anthropic-key] [private]")
  })

  it("forgets a decision and a belief by id: gone from why, the list, injections and the file; verify is clean", () => {
    const root = project()
    const decision = json(root, "decide", `Pin the ${PIN} resolver`, "--why", "flaky DNS")
    ok(root, "decide", "Keep retries at 3", "--why", "enough")
    ok(root, "belief", "set", "dns", `resolver ${PIN}`)
    ok(root, "belief", "set", "stack", "Go")
    hook(root, "SessionStart", "s1", { source: "startup" })
    const [dns] = json(root, "belief", "list").filter((b: { key: string }) => b.key === "dns")
    const forgot = json(root, "forget", decision.id, dns.eventId, "--confirm")
    expect(forgot.chosen.map((e: { type: string; preview: string }) => [e.type, e.preview])).toEqual([
      ["DecisionRecorded", `Pin the ${PIN} resolver`],
      ["BeliefSet", `resolver ${PIN}`]
    ])
    // The SessionStart injection quoted the belief: it is forgotten with it.
    expect(forgot.derived.map((e: { type: string }) => e.type)).toEqual(["ContextInjected"])
    expect(json(root, "why", "resolver").decisions).toEqual([])
    expect(json(root, "why", "retries").decisions).toHaveLength(1)
    expect(json(root, "belief", "list").map((b: { key: string }) => b.key)).toEqual(["stack"])
    expect(databaseText(root)).not.toContain(PIN)
    expect(ok(root, "verify")).toMatch(/0 problem\(s\) found/)
  })
})

describe("every working-memory command explains itself", () => {
  it.each(["decide", "why", "belief", "belief set", "task", "task step", "resume", "export"])(
    "ralph-mem %s --help",
    (command) => {
      const result = cli(tempFolder(), [...command.split(" "), "--help"])
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/DESCRIPTION\n\s+\S/)
      expect(result.stdout).toContain(`ralph-mem ${command}`)
    }
  )
})
