/**
 * `ralph-mem ui` in a real browser: headless Chromium (Debian's package) driven by Playwright's library,
 * against the viewer as a real process over a memory filled through the real hooks and CLI. A screenshot
 * of every page goes to test-results/ui/ for review.
 */
import { newSqliteDatabase, type RalphMemEvent } from "@ralph-mem/events"
import { openMemory } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"
import { removeWhenSettled, SETTLE_TEST_TIMEOUT_MS } from "./support/remove.ts"

const CHROMIUM = process.env["CHROMIUM_BIN"] ?? "/usr/bin/chromium"
const SHOTS = resolve(import.meta.dirname, "..", "test-results", "ui")
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium) {
  console.warn(`tests/ui skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_BIN)`)
}

/** A git project with two sessions, a note, working memory and a loop that succeeded at iteration 2. */
const fillProject = () => {
  // Its own folder, kept for the whole suite (the helpers' folders go after each test).
  const root = mkdtempSync(join(tmpdir(), "ralph-mem-ui-"))
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, stdio: "ignore" })
  git("init", "-q")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "dev")
  writeFileSync(
    join(root, "check.js"),
    `if (!require("fs").existsSync("fixed")) { console.log("FAIL check > login refresh"); process.exit(1) }`
  )
  writeFileSync(
    join(root, "agent.js"),
    `const fs = require("fs"); const n = Number(fs.existsSync("count") ? fs.readFileSync("count", "utf8") : 0) + 1
    fs.writeFileSync("count", String(n)); if (n >= 2) fs.writeFileSync("fixed", "yes"); console.log("agent run " + n)`
  )
  git("add", "-A")
  git("commit", "-qm", "init")
  const hook = (event: string, session: string, fields: Record<string, unknown> = {}) =>
    expect(runHookProcess(event, payload(event, session, root, fields), { cwd: root }).code).toBe(0)
  hook("SessionStart", "sess-one", { source: "startup" })
  hook("UserPromptSubmit", "sess-one", { prompt: "the login refresh fails with TokenExpiredError" })
  hook("PostToolUse", "sess-one", {
    tool_name: "Bash",
    tool_input: { command: "npm test" },
    tool_response: {
      stdout: "FAIL src/auth.test.ts > refreshes the token\nTokenExpiredError: jwt expired",
      stderr: "",
      interrupted: false
    },
    tool_use_id: "t1"
  })
  hook("PostToolUse", "sess-one", {
    tool_name: "Edit",
    tool_input: { file_path: join(root, "src", "auth.ts"), old_string: "a", new_string: "b" },
    tool_response: { filePath: join(root, "src", "auth.ts") },
    tool_use_id: "t2"
  })
  hook("Stop", "sess-one", {
    stop_hook_active: false,
    last_assistant_message: "Fixed refreshSession to count milliseconds."
  })
  hook("SessionEnd", "sess-one", { reason: "other" })
  hook("SessionStart", "sess-two", { source: "startup" })
  hook("UserPromptSubmit", "sess-two", { prompt: "why does the token expire early?" })
  const cli = (...args: Array<string>) => expect(runCli(args, { cwd: root, env: { RALPH_MEM_DB: "" } }).code).toBe(0)
  cli("inject", "Tokens are refreshed by refreshSession in src/auth.ts", "--type", "convention")
  cli(
    "decide",
    "Refresh tokens one minute early",
    "--why",
    "clock skew between hosts",
    "--alternative",
    "exact expiry: fails under skew"
  )
  cli("belief", "set", "stack", "TypeScript on Node 24")
  cli("task", "start", "Fix the login timeout")
  cli("task", "plan", "Reproduce", "Patch refreshSession()")
  cli("ralph", "run", "make the check pass", "--agent", "node agent.js", "--criteria", "custom=node check.js")
  return root
}

/**
 * A git project whose memory holds 206 sessions (written through the log, as the hooks would): 205 short ones
 * and `long`, with 650 observations, a prompt before the first and one after the 550th.
 */
const manySessions = () => {
  const root = mkdtempSync(join(tmpdir(), "ralph-mem-ui-many-"))
  execFileSync("git", ["init", "-q"], { cwd: root })
  mkdirSync(join(root, ".ralph-mem"))
  const memory = Effect.runSync(openMemory({ path: join(root, ".ralph-mem", "memory.db") }))
  const append = (sessionId: string, events: Array<RalphMemEvent>) =>
    Effect.runSync(memory.log.append(`session:${sessionId}`, events, { expectedVersion: "any", writer: "test" }))
  const observation = (sessionId: string, step: number): RalphMemEvent => ({
    _tag: "ObservationRecorded",
    sessionId,
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: `npm run step -- ${step}`,
    content: `step ${step} done`,
    files: []
  })
  for (let s = 0; s < 205; s++) {
    const sessionId = `many-${s}`
    append(sessionId, [
      { _tag: "SessionStarted", sessionId, projectPath: root, source: "startup" },
      observation(sessionId, 0)
    ])
  }
  append("long", [
    { _tag: "SessionStarted", sessionId: "long", projectPath: root, source: "startup" },
    { _tag: "PromptSubmitted", sessionId: "long", prompt: "EARLY-PROMPT: run every step" },
    ...Array.from({ length: 550 }, (_, step) => observation("long", step)),
    { _tag: "PromptSubmitted", sessionId: "long", prompt: "LATE-PROMPT: and the rest" },
    ...Array.from({ length: 100 }, (_, step) => observation("long", 550 + step))
  ])
  memory.db.close()
  return root
}

/** Starts the viewer as a process; resolves with its URL once it printed it. */
const startUi = (
  root: string,
  args: ReadonlyArray<string> = []
): Promise<{ child: ChildProcess; url: string; port: number }> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, "ui", "--json", ...args], {
      cwd: root,
      env: { ...process.env, RALPH_MEM_DB: "" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n").find((l) => l.startsWith("{"))
      if (line !== undefined) resolvePromise({ child, ...(JSON.parse(line) as { url: string; port: number }) })
    })
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString()
      process.stderr.write(`[ui] ${chunk.toString()}`)
    })
    child.on("exit", (code) => reject(new Error(`ralph-mem ui exited ${code}: ${err}`)))
  })

/** A plain HTTP request, with whatever Host header the test gives (fetch would not send another). */
const get = (port: number, path: string, options: { readonly host?: string; readonly method?: string } = {}) =>
  new Promise<{ status: number; body: string }>((resolvePromise, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      method: options.method ?? "GET",
      headers: { host: options.host ?? `127.0.0.1:${port}` }
    }, (res) => {
      let body = ""
      res.on("data", (chunk: Buffer) => (body += chunk.toString()))
      res.on("end", () => resolvePromise({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })

describe.skipIf(!haveChromium)("the web viewer in a real browser", () => {
  let root: string
  let ui: { child: ChildProcess; url: string; port: number }
  let browser: Browser
  let page: Page
  const origin = () => `http://127.0.0.1:${ui.port}`

  beforeAll(async () => {
    root = fillProject()
    ui = await startUi(root)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    mkdirSync(SHOTS, { recursive: true })
    // The printed URL lets the browser in (and leaves a cookie for the links that follow).
    await page.goto(ui.url)
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    ui?.child.kill("SIGTERM")
    await removeWhenSettled(root)
  }, SETTLE_TEST_TIMEOUT_MS)

  const visit = async (path: string, shot: string) => {
    await page.goto(`${origin()}${path}`)
    await page.waitForSelector("main#main")
    await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true })
    return page.locator("main#main")
  }

  it("shows the success metrics on the dashboard, with their plots drawn", async () => {
    const main = await visit("/", "dashboard")
    expect(await main.locator("table.metrics").count()).toBe(1)
    expect(await main.textContent()).toMatch(
      /Hook success\s*100\.0%[\s\S]*Loop success\s*100\.0%[\s\S]*Mean iterations of a successful loop\s*2\.00/
    )
    await page.waitForSelector(".chart .uplot")
    expect(await page.locator(".chart .uplot").count()).toBe(2)
  })

  it("lists the sessions with their summaries and errors, and opens one with what Claude was told", async () => {
    const main = await visit("/sessions", "sessions")
    expect(await main.textContent()).toMatch(/sess-one/)
    await page.click("text=sess-one")
    await page.waitForSelector("ol.timeline")
    await page.screenshot({ path: join(SHOTS, "session.png"), fullPage: true })
    const text = (await page.locator("main#main").textContent()) ?? ""
    expect(text).toMatch(/the login refresh fails with TokenExpiredError/)
    expect(text).toMatch(/npm test/)
    expect(text).toMatch(/src\/auth\.ts/)
    expect(text).not.toContain(root)
    expect(text).toMatch(/Fixed refreshSession to count milliseconds/)
    // The second session was told about the first: its injection, tokens and sources are shown.
    await visit("/sessions/sess-two", "session-injection")
    const told = (await page.locator("li.injection").first().textContent()) ?? ""
    expect(told).toMatch(/told Claude[\s\S]*SessionStart[\s\S]*tokens from \d+ memories/)
  })

  it("searches at each layer: index, timeline with neighbours, full observations", async () => {
    await visit("/search", "search")
    await page.fill("input[name=q]", "token expired")
    await page.click("button[type=submit]")
    await page.waitForSelector("ol.hits")
    expect(await page.locator("ol.hits > li").count()).toBeGreaterThan(0)
    expect(await page.locator("ol.hits").textContent()).toMatch(/npm test/)
    await page.screenshot({ path: join(SHOTS, "search-1.png"), fullPage: true })
    await page.selectOption("select[name=layer]", "2")
    await page.click("button[type=submit]")
    await page.waitForSelector("ul.neighbours")
    expect(await page.locator("li.group").count()).toBeGreaterThan(0)
    await page.screenshot({ path: join(SHOTS, "search-2.png"), fullPage: true })
    await page.selectOption("select[name=layer]", "3")
    await page.click("button[type=submit]")
    await page.waitForSelector(".detail pre")
    expect(await page.locator(".detail pre").first().textContent()).toMatch(/TokenExpiredError: jwt expired/)
    await page.screenshot({ path: join(SHOTS, "search-3.png"), fullPage: true })
  })

  it("shows a loop's iterations, each check per iteration as a chart, the snapshots and rollback command", async () => {
    await visit("/loops", "loops")
    await page.click("table.list a")
    await page.waitForSelector(".chart .uplot")
    await page.screenshot({ path: join(SHOTS, "loop.png"), fullPage: true })
    const text = (await page.locator("main#main").textContent()) ?? ""
    expect(text).toMatch(/make the check pass/)
    expect(text).toMatch(/custom failed[\s\S]*custom passed/)
    expect(text).toMatch(/ralph-mem ralph stop --loop \S+ --rollback --to 1/)
    expect(await page.locator(".chart .uplot").count()).toBe(2)
  })

  it("shows decisions, beliefs and tasks, and the memory's health", async () => {
    const working = (await (await visit("/working", "working")).textContent()) ?? ""
    expect(working).toMatch(/Refresh tokens one minute early[\s\S]*clock skew[\s\S]*exact expiry: fails under skew/)
    expect(working).toMatch(/stack\s*TypeScript on Node 24/)
    expect(working).toMatch(/Fix the login timeout[\s\S]*Patch refreshSession\(\)/)
    const health = (await (await visit("/health", "health")).textContent()) ?? ""
    expect(health).toMatch(/hook success\s*100\.0%/)
    expect(health).toMatch(/event_rows/)
  })

  it("shows a hook run while the page is open without a reload", async () => {
    await visit("/sessions", "live-before")
    const marker = await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 42))
    const started = Date.now()
    expect(
      runHookProcess("SessionStart", payload("SessionStart", "sess-live", root, { source: "startup" }), { cwd: root })
        .code
    ).toBe(0)
    const hookDone = Date.now()
    // The page polls the log twice a second; a loaded machine gets room, and the latency is written down.
    await page.waitForSelector("text=sess-live", { timeout: 60_000 })
    const latencyMs = Date.now() - hookDone
    writeFileSync(join(SHOTS, "live.json"), JSON.stringify({ hookMs: hookDone - started, shownAfterHookMs: latencyMs }))
    await page.screenshot({ path: join(SHOTS, "live-after.png"), fullPage: true })
    // The same document: it was updated in place, not reloaded.
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(marker)
  })

  it("keeps what the reader is typing in the search box when a hook run refreshes the page", async () => {
    await visit("/search", "search-typing")
    const input = page.locator("input[name=q]")
    await input.click()
    await page.keyboard.type("half typed que")
    const shown = Number(await page.locator("main#main").getAttribute("data-head"))
    const fields = { prompt: "a prompt while the reader types" }
    expect(
      runHookProcess("UserPromptSubmit", payload("UserPromptSubmit", "sess-two", root, fields), { cwd: root }).code
    ).toBe(0)
    // The page swapped in what the hook added (the head it shows moved on).
    await expect.poll(async () => Number(await page.locator("main#main").getAttribute("data-head")), {
      timeout: 60_000
    }).toBeGreaterThan(shown)
    await page.keyboard.type("ry")
    expect(await input.inputValue()).toBe("half typed query")
    type Focus = { readonly document: { readonly activeElement: { readonly name?: string } | null } }
    expect(await page.evaluate(() => (globalThis as unknown as Focus).document.activeElement?.name)).toBe("q")
  })

  it("opens in as many tabs as the reader likes, each kept live", async () => {
    // A browser keeps six connections to a host: a stream held open by each tab would leave the seventh none.
    const context = await browser.newContext()
    const tabs = await Promise.all(Array.from({ length: 8 }, () => context.newPage()))
    try {
      await tabs[0]!.goto(ui.url)
      for (const tab of tabs) {
        await tab.goto(`${origin()}/sessions`, { timeout: 30_000 })
        await tab.waitForSelector("main#main", { timeout: 30_000 })
      }
      const fields = { source: "startup" }
      expect(runHookProcess("SessionStart", payload("SessionStart", "sess-tabs", root, fields), { cwd: root }).code)
        .toBe(0)
      // The last tab opened is brought to the front, as a reader would (a hidden tab does not ask).
      await tabs.at(-1)!.bringToFront()
      await tabs.at(-1)!.waitForSelector("text=sess-tabs", { timeout: 60_000 })
    } finally {
      await context.close()
    }
  })

  it("pages through many sessions and a long session, leaving nothing out, beside another viewer", async () => {
    const other = manySessions()
    const second = await startUi(other)
    try {
      await page.goto(second.url)
      const at = (path: string) => `http://127.0.0.1:${second.port}${path}`
      const sessionIds = async () =>
        (await page.locator("table.list a").allTextContents()).filter((t) => t.startsWith("many-"))
      await page.goto(at("/sessions"))
      expect(await page.locator("p.pager").textContent()).toMatch(/^Sessions 1-200 of 206 · older →$/)
      const first = await sessionIds()
      await page.click("p.pager >> text=older →")
      await page.waitForSelector("text=Sessions 201-206 of 206")
      const rest = await sessionIds()
      expect(new Set([...first, ...rest]).size).toBe(205)
      // The long session: 650 observations, with a prompt after the 550th.
      await page.goto(at("/sessions/long"))
      const firstPage = (await page.locator("main#main").textContent()) ?? ""
      expect(await page.locator("p.pager").textContent()).toBe("Observations 1-500 of 650 · later →")
      expect(await page.locator("li.observation").count()).toBe(500)
      expect(firstPage).toContain("EARLY-PROMPT")
      expect(firstPage).not.toContain("LATE-PROMPT")
      await page.click("p.pager >> text=later →")
      await page.waitForSelector("text=Observations 501-650 of 650")
      const secondPage = (await page.locator("main#main").textContent()) ?? ""
      expect(await page.locator("li.observation").count()).toBe(150)
      expect(secondPage).toContain("LATE-PROMPT")
      expect(secondPage).toContain("step 649 ")
      expect(secondPage).not.toContain("EARLY-PROMPT")
      // The first viewer still lets this browser in: each viewer's cookie is its own.
      const back = await page.goto(`${origin()}/sessions`)
      expect(back?.status()).toBe(200)
      expect(await page.locator("main#main").textContent()).toMatch(/sess-one/)
    } finally {
      second.child.kill("SIGTERM")
      await removeWhenSettled(other)
    }
  })

  it("refuses a request without the token, with a wrong one, or for another host name", async () => {
    const bare = await get(ui.port, "/sessions")
    expect(bare.status).toBe(403)
    expect(bare.body).not.toMatch(/sess-one/)
    expect((await get(ui.port, "/?token=wrong")).status).toBe(403)
    expect((await get(ui.port, "/head")).status).toBe(403)
    expect((await get(ui.port, "/assets/app.js")).status).toBe(403)
    const token = new URL(ui.url).searchParams.get("token")!
    expect((await get(ui.port, `/?token=${token}`)).status).toBe(200)
    // Names an object inherits are no assets: not found, with no path of the install in the answer.
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(await get(ui.port, `/assets/${name}?token=${token}`)).toEqual({ status: 404, body: "Not found" })
    }
    expect((await get(ui.port, `/?token=${token}`, { host: `localhost:${ui.port}` })).status).toBe(200)
    // A name rebound to 127.0.0.1 by another page is not let in, token or not.
    expect((await get(ui.port, `/?token=${token}`, { host: `evil.example:${ui.port}` })).status).toBe(403)
    expect((await get(ui.port, `/?token=${token}`, { method: "POST" })).status).toBe(405)
  })

  it("loads nothing from the network: every script and style is the viewer's own", async () => {
    const requests: Array<string> = []
    page.on("request", (request) => requests.push(request.url()))
    await visit("/", "dashboard-again")
    await page.waitForSelector(".chart .uplot")
    expect(requests.length).toBeGreaterThan(0)
    expect(requests.filter((url) => !url.startsWith(origin()))).toEqual([])
  })
})

describe("ralph-mem ui refuses", () => {
  it("any address but the loopback interface", () => {
    const root = tempFolder()
    execFileSync("git", ["init", "-q", root])
    runCli(["status"], { cwd: root, env: { RALPH_MEM_DB: "" } })
    for (const host of ["0.0.0.0", "::", "192.168.1.10"]) {
      const result = runCli(["ui", "--host", host], { cwd: root, env: { RALPH_MEM_DB: "" } })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/listens on 127\.0\.0\.1 only/)
    }
  })

  it("to start on a file that is no memory: empty, text, another program's database", () => {
    const folder = tempFolder()
    const files = {
      empty: "",
      text: "definitely not a database\n".repeat(100)
    }
    for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content)
    const foreign = newSqliteDatabase(join(folder, "foreign.db"))
    foreign.exec("CREATE TABLE t (x)")
    foreign.close()
    for (const name of [...Object.keys(files), "foreign.db"]) {
      // A viewer that started instead would run until stopped: killed after a minute, it fails the test.
      const result = runCli(["ui", "--db", join(folder, name)], { cwd: folder, timeoutMs: 60_000 })
      expect([result.code, result.stdout]).toEqual([1, ""])
      expect(result.stderr).toMatch(/cannot be read as a ralph-mem memory: .*(not a ralph-mem database|not a database)/)
    }
  })

  it("to start where there is no memory yet", () => {
    const root = tempFolder()
    execFileSync("git", ["init", "-q", root])
    const result = runCli(["ui"], { cwd: root, env: { RALPH_MEM_DB: "" } })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/no memory at .* yet/)
  })
})
