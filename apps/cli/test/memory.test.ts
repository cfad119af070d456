import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../../packages/events/test/helpers.ts"
import { runCli } from "../../../tests/support/cli.ts"
import { payload, runHookProcess } from "../../../tests/support/hook.ts"

const PLANTED = "ZEBRA-QUOKKA-7731"

/** A project whose memory was written by the real hooks: a session with a memorable failure. */
const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  const hook = (event: string, session: string, fields: Record<string, unknown>) =>
    expect(runHookProcess(event, payload(event, session, root, fields), { cwd: root }).code).toBe(0)
  hook("SessionStart", "s1", { source: "startup" })
  hook("UserPromptSubmit", "s1", { prompt: "make the checkout tests pass" })
  hook("PostToolUseFailure", "s1", {
    tool_name: "Bash",
    tool_input: { command: "npm test -- checkout" },
    tool_use_id: "t1",
    error: `Exit code 1\nCheckoutTimeoutError ${PLANTED} in payment_gateway.ts`
  })
  hook("PostToolUse", "s1", {
    tool_name: "Bash",
    tool_input: { command: "npm test -- checkout" },
    tool_use_id: "t2",
    tool_response: { stdout: "PASS checkout (3 tests)" }
  })
  hook("SessionEnd", "s1", { reason: "exit" })
  hook("SessionStart", "s2", { source: "startup" })
  return root
}

const cli = (root: string, ...args: Array<string>) => runCli(args, { cwd: root, env: { RALPH_MEM_DB: "" } })
const json = (root: string, ...args: Array<string>) => {
  const result = cli(root, ...args, "--json")
  expect(result.stderr).toBe("")
  return JSON.parse(result.stdout)
}
/** The database and its WAL as bytes; a WAL that vanishes as we read (a connection closing) reads as nothing. */
const fileBytes = (root: string) =>
  ["memory.db", "memory.db-wal"]
    .map((f) => join(root, ".ralph-mem", f))
    .map((f) => {
      try {
        return readFileSync(f).toString("latin1")
      } catch {
        return ""
      }
    })
    .join("")

describe("ralph-mem search and show", () => {
  it("finds memories by identifier parts and substrings, ranked, with token estimates", () => {
    const root = project()
    const byParts = json(root, "search", "checkout", "timeout")
    expect(byParts.hits[0]).toMatchObject({ kind: "observation", type: "error", sessionId: "s1" })
    expect(byParts.totalTokens).toBeGreaterThan(0)
    expect(json(root, "search", "ayment_gate").hits[0].id).toBe(byParts.hits[0].id)
    const text = cli(root, "search", "checkout", "timeout").stdout
    expect(text).toMatch(/^ 1\. \w{26}  .*error\s+Bash npm test -- checkout: Exit code 1 CheckoutTimeoutError/m)
    expect(text).toMatch(/result\(s\), ~\d+ tokens\./)
  })

  it("gives the timeline (layer 2) and full details (layer 3), and show by id", () => {
    const root = project()
    const { hits } = json(root, "search", "CheckoutTimeoutError", "--type", "error")
    const layer2 = json(root, "search", "CheckoutTimeoutError", "--type", "error", "--layer", "2")
    expect(layer2.entries[0].after[0]).toMatchObject({ type: "success", content: "PASS checkout (3 tests)" })
    const layer3 = json(root, "search", "CheckoutTimeoutError", "--type", "error", "--layer", "3")
    expect(layer3.details[0]).toMatchObject({
      id: hits[0].id,
      errorMessage: expect.stringContaining(PLANTED),
      toolName: "Bash"
    })
    expect(json(root, "show", hits[0].id).details[0].content).toContain(PLANTED)
    const missing = cli(root, "show", "NOPE")
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/no memory item with id NOPE/)
  })

  it("ends the index with commands naming its hits that run: show its observations, timeline its session", () => {
    const root = project()
    const lastLine = (...args: Array<string>) => cli(root, ...args).stdout.trimEnd().split("\n").at(-1)
    const { hits, totalTokens } = json(root, "search", "checkout")
    const observations = (hits as Array<{ kind: string; id: string }>).filter((h) => h.kind === "observation")
      .map((h) => h.id)
    expect(observations).toHaveLength(2)
    expect(hits).toContainEqual(expect.objectContaining({ kind: "session", id: "s1" }))
    expect(lastLine("search", "checkout")).toBe(
      `3 result(s), ~${totalTokens} tokens. More: --layer 2 (timeline); ` +
        `--layer 3 or ralph-mem show ${observations.join(" ")} (full); ` +
        "ralph-mem timeline --session s1 (a summarised session)."
    )
    expect(json(root, "show", ...observations)).toMatchObject({ details: [{}, {}], unknown: [] })
    expect(json(root, "timeline", "--session", "s1")).toContainEqual(expect.objectContaining({ kind: "session ended" }))
    // A summary alone has no observation to show in full.
    expect(json(root, "search", "make").hits).toMatchObject([{ kind: "session", id: "s1" }])
    expect(lastLine("search", "make")).toMatch(/More: --layer 2 \(timeline\); ralph-mem timeline --session s1 /)
  })

  it("filters by type, since (an age or a date) and limit, and rejects bad values", () => {
    const root = project()
    expect(json(root, "search", "checkout", "--type", "success").hits.map((h: { type: string }) => h.type)).toEqual([
      "success"
    ])
    expect(json(root, "search", "checkout", "--since", "1h").hits.length).toBeGreaterThan(0)
    expect(json(root, "search", "checkout", "--since", "2999-01-01").hits).toEqual([])
    expect(json(root, "search", "checkout", "--limit", "1").hits).toHaveLength(1)
    expect(cli(root, "search", "x", "--type", "oops").code).not.toBe(0)
    expect(cli(root, "search", "x", "--layer", "4").code).not.toBe(0)
    expect(cli(root, "search", "x", "--since", "soon").stderr).toMatch(/is not a date/)
  })
})

describe("ralph-mem inject", () => {
  it("remembers a note that the next session is given", () => {
    const root = project()
    const note = json(root, "inject", "always", "use", "pnpm", "--type", "convention")
    expect(note.id).toMatch(/^\w{26}$/)
    const start = runHookProcess("SessionStart", payload("SessionStart", "s3", root, { source: "startup" }), {
      cwd: root
    })
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toMatch(
      /## Notes to remember\n- .*always use pnpm/
    )
    expect(cli(root, "inject", "  ").stderr).toMatch(/the note is empty/)
  })

  it("filters private text and secrets out of notes", () => {
    const root = project()
    json(root, "inject", "deploy key <private>hunter-9931</private> is ghp_0123456789abcdefghijABCDEFGHIJklmnop")
    expect(fileBytes(root)).not.toContain("hunter-9931")
    expect(fileBytes(root)).not.toContain("ghp_0123456789abcdefghijABCDEFGHIJklmnop")
  })
})

describe("ralph-mem forget", () => {
  it("previews by default and changes nothing", () => {
    const root = project()
    const { hits } = json(root, "search", PLANTED)
    const preview = cli(root, "forget", hits[0].id)
    expect(preview.stdout).toMatch(/Would forget 1 event\(s\):[\s\S]*Nothing was changed\. Add --confirm/)
    expect(json(root, "search", PLANTED).hits.length).toBeGreaterThan(0)
  })

  it("with --confirm, removes the memory and every copy of its text from the file, the WAL and the indexes", () => {
    const root = project()
    const { hits } = json(root, "search", PLANTED, "--type", "error")
    expect(fileBytes(root)).toContain(PLANTED)
    const result = json(root, "forget", hits[0].id, "--confirm")
    expect(result).toMatchObject({ forgotten: true, chosen: [{ eventId: hits[0].id }] })
    expect(result.derived.map((d: { type: string }) => d.type).sort()).toEqual(["ContextInjected", "SessionSummarized"])
    expect(json(root, "search", PLANTED).hits).toEqual([])
    const remaining = json(root, "search", "CheckoutTimeoutError").hits.map((h: { title: string }) => h.title)
    expect(remaining).toEqual(["Bash npm test -- checkout: PASS checkout (3 tests)"])
    expect(fileBytes(root)).not.toContain(PLANTED)
    expect(fileBytes(root)).not.toContain("CheckoutTimeoutError")
    expect(cli(root, "verify").code).toBe(0)
    const audit = json(root, "audit", "--type", "ObservationRecorded")
    expect(audit.find((e: { eventId: string }) => e.eventId === hits[0].id)).toMatchObject({
      payload: { redacted: true }
    })
  })

  it("forgets a whole session, or what a query finds", () => {
    const root = project()
    json(root, "forget", "--session", "s1", "--confirm")
    expect(json(root, "timeline", "--session", "s1")).toEqual([])
    expect(fileBytes(root)).not.toContain(PLANTED)
    const other = project()
    const byQuery = json(other, "forget", "--query", "checkout", "--confirm")
    // Both observations, and what else holds the word: the prompt, the summary, the injection that quoted them.
    expect(byQuery.chosen.map((c: { type: string }) => c.type).sort()).toEqual(
      ["ContextInjected", "ObservationRecorded", "ObservationRecorded", "PromptSubmitted", "SessionSummarized"]
    )
    expect(json(other, "search", "checkout", "--type", "error").hits).toEqual([])
  })

  it("takes events by their position, as audit (#12) and injected text (@12) show it, as show does", () => {
    const root = project()
    expect(cli(root, "inject", "first note MARMOT-1").code).toBe(0)
    expect(cli(root, "inject", "second note WOMBAT-2").code).toBe(0)
    const notes = cli(root, "audit", "--type", "NoteInjected", "--reverse").stdout.split("\n")
      .flatMap((line) => /^(#\d+) /.exec(line)?.[1] ?? [])
    expect(notes).toHaveLength(2)
    const [first, second] = notes as [string, string]
    const eventIds = json(root, "audit", "--type", "NoteInjected", "--reverse").map((e: { eventId: string }) =>
      e.eventId
    )
    expect(json(root, "show", first).details[0]).toMatchObject({ id: eventIds[0] })
    const preview = json(root, "forget", first, second.replace("#", "@"))
    expect(preview.chosen.map((c: { eventId: string }) => c.eventId)).toEqual(eventIds)
    expect(json(root, "forget", second, "--confirm")).toMatchObject({ chosen: [{ eventId: eventIds[1] }] })
    expect(json(root, "audit", "--type", "NoteInjected", "--reverse").map((e: { payload: object }) => e.payload))
      .toMatchObject([{ text: "first note MARMOT-1" }, { redacted: true }])
    expect(cli(root, "forget", "#999999").stderr).toMatch(/no event with id #999999/)
  })

  it("explains what it needs, and unknown ids", () => {
    const root = project()
    expect(cli(root, "forget").stderr).toMatch(/say what to forget/)
    expect(cli(root, "forget", "X", "--session", "s1").stderr).toMatch(/one of them/)
    expect(cli(root, "forget", "NOPE", "--confirm").stderr).toMatch(/no event with id NOPE/)
  })
})

describe("ralph-mem status", () => {
  it("reports observations by type, the last injection, loops and hooks", () => {
    const root = project()
    const status = json(root, "status")
    expect(status.observations).toEqual({ error: 1, success: 1 })
    expect(status.lastInjection).toMatchObject({ hook: "SessionStart", sources: expect.any(Number) })
    expect(status.lastInjection.tokens).toBeGreaterThan(0)
    expect(status.activeLoops).toEqual([])
    expect(status.hooks).toMatchObject({ invocations: 6, failures: 0, successRate: 1 })
    expect(cli(root, "status").stdout).toMatch(/^last injection\s+.*SessionStart, ~\d+ tokens from \d+ memories$/m)
  })
})
