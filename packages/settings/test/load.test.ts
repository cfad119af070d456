import { execFileSync } from "node:child_process"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { defaultSettings, loadSettings } from "../src/index.ts"
import { machine } from "./fixture.ts"

describe("loadSettings with nothing configured", () => {
  it("returns the defaults, no problems, and where the files would be", () => {
    const m = machine()
    const loaded = m.load()
    expect(loaded.settings).toEqual(defaultSettings)
    expect(loaded.problems).toEqual([])
    expect(loaded.files).toEqual({ global: m.globalFile, project: m.projectFile })
  })

  it("puts the global file under an absolute XDG_CONFIG_HOME, and ignores a relative one", () => {
    const m = machine()
    expect(m.load({ XDG_CONFIG_HOME: "/xdg" }).files.global).toBe("/xdg/ralph-mem/config.yaml")
    expect(m.load({ XDG_CONFIG_HOME: "relative/dir" }).files.global).toBe(m.globalFile)
  })

  it("does not load the yaml package when no config file exists", () => {
    const m = machine()
    const index = join(import.meta.dirname, "../src/index.ts")
    const probe = (projectRoot: string): string =>
      execFileSync(process.execPath, [
        "--input-type=module",
        "-e",
        `import { loadSettings } from ${JSON.stringify(index)}
         import { createRequire } from "node:module"
         loadSettings({ projectRoot: ${JSON.stringify(projectRoot)}, home: ${JSON.stringify(m.home)}, env: {} })
         const cached = Object.keys(createRequire(import.meta.url).cache)
         const loaded = cached.some((path) => path.includes("/node_modules/yaml/"))
         process.stdout.write(String(loaded))`
      ]).toString()
    expect(probe(m.projectRoot)).toBe("false")
    m.write(m.projectFile, "memory:\n  task: 0.3\n")
    expect(probe(m.projectRoot)).toBe("true")
  })
})

describe("layers: defaults < global < project < environment", () => {
  it("each layer overrides the one below, key by key", () => {
    const m = machine()
    m.write(m.globalFile, "memory:\n  context_window: 150000\n  max_prompt_chars: 5000\nbackup:\n  keep: 9\n")
    m.write(m.projectFile, "memory:\n  context_window: 100000\nloop:\n  max_iterations: 4\n")
    const { settings, problems } = m.load({ RALPH_MEM_MAX_ITERATIONS: "6" })
    expect(problems).toEqual([])
    expect(settings.memory.contextWindow).toBe(100_000) // project over global
    expect(settings.memory.maxPromptChars).toBe(5_000) // global, untouched by project
    expect(settings.backup.keep).toBe(9) // global
    expect(settings.loop.maxIterations).toBe(6) // environment over project
    expect(settings.memory.maxObservationChars).toBe(4_000) // default
  })

  it("the environment overrides every file", () => {
    const m = machine()
    m.write(m.globalFile, "memory:\n  context_window: 100000\n")
    m.write(m.projectFile, "memory:\n  context_window: 150000\n  injected_memory: 0.1\n")
    const { settings, problems } = m.load({
      RALPH_MEM_CONTEXT_WINDOW: "50000",
      RALPH_MEM_INJECTION_SHARE: "0.12",
      RALPH_MEM_MAX_OBSERVATION_CHARS: "1000",
      RALPH_MEM_MAX_PROMPT_CHARS: "2000",
      RALPH_MEM_MAX_ITERATIONS: "3"
    })
    expect(problems).toEqual([])
    expect(settings.memory).toMatchObject({
      contextWindow: 50_000,
      injectedMemory: 0.12,
      maxObservationChars: 1_000,
      maxPromptChars: 2_000
    })
    expect(settings.loop.maxIterations).toBe(3)
  })

  it("a bad variable is a problem naming it and its key, and the value below is kept", () => {
    const m = machine()
    m.write(m.projectFile, "loop:\n  max_iterations: 7\n")
    const { settings, problems } = m.load({ RALPH_MEM_MAX_ITERATIONS: "many", RALPH_MEM_CONTEXT_WINDOW: "12" })
    expect(problems).toEqual([
      "RALPH_MEM_CONTEXT_WINDOW: memory.context_window: expected an integer >= 1000 (tokens), got 12",
      "RALPH_MEM_MAX_ITERATIONS: loop.max_iterations: expected an integer >= 1, got a string of 4 characters"
    ])
    expect(settings.loop.maxIterations).toBe(7)
    expect(settings.memory.contextWindow).toBe(200_000)
  })

  it("empty variables are not set", () => {
    expect(machine().load({ RALPH_MEM_CONTEXT_WINDOW: "", RALPH_MEM_INJECTION_SHARE: "  " }).problems).toEqual([])
  })
})

describe("every validation problem names the file and the key", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["memory:\n  context_window: 999\n", "memory.context_window: expected an integer >= 1000 (tokens), got 999"],
    ["memory:\n  context_window: 1500.5\n", "memory.context_window: expected an integer >= 1000 (tokens), got 1500.5"],
    [
      "memory:\n  injected_memory: lots\n",
      "memory.injected_memory: expected a number between 0 and 1, got a string of 4 characters"
    ],
    ["memory:\n  system: -0.1\n", "memory.system: expected a number between 0 and 1, got -0.1"],
    ["memory:\n  task: 1.5\n", "memory.task: expected a number between 0 and 1, got 1.5"],
    ["memory:\n  response: null\n", "memory.response: expected a number between 0 and 1, got null"],
    ["memory:\n  max_observation_chars: 100\n", "memory.max_observation_chars: expected an integer >= 200, got 100"],
    [
      "memory:\n  max_prompt_chars: \"8000\"\n",
      "memory.max_prompt_chars: expected an integer >= 200, got a string of 4 characters"
    ],
    [
      "memory:\n  search:\n    recency_half_life_days: 0\n",
      "memory.search.recency_half_life_days: expected a number > 0 (days), got 0"
    ],
    [
      "memory:\n  search:\n    recency_weight: 1.5\n",
      "memory.search.recency_weight: expected a number between 0 and 1, got 1.5"
    ],
    ["loop:\n  max_iterations: 0\n", "loop.max_iterations: expected an integer >= 1, got 0"],
    [
      "loop:\n  max_duration: 30\n",
      "loop.max_duration: expected a duration like \"90s\", \"30m\" or \"2h\", or null for no limit, got 30"
    ],
    [
      "loop:\n  max_duration: forever\n",
      "loop.max_duration: expected a duration like \"90s\", \"30m\" or \"2h\", or null for no limit,"
      + " got a string of 7 characters"
    ],
    ["loop:\n  no_progress_threshold: 0\n", "loop.no_progress_threshold: expected an integer >= 1, got 0"],
    ["loop:\n  cooldown_ms: -1\n", "loop.cooldown_ms: expected an integer >= 0 (milliseconds), got -1"],
    ["loop:\n  context_budget: 2\n", "loop.context_budget: expected a number between 0 and 1, got 2"],
    [
      "loop:\n  success_criteria: test_pass\n",
      "loop.success_criteria: expected a list of criteria like [{type: test_pass}], got a string of 9 characters"
    ],
    ["backup:\n  keep: 0\n", "backup.keep: expected an integer >= 1, got 0"],
    [
      "backup:\n  interval: 0s\n",
      "backup.interval: expected a duration like \"90s\", \"30m\" or \"2h\", got a string of 2 characters"
    ],
    [
      "backup:\n  interval: [1h]\n",
      "backup.interval: expected a duration like \"90s\", \"30m\" or \"2h\", got a list of 1 item"
    ]
  ]

  for (const [yaml, message] of cases) {
    it(message.split(":")[0] ?? message, () => {
      const m = machine()
      m.write(m.projectFile, yaml)
      const { settings, problems } = m.load()
      expect(problems).toEqual([`${m.projectFile}: ${message}`])
      expect(settings).toEqual(defaultSettings)
    })
  }

  it("the valid keys of the same file still apply", () => {
    const m = machine()
    m.write(m.globalFile, "memory:\n  context_window: lots\n  max_prompt_chars: 300\n")
    const { settings, problems } = m.load()
    expect(problems).toEqual([
      `${m.globalFile}: memory.context_window: expected an integer >= 1000 (tokens), got a string of 4 characters`
    ])
    expect(settings.memory.contextWindow).toBe(200_000)
    expect(settings.memory.maxPromptChars).toBe(300)
  })
})

describe("success criteria", () => {
  it("read commands, exit codes, markers and timeouts", () => {
    const m = machine()
    m.write(
      m.globalFile,
      [
        "loop:",
        "  success_criteria:",
        "    - type: test_pass",
        "    - {type: build_success, command: npm run build, timeout: 5m}",
        "    - {type: custom, command: [./check.sh, --strict], expected_exit_code: 3}",
        "    - {type: marker, marker: ALL DONE}",
        ""
      ].join("\n")
    )
    const { settings, problems } = m.load()
    expect(problems).toEqual([])
    expect(settings.loop.successCriteria).toEqual([
      { type: "test_pass", expectedExitCode: 0 },
      { type: "build_success", command: "npm run build", expectedExitCode: 0, timeoutMs: 300_000 },
      { type: "custom", command: ["./check.sh", "--strict"], expectedExitCode: 3 },
      { type: "marker", marker: "ALL DONE", expectedExitCode: 0 }
    ])
  })

  it("an invalid item rejects the whole list, with a problem per field", () => {
    const m = machine()
    m.write(
      m.projectFile,
      [
        "loop:",
        "  success_criteria:",
        "    - type: tests",
        "    - {command: make}",
        "    - {type: custom}",
        "    - {type: marker}",
        "    - {type: lint_clean, expected_exit_code: zero, timeout: 10, command: 5}",
        "    - lint_clean",
        ""
      ].join("\n")
    )
    const { settings, problems } = m.load()
    const at = `${m.projectFile}: loop.success_criteria`
    expect(problems).toEqual([
      `${at}[0].type: expected one of test_pass, build_success, lint_clean, type_check, custom, marker,`
      + " got a string of 5 characters",
      `${at}[1].type: missing; expected one of test_pass, build_success, lint_clean, type_check, custom, marker`,
      `${at}[2]: type custom needs a command`,
      `${at}[3]: type marker needs a marker`,
      `${at}[4].expected_exit_code: expected an integer, got a string of 4 characters`,
      `${at}[4].timeout: expected a duration like "90s", "30m" or "2h", got 10`,
      `${at}[4].command: expected a command line or a list of strings (argv), got 5`,
      `${at}[5]: expected a mapping like {type: test_pass}, got a string of 10 characters`
    ])
    expect(settings.loop.successCriteria).toEqual(defaultSettings.loop.successCriteria)
  })

  it("an unknown key inside an item is reported with a suggestion and ignored", () => {
    const m = machine()
    m.write(m.globalFile, "loop:\n  success_criteria:\n    - {type: custom, command: make check, markr: x}\n")
    const { settings, problems } = m.load()
    expect(problems).toEqual([`${m.globalFile}: unknown key loop.success_criteria[0].markr; did you mean marker?`])
    expect(settings.loop.successCriteria).toEqual([{ type: "custom", command: "make check", expectedExitCode: 0 }])
  })
})

describe("budget shares", () => {
  it("may sum to exactly 1 (despite float rounding)", () => {
    const m = machine()
    m.write(m.globalFile, "memory:\n  system: 0.1\n  injected_memory: 0.2\n  task: 0.3\n  response: 0.4\n")
    const { settings, problems } = m.load()
    expect(problems).toEqual([])
    expect(settings.memory.injectedMemory).toBe(0.2)
  })

  it("over 1: a problem naming all four keys and the file; that layer's shares are dropped, other keys kept", () => {
    const m = machine()
    m.write(m.globalFile, "memory:\n  injected_memory: 0.1\n")
    m.write(m.projectFile, "memory:\n  task: 0.5\n  context_window: 100000\n")
    const { settings, problems } = m.load()
    expect(problems).toEqual([
      `${m.projectFile}: memory.system + memory.injected_memory + memory.task + memory.response must be at most 1, ` +
      "got 1.1 (0.1 + 0.1 + 0.5 + 0.4); these shares ignored"
    ])
    expect(settings.memory).toMatchObject({
      system: 0.1,
      injectedMemory: 0.1,
      task: 0.35,
      response: 0.4,
      contextWindow: 100_000
    })
  })

  it("are checked on the merged layers: a share lowered below makes room for one raised above", () => {
    const m = machine()
    m.write(m.globalFile, "memory:\n  injected_memory: 0.05\n")
    m.write(m.projectFile, "memory:\n  task: 0.45\n")
    const { settings, problems } = m.load()
    expect(problems).toEqual([])
    expect(settings.memory).toMatchObject({ task: 0.45, injectedMemory: 0.05 })
  })

  it("an injection share from the environment that overflows is refused", () => {
    const { settings, problems } = machine().load({ RALPH_MEM_INJECTION_SHARE: "0.5" })
    expect(problems).toEqual([
      "environment: memory.system + memory.injected_memory + memory.task + memory.response must be at most 1, " +
      "got 1.35 (0.1 + 0.5 + 0.35 + 0.4); these shares ignored"
    ])
    expect(settings.memory.injectedMemory).toBe(0.15)
  })
})

describe("unknown keys", () => {
  it("are reported with the nearest known key, and ignored", () => {
    const m = machine()
    m.write(
      m.projectFile,
      "memory:\n  contxt_window: 5\n  search:\n    recency_wieght: 0.5\nmemroy: {}\ncolour: blue\n"
    )
    const { settings, problems } = m.load()
    expect(problems).toEqual([
      `${m.projectFile}: unknown key memory.contxt_window; did you mean context_window?`,
      `${m.projectFile}: unknown key memory.search.recency_wieght; did you mean recency_weight?`,
      `${m.projectFile}: unknown key memroy; did you mean memory?`,
      `${m.projectFile}: unknown key colour`
    ])
    expect(settings).toEqual(defaultSettings)
  })

  it("a section that is not a mapping is a problem; an empty section is not", () => {
    const m = machine()
    m.write(m.projectFile, "memory:\nbackup: 3\nloop:\n  max_iterations: 2\n")
    const { settings, problems } = m.load()
    expect(problems).toEqual([`${m.projectFile}: backup: expected a mapping of settings, got 3`])
    expect(settings.loop.maxIterations).toBe(2)
  })
})

describe("files that cannot be used are one problem each, and the other layers still apply", () => {
  const ignoredProject = (text: string) => {
    const m = machine()
    m.write(m.globalFile, "loop:\n  max_iterations: 4\n")
    m.write(m.projectFile, text)
    const loaded = m.load()
    expect(loaded.settings.loop.maxIterations).toBe(4)
    expect(loaded.problems).toHaveLength(1)
    return { problem: loaded.problems[0] ?? "", file: m.projectFile }
  }

  it("malformed YAML", () => {
    const { problem, file } = ignoredProject("memory: [1\nloop: 2\n")
    expect(problem).toMatch(
      new RegExp(`^${file}: not valid YAML \\([A-Z_]+ at line \\d+, column \\d+\\); file ignored$`)
    )
  })

  it("duplicate keys", () => {
    const { problem, file } = ignoredProject("loop:\n  max_iterations: 1\n  max_iterations: 2\n")
    expect(problem).toBe(`${file}: not valid YAML (DUPLICATE_KEY at line 3, column 3); file ignored`)
  })

  it("a list at the top", () => {
    const { problem, file } = ignoredProject("- memory\n- loop\n")
    expect(problem).toBe(`${file}: expected a mapping of settings at the top, got a list; file ignored`)
  })

  it("a scalar at the top", () => {
    const { problem, file } = ignoredProject("just some words\n")
    expect(problem).toBe(`${file}: expected a mapping of settings at the top, got a string; file ignored`)
  })

  it("a file over 1 MB", () => {
    const text = `# ${"x".repeat(1024 * 1024)}\nloop:\n  max_iterations: 9\n`
    const { problem, file } = ignoredProject(text)
    expect(problem).toBe(`${file}: ${text.length} bytes, larger than the 1 MB limit; file ignored`)
  })

  it("an alias bomb", () => {
    const row = (name: string, of: string) => `${name}: &${name} [${Array(10).fill(of).join(", ")}]`
    const { problem, file } = ignoredProject(
      [row("a", "x"), row("b", "*a"), row("c", "*b"), row("d", "*c"), ""].join("\n")
    )
    expect(problem).toMatch(new RegExp(`^${file}: not usable YAML \\(.*alias.*\\); file ignored$`, "i"))
  })

  it("a folder where the file should be", () => {
    const m = machine()
    mkdirSync(m.projectFile, { recursive: true })
    expect(m.load().problems).toEqual([`${m.projectFile}: not a regular file; file ignored`])
  })

  it("an empty file or one with only comments is fine", () => {
    const m = machine()
    m.write(m.globalFile, "")
    m.write(m.projectFile, "# nothing yet\n")
    expect(m.load()).toMatchObject({ settings: defaultSettings, problems: [] })
  })
})

describe("loadSettings defaults", () => {
  it("reads process.env when no env is given", () => {
    const m = machine()
    const before = process.env["RALPH_MEM_MAX_PROMPT_CHARS"]
    process.env["RALPH_MEM_MAX_PROMPT_CHARS"] = "1234"
    try {
      expect(loadSettings({ projectRoot: m.projectRoot, home: m.home }).settings.memory.maxPromptChars).toBe(1_234)
    } finally {
      if (before === undefined) delete process.env["RALPH_MEM_MAX_PROMPT_CHARS"]
      else process.env["RALPH_MEM_MAX_PROMPT_CHARS"] = before
    }
  })
})
