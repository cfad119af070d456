/**
 * Slash-command text reaches ralph-mem as typed (issue 18 item 5): the real Claude Code CLI runs each of the
 * plugin's commands that take text with a string a shell would choke on or expand (an apostrophe,
 * parentheses, `$HOME`, `$(...)`, backticks, three backticks, a quote, a backslash, `;`, a second line,
 * a line that ends a heredoc). Each command's shell step carries no arguments; the CLI reads the prompt the
 * UserPromptSubmit hook recorded. What was stored (audit) or what the command printed (the request the
 * model got) is checked against the text byte for byte.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeWhenSettled } from "../support/remove.ts"
import {
  createSandbox,
  describeRun,
  findClaudeBinary,
  MISSING_CLAUDE_MESSAGE,
  runClaude,
  type Sandbox
} from "./claude.ts"
import { bodyContains, startMockAnthropic } from "./mock-anthropic.ts"

const claudeBin = findClaudeBinary()
if (claudeBin === undefined) console.warn(`tests/e2e/slash-commands skipped: ${MISSING_CLAUDE_MESSAGE}`)
const suiteName = claudeBin === undefined
  ? `slash-command text (skipped: ${MISSING_CLAUDE_MESSAGE})`
  : "slash-command text"

const REPO_ROOT = resolve(import.meta.dirname, "..", "..")
const CLI = join(REPO_ROOT, "dist", "ralph-mem.mjs")

/** Everything a shell would trip on; no quote opens an argument, so the text stays one piece of text. */
const NASTY = "Don't use yarn here (pnpm only): $HOME `id` $(whoami) ```js``` 5'10\" a\\b; echo PWNED > pwned\n" +
  "RALPH_MEM_ARGUMENTS\nsecond line && exit 1 | cat"

const cleanups: Array<() => void | Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe.skipIf(claudeBin === undefined)(suiteName, () => {
  let project: string
  let sandbox: Sandbox

  beforeAll(() => {
    project = realpathSync(mkdtempSync(join(tmpdir(), "ralph-mem-e2e-slash-")))
    cleanups.push(() => removeWhenSettled(project))
    execFileSync("git", ["init", "-q", project])
    sandbox = createSandbox()
    cleanups.push(() => sandbox.cleanup())
  })

  /** Runs `/ralph-mem:<command> <text>`; returns what the model was sent with the command's output. */
  const slash = async (command: string, text: string) => {
    const mock = await startMockAnthropic({ script: ["Done."] })
    cleanups.push(() => mock.close())
    const run = await runClaude({
      prompt: `/ralph-mem:${command} ${text}`,
      cwd: project,
      mock,
      pluginDir: REPO_ROOT,
      sandbox,
      timeoutMs: 120_000
    })
    expect(run.code, describeRun(run)).toBe(0)
    expect(run.pluginErrors).toEqual([])
    const request = mock.mainRequests()[0]
    expect(request, describeRun(run)).toBeDefined()
    return request!.body
  }
  const events = (type: string) =>
    JSON.parse(
      execFileSync(process.execPath, [CLI, "audit", "--type", type, "--reverse", "--json"], {
        cwd: project,
        encoding: "utf8"
      })
    ) as Array<{ payload: Record<string, unknown> }>
  const nothingRan = () => expect(() => execFileSync("test", ["-e", join(project, "pwned")])).toThrow()

  it("mem-inject stores the note exactly as typed", async () => {
    await slash("mem-inject", NASTY)
    expect(events("NoteInjected").map((e) => e.payload["text"])).toEqual([NASTY])
    nothingRan()
  }, 300_000)

  it("mem-inject still takes its flag, and a quoted group", async () => {
    await slash("mem-inject", `"use pnpm (never npm)" --type convention`)
    expect(events("NoteInjected").at(-1)?.payload).toMatchObject({
      text: "use pnpm (never npm)",
      noteType: "convention"
    })
  }, 300_000)

  it("mem-search and why search for exactly the text", async () => {
    // Words nothing in memory holds: the command prints the query back, as it received it.
    const query = "zqxjv (qwzzk) $ZEDVAR `zzidq` qq'xx"
    expect(bodyContains(await slash("mem-search", query), `Nothing found for ${JSON.stringify(query)}.`)).toBe(true)
    expect(bodyContains(await slash("why", query), `No decision matches ${JSON.stringify(query)}.`)).toBe(true)
  }, 300_000)

  it("decide keeps the decision and its rationale apart, each as typed", async () => {
    await slash("decide", `"Don't use yarn (pnpm only)" --why "\`npm\` broke $HOME's lockfile" --impact high`)
    expect(events("DecisionRecorded").at(-1)?.payload).toMatchObject({
      decision: "Don't use yarn (pnpm only)",
      rationale: "`npm` broke $HOME's lockfile",
      impact: "high"
    })
  }, 300_000)

  it("belief set, task start and task finding take the rest as their text", async () => {
    await slash("belief", `set package-manager ${NASTY}`)
    expect(events("BeliefSet").at(-1)?.payload).toMatchObject({ key: "package-manager", value: NASTY })
    await slash("task", `start ${NASTY}`)
    expect(events("TaskStarted").at(-1)?.payload).toMatchObject({ title: NASTY })
    await slash("task", `finding ${NASTY}`)
    expect(events("TaskFindingRecorded").at(-1)?.payload).toMatchObject({ finding: NASTY })
    nothingRan()
  }, 300_000)

  it("ralph start keeps the goal as typed and a quoted criterion whole", async () => {
    await slash("ralph", `start ${NASTY} --max-iterations 1 --criteria "custom=node -e 0"`)
    expect(events("LoopStarted").at(-1)?.payload).toMatchObject({
      goal: NASTY,
      config: { maxIterations: 1, successCriteria: [{ kind: "custom", command: ["node", "-e", "0"] }] }
    })
    nothingRan()
  }, 300_000)

  it("mem-forget finds by a query as typed (a preview, nothing forgotten)", async () => {
    const body = await slash("mem-forget", `--query "Don't use yarn here (pnpm only): $HOME"`)
    expect(bodyContains(body, "Would forget")).toBe(true)
    expect(bodyContains(body, "Nothing was changed. Add --confirm to forget for good.")).toBe(true)
    expect(events("NoteInjected").map((e) => e.payload["text"])).toContain(NASTY)
  }, 300_000)
})
