/**
 * A cloned repository is hostile: it can commit `.ralph-mem/` with links in it (to the user's shell
 * start-up, to a folder of theirs) and a config file holding shell text. Real hook processes and the real
 * CLI run in such a project; nothing outside it may change, and no planted text may reach a log.
 */
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { CLI, HOOK, HOOK_NODE_OPTIONS, runCli, testRunState } from "./support/cli.ts"
import { writeFigures } from "./support/figures.ts"
import { payload, runHookProcess } from "./support/hook.ts"

/** What a hostile config holds: shell text that would run if it ever reached a shell start-up file. */
const PLANTED = "$(touch ~/pwned)"
const isRoot = process.getuid?.() === 0
const NOBODY = 65534

interface Home {
  readonly root: string
  readonly bashrc: string
  readonly folder: string
}

/** The user's home: a shell start-up file (0644) and a folder of theirs. */
const makeHome = (): Home => {
  const root = tempFolder()
  const bashrc = join(root, ".bashrc")
  writeFileSync(bashrc, "# the user's shell start-up\nexport PATH=$HOME/bin:$PATH\n")
  chmodSync(bashrc, 0o644)
  const folder = join(root, "documents")
  mkdirSync(folder)
  chmodSync(folder, 0o755)
  writeFileSync(join(folder, "notes.txt"), "mine\n")
  return { root, bashrc, folder }
}

/** Every file and folder below `root` with its content (files) and mode. */
const contents = (root: string): Map<string, string> => {
  const found = new Map<string, string>()
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stats = lstatSync(path)
      if (stats.isDirectory()) {
        found.set(path, `folder ${(stats.mode & 0o777).toString(8)}`)
        walk(path)
      } else {
        found.set(path, `${(stats.mode & 0o777).toString(8)} ${stats.isFile() ? readFileSync(path, "latin1") : "link"}`)
      }
    }
  }
  walk(root)
  return found
}

/** Files below `root` (no link followed) whose bytes hold `text`. */
const filesHolding = (root: string, text: string, except: ReadonlyArray<string> = []): Array<string> => {
  const found: Array<string> = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stats = lstatSync(path)
      if (stats.isDirectory()) walk(path)
      else if (stats.isFile() && !except.includes(path) && readFileSync(path, "latin1").includes(text)) found.push(path)
    }
  }
  walk(root)
  return found
}

const hostileConfig = [
  "memory:",
  `  context_window: "${PLANTED}"`,
  "loop:",
  "  success_criteria:",
  "    - type: custom",
  `      command: "${PLANTED}"`,
  ""
].join("\n")

/** A cloned project whose committed .ralph-mem holds the hostile config. */
const makeProject = (): { readonly root: string; readonly memory: string } => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  const memory = join(root, ".ralph-mem")
  mkdirSync(memory)
  writeFileSync(join(memory, "config.yaml"), hostileConfig)
  return { root, memory }
}

interface Scenario {
  readonly name: string
  /** Plants the hostile content; returns the path the refusal must name. */
  readonly plant: (project: { readonly root: string; readonly memory: string }, home: Home) => string
  readonly rootOnly?: boolean
}

/** A link in .ralph-mem, where ralph-mem keeps `name`, to the user's shell start-up. */
const linkedFile = (name: string): Scenario => ({
  name: `${name} is a link to ~/.bashrc`,
  plant: ({ memory }, home) => link(home.bashrc, join(memory, name), existsSync(join(memory, name)))
})

/** A link in .ralph-mem, where ralph-mem keeps its folder `name`, to a folder of the user's. */
const linkedFolder = (name: string): Scenario => ({
  name: `${name} is a link to a folder of the user's`,
  plant: ({ memory }, home) => link(home.folder, join(memory, name))
})

const scenarios: ReadonlyArray<Scenario> = [
  linkedFile("hooks.log"),
  {
    name: ".ralph-mem is a link to a folder of the user's",
    plant: ({ root, memory }, home) => {
      writeFileSync(join(home.folder, "config.yaml"), hostileConfig)
      replaceWithLink(memory, home.folder)
      return join(root, ".ralph-mem")
    }
  },
  ...["memory.db", "memory.db-wal", "memory.db-shm", "memory.db-journal", ".gitignore"].map(linkedFile),
  linkedFolder("backups"),
  {
    name: "damaged is a link to a folder of the user's, and the database is not SQLite",
    plant: ({ memory }, home) => {
      writeFileSync(join(memory, "memory.db"), "not a database at all, so a hook would set it aside")
      return link(home.folder, join(memory, "damaged"))
    }
  },
  ...["export", "plans", "snapshots"].map(linkedFolder),
  linkedFile("config.yaml"),
  {
    name: ".ralph-mem belongs to another user",
    rootOnly: true,
    plant: ({ memory }) => {
      chownSync(memory, NOBODY, NOBODY)
      return memory
    }
  },
  {
    name: "hooks.log belongs to another user",
    rootOnly: true,
    plant: ({ memory }) => {
      const log = join(memory, "hooks.log")
      writeFileSync(log, "")
      chownSync(log, NOBODY, NOBODY)
      return log
    }
  },
  {
    name: "memory.db is a folder",
    plant: ({ memory }) => {
      mkdirSync(join(memory, "memory.db"))
      return join(memory, "memory.db")
    }
  }
]

function link(target: string, path: string, replace = false): string {
  if (replace) replaceWithLink(path, target)
  else symlinkSync(target, path)
  return path
}

function replaceWithLink(path: string, target: string): void {
  const { rmSync } = process.getBuiltinModule("node:fs")
  rmSync(path, { recursive: true, force: true })
  symlinkSync(target, path)
}

let tried = 0
let hookRuns = 0
let cliRuns = 0

afterAll(() => {
  writeFigures("fs", {
    "hostile-path scenarios": tried,
    "hook runs in hostile projects": hookRuns,
    "CLI runs in hostile projects": cliRuns
  })
})

describe("a hostile repository", () => {
  for (const scenario of scenarios) {
    const title = `${scenario.name}: nothing outside changes, the user is told`
    it.skipIf(scenario.rootOnly === true && !isRoot)(title, () => {
      const home = makeHome()
      const project = makeProject()
      const refused = scenario.plant(project, home)
      const before = contents(home.root)
      const env = { HOME: home.root, XDG_CONFIG_HOME: join(home.root, ".config") }
      const hook = (event: string, fields: Record<string, unknown>) => {
        hookRuns++
        const run = runHookProcess(event, payload(event, "hostile-1", project.root, fields), { cwd: project.root, env })
        expect(run.code).toBe(0)
        return run
      }
      const start = hook("SessionStart", { source: "startup" })
      hook("UserPromptSubmit", { prompt: "hello", prompt_id: "p1" })
      hook("PostToolUse", { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "a" } })
      hook("Stop", { stop_hook_active: false, last_assistant_message: "done" })
      hook("SessionStart", { source: "compact" })
      const cli = (...args: Array<string>) => {
        cliRuns++
        return runCli(args, { cwd: project.root, env })
      }
      const status = cli("status")
      const doctor = cli("doctor", "--repair")
      cli("backup")
      cli("maintain")
      cli("export")
      cli("config", "memory.context_window", "5000")

      // The user's files are exactly as they were: contents, modes, nothing added.
      expect(contents(home.root)).toEqual(before)
      expect(existsSync(join(home.root, "pwned"))).toBe(false)
      // No planted text reached any file but the config that carried it.
      const carriers = [join(project.memory, "config.yaml"), join(home.folder, "config.yaml")]
      expect(filesHolding(project.root, "touch ~/pwned", carriers)).toEqual([])

      // Told once: at the session's start, not after a compaction.
      expect(JSON.parse(start.stdout).systemMessage).toContain(refused)
      expect(status.code).not.toBe(0)
      expect(status.stderr + status.stdout).toContain(refused)
      expect(doctor.code).not.toBe(0)
      expect(doctor.stdout).toContain("FAIL  memory folder")
      tried++
    })
  }

  it("the compaction SessionStart of a refused folder prints nothing (told once a session)", () => {
    const home = makeHome()
    const project = makeProject()
    link(home.bashrc, join(project.memory, "hooks.log"))
    const run = runHookProcess("SessionStart", payload("SessionStart", "s", project.root, { source: "compact" }), {
      cwd: project.root,
      env: { HOME: home.root }
    })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe("")
  })
})

describe("a hooks.log that came with the project's files (an archive, not git)", () => {
  it("of any size: doctor reads its end only and says it is full, status and the hooks go on", () => {
    const home = makeHome()
    const project = makeProject()
    const log = join(project.memory, "hooks.log")
    // Sparse: past what one string can hold, so reading it whole failed doctor after taking as much memory.
    const fd = openSync(log, "w", 0o600)
    ftruncateSync(fd, 600 * 1024 * 1024)
    closeSync(fd)
    const env = { HOME: home.root, XDG_CONFIG_HOME: join(home.root, ".config") }
    hookRuns++
    const start = runHookProcess(
      "SessionStart",
      payload("SessionStart", "big-log", project.root, { source: "startup" }),
      {
        cwd: project.root,
        env
      }
    )
    expect(start.code).toBe(0)
    cliRuns += 2
    const doctor = runCli(["doctor"], { cwd: project.root, env })
    expect(doctor.stderr).toContain("doctor found 1 problem(s)")
    // Past the size ralph-mem appends to, the failures of this session went unlogged: said, with the fix.
    expect(doctor.stdout).toContain(`FAIL  hook failures (24 h): none; ${log} holds ${600 * 1024 * 1024} bytes`)
    expect(doctor.stdout).toContain(`remove it (rm ${JSON.stringify(log)})`)
    expect(runCli(["status"], { cwd: project.root, env }).code).toBe(0)
    tried++
  })

  it("holding terminal sequences, or a line dated ahead: doctor prints it inert, reads only the last day", () => {
    const home = makeHome()
    const project = makeProject()
    // Its reason writes the clipboard and clears the screen. A line dated in 2099, "recent" forever, is not read.
    const line = { time: new Date().toISOString(), hook: "Stop", reason: "\u001b]52;c;cHduZWQ=\u0007gone\u001b[2J" }
    const future = { time: "2099-01-01T00:00:00.000Z", hook: "Stop", reason: "a failure from the future" }
    writeFileSync(join(project.memory, "hooks.log"), `${JSON.stringify(line)}\n${JSON.stringify(future)}\n`, {
      mode: 0o600
    })
    const env = { HOME: home.root, XDG_CONFIG_HOME: join(home.root, ".config") }
    cliRuns++
    const doctor = runCli(["doctor"], { cwd: project.root, env })
    expect(doctor.stdout).toContain("hook failures (24 h): 1 (see ")
    expect(doctor.stdout).toContain("last: \\x1b]52;c;cHduZWQ=\\x07gone\\x1b[2J")
    expect(doctor.stdout + doctor.stderr).not.toMatch(/[\u0007\u001b]/)
    tried++
  })
})

describe("a project folder whose name is not UTF-8", () => {
  it("gets no phantom folder beside it from a hook or the CLI", () => {
    const home = makeHome()
    const parent = tempFolder()
    // `café` as Latin-1 names it (an old archive's folder): Node reads the name with U+FFFD for the last byte.
    const real = Buffer.concat([Buffer.from(`${parent}/caf`), Buffer.from([0xe9])])
    mkdirSync(real)
    mkdirSync(Buffer.concat([real, Buffer.from("/.git")]))
    const seen = `${parent}/caf\uFFFD`
    // Node cannot name the folder as a process's cwd: a shell changes into it by its bytes.
    const inProject = (args: ReadonlyArray<string>, input = "") =>
      spawnSync("/bin/sh", ["-c", `cd "$1/$(printf 'caf\\351')" && shift && exec "$@"`, "sh", parent, ...args], {
        input,
        env: { PATH: process.env["PATH"] ?? "", HOME: home.root, ...testRunState() },
        encoding: "utf8"
      })
    hookRuns++
    const start = inProject(
      [process.execPath, ...HOOK_NODE_OPTIONS, HOOK, "SessionStart"],
      payload("SessionStart", "latin1", seen, { source: "startup" })
    )
    expect(start.status).toBe(0)
    cliRuns++
    const inject = inProject([process.execPath, CLI, "inject", "a note"])
    expect(inject.status).not.toBe(0)
    expect(inject.stderr).toContain("does not exist")
    expect(readdirSync(parent, { encoding: "buffer" })).toEqual([real.subarray(parent.length + 1)])
    tried++
  })
})

describe("a file name or tool output that holds terminal control sequences", () => {
  it("is printed inert by the CLI (\\x1b, not ESC), and kept whole in --json", () => {
    const home = makeHome()
    const root = tempFolder()
    mkdirSync(join(root, ".git"))
    // A repository can name a file so: OSC 52 writes the clipboard, ESC[2J clears the screen, CR rewrites the line.
    const name = "src/\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2Jwidget.ts"
    const env = { HOME: home.root }
    const tools = [
      { tool_name: "Read", tool_input: { file_path: join(root, name) }, tool_response: { type: "text" } },
      {
        tool_name: "Bash",
        tool_input: { command: "cat notes.txt" },
        tool_response: { stdout: "gadget frobnicator\rall tests passed\u009b31m", stderr: "" }
      }
    ]
    for (const fields of tools) {
      hookRuns++
      const run = runHookProcess("PostToolUse", payload("PostToolUse", "esc", root, fields), { cwd: root, env })
      expect(run.code).toBe(0)
    }
    const cli = (...args: Array<string>) => {
      cliRuns++
      const result = runCli(args, { cwd: root, env })
      expect(result.code, result.stderr).toBe(0)
      return result.stdout
    }
    const id = (JSON.parse(cli("search", "frobnicator", "--json")) as { hits: Array<{ id: string }> }).hits[0]!.id
    const printed = [
      cli("timeline"),
      cli("search", "read"),
      cli("search", "frobnicator", "--layer", "3"),
      cli("show", id),
      // What a forget would remove is shown before it is confirmed; the audit lists every event's payload.
      cli("forget", "--query", "frobnicator"),
      cli("audit")
    ].join("\n")
    expect(printed).toContain("\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b[2Jwidget.ts")
    expect(printed).toContain("gadget frobnicator\\x0dall tests passed\\x9b31m")
    expect(printed).not.toMatch(/[\u001b\u0007\u009b\r]/)
    expect(cli("timeline", "--json")).toContain(JSON.stringify(name).slice(1, -1))
    // An error that repeats what it was given (an id pasted from elsewhere) says it inert too.
    const refused = runCli(["show", "\u001b[2Jsomething"], { cwd: root, env })
    expect(refused.stderr).toContain("\\x1b[2Jsomething")
    expect(refused.stderr).not.toMatch(/\u001b/)
    tried++
  })
})

describe("a project's config file that came with the clone", () => {
  it("in a folder whose name holds terminal sequences: the warnings naming it are printed inert", () => {
    const home = makeHome()
    // An archive names the folder it unpacks to: ESC [2J clears the screen.
    const root = join(tempFolder(), "shop\u001b[2J")
    mkdirSync(join(root, ".git"), { recursive: true })
    mkdirSync(join(root, ".ralph-mem"))
    writeFileSync(join(root, ".ralph-mem", "config.yaml"), "loop:\n  max_iterations: 100000\nmemory:\n  system: 7\n")
    const env = { HOME: home.root, XDG_CONFIG_HOME: join(home.root, ".config") }
    cliRuns += 2
    for (const args of [["config"], ["ralph", "start", "goal", "--session", "s1", "--criteria", "marker"]]) {
      const run = runCli(args, { cwd: root, env })
      expect(run.stderr).toContain("shop\\x1b[2J/.ralph-mem/config.yaml: loop.max_iterations raises a limit")
      expect(run.stderr).toContain("shop\\x1b[2J/.ralph-mem/config.yaml: memory.system: expected")
      expect(run.stderr + run.stdout).not.toMatch(/\u001b/)
    }
    tried++
  })

  it("records, logs the file and key of a bad value (never its text), runs no command until accepted", () => {
    const home = makeHome()
    const project = makeProject()
    const env = { HOME: home.root, XDG_CONFIG_HOME: join(home.root, ".config") }
    for (
      const [event, fields] of [
        ["SessionStart", { source: "startup" }],
        ["UserPromptSubmit", { prompt: "hello", prompt_id: "p1" }]
      ] as const
    ) {
      hookRuns++
      const run = runHookProcess(event, payload(event, "clone-1", project.root, fields), { cwd: project.root, env })
      expect(run.code).toBe(0)
      expect(run.stdout).not.toContain("systemMessage")
    }
    const log = readFileSync(join(project.memory, "hooks.log"), "utf8")
    const file = join(project.memory, "config.yaml")
    const expected = "memory.context_window: expected an integer >= 1000 (tokens), got a string of 16 characters"
    expect(log).toContain(`${file}: ${expected}`)
    expect(filesHolding(project.root, "touch ~/pwned", [join(project.memory, "config.yaml")])).toEqual([])

    const cli = (...args: Array<string>) => {
      cliRuns++
      return runCli(args, { cwd: project.root, env })
    }
    const finding = "loop.success_criteria sets commands to run, ignored until you accept this file"
    type Listing = { settings: Record<string, unknown>; untrusted: Array<string> }
    const config = JSON.parse(cli("config", "--json").stdout) as Listing
    expect(config.untrusted[0]).toContain(finding)
    expect(config.settings["loop.success_criteria"]).toEqual([{ type: "test_pass" }])
    expect((JSON.parse(cli("status", "--json").stdout) as { config: Array<string> }).config[0]).toContain(finding)
    expect(cli("doctor").stdout).toContain(`NOTE  config: ${join(project.memory, "config.yaml")}: ${finding}`)

    const accepted = cli("config", "trust")
    expect(accepted.code).toBe(0)
    expect(accepted.stdout).toContain(`loop.success_criteria: [{"type":"custom","command":"${PLANTED}"}]`)
    expect(JSON.parse(cli("config", "loop.success_criteria", "--json").stdout)).toEqual({
      "loop.success_criteria": [{ type: "custom", command: PLANTED }]
    })
    // The record is the user's, outside the project.
    expect(existsSync(join(home.root, ".config", "ralph-mem", "trusted-projects.json"))).toBe(true)
    tried++
  })
})

describe("the hooks' code cache in a shared temporary folder", () => {
  it("is neither read nor written through a link another user planted where it lives", () => {
    const home = makeHome()
    const root = tempFolder()
    mkdirSync(join(root, ".git"))
    const run = (cache: string) => {
      hookRuns++
      const fields = { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "x" } }
      const env = { HOME: home.root, NODE_COMPILE_CACHE: cache }
      return runHookProcess("PostToolUse", payload("PostToolUse", "s1", root, fields), { cwd: root, env })
    }
    // What the link would serve: a cache under the hook's own name whose code is damaged. Read by a hook, it
    // kills it (V8 checks a cache's versions, flags and length, not its code): shown in a folder of the user's.
    const own = join(tempFolder(), "node-compile-cache")
    expect(run(own).code).toBe(0)
    const [name] = readdirSync(join(own, "ralph-mem"))
    const planted = readFileSync(join(own, "ralph-mem", name!))
    for (let i = 64; i < planted.length; i += 997) planted[i]! ^= 0xff
    writeFileSync(join(own, "ralph-mem", name!), planted)
    expect(run(own).code).not.toBe(0)
    writeFileSync(join(home.folder, name!), planted)
    const cache = join(tempFolder(), "node-compile-cache")
    mkdirSync(cache)
    symlinkSync(home.folder, join(cache, "ralph-mem"))
    const before = contents(home.root)
    for (let i = 0; i < 2; i++) {
      const hook = run(cache)
      expect([hook.code, hook.stdout, hook.stderr]).toEqual([0, "", ""])
    }
    expect(contents(home.root)).toEqual(before)
    tried++
  })
})
