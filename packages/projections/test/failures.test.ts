import { compactLog, type RalphMemEvent } from "@ralph-mem/events"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { run } from "../../events/test/helpers.ts"
import {
  activityBetween,
  checkKind,
  failureDigest,
  failureHeadline,
  type FailureRecord,
  failureTerms,
  type MemoryStore,
  normalizeCommand,
  projectFailures,
  recogniseFailure,
  sameTerms,
  signatureOf,
  verify
} from "../src/index.ts"
import { config, observation, started } from "./events.ts"
import { at, given, open, rows } from "./spec.ts"

const READ_FAILURES = join(import.meta.dirname, "fixtures", "read-failures.ts")

const failing = (session: string, command: string, output: string): RalphMemEvent =>
  observation(session, output, { kind: "error", inputSummary: command, errorMessage: "Exit code 1" })
const passing = (session: string, command: string): RalphMemEvent =>
  observation(session, "ok", { kind: "success", inputSummary: command })
/** Loop l1, run in session a of /work/app. */
const loopStarted: RalphMemEvent = {
  _tag: "LoopStarted",
  loopId: "l1",
  goal: "green",
  projectPath: "/work/app",
  driver: "session",
  sessionId: "a",
  config
}
const edit = (session: string, file: string): RalphMemEvent =>
  observation(session, "- a\n+ b", { toolName: "Edit", inputSummary: file, files: [file] })

const VITEST_FAIL =
  " FAIL  src/auth.test.ts > login > refreshes the token 12ms\nTokenExpiredError: jwt expired\n Tests  1 failed (3)"

describe("recognising a failure again", () => {
  it("normalises a command to what it runs: no cd, no pipe into tail, no redirections", () => {
    expect(normalizeCommand("cd /work/app && npm test 2>&1 | tail -20")).toBe("npm test")
    expect(normalizeCommand("npx vitest run src/a.test.ts > out.log 2>&1")).toBe("npx vitest run src/a.test.ts")
    expect(normalizeCommand("make build || echo failed")).toBe("make build || echo failed")
  })

  it("names the check a command runs by its first check word", () => {
    expect(checkKind("npm test -- auth")).toBe("test")
    expect(checkKind("npx tsc --noEmit")).toBe("typecheck")
    expect(checkKind("npm run build && npm test")).toBe("build")
    expect(checkKind("ls -la")).toBeUndefined()
    // A folder in a path is not a check word; a script named after one still is.
    expect(checkKind("git log --oneline -5 -- tests/conftest.py")).toBeUndefined()
    expect(checkKind("ls build/ src/test/java")).toBeUndefined()
    expect(checkKind("pytest tests/test_email.py")).toBe("test")
    expect(checkKind("bash scripts/test.sh")).toBe("test")
  })

  it("digests what failed, blind to timings, and has no digest when nothing is named", () => {
    expect(failureDigest(signatureOf(VITEST_FAIL))).toBe(
      failureDigest(signatureOf(VITEST_FAIL.replace("12ms", "873ms")))
    )
    expect(failureDigest(signatureOf(VITEST_FAIL))).not.toBe(
      failureDigest(signatureOf(VITEST_FAIL.replace("refreshes", "revokes")))
    )
    expect(
      failureDigest(signatureOf("Exit code 1\nnpm error Lifecycle script `test` failed with error:\nnpm error code 1"))
    ).toBeUndefined()
  })

  it("matches by distinctive terms only when most are shared", () => {
    const a = failureTerms(
      signatureOf("TypeError: cannot read properties of undefined (reading 'token') at refreshSession src/auth.ts")
    )
    const b = failureTerms(
      signatureOf("TypeError: cannot read properties of undefined (reading 'token') at refreshSession src/session.ts")
    )
    expect(sameTerms(a, b)).toBe(true)
    expect(sameTerms(a, failureTerms(signatureOf("SyntaxError: unexpected token in src/parser.ts")))).toBe(false)
  })

  it("finds the same terms in an ASCII line as the Unicode word classes do, and keeps words in any script", () => {
    const lines = [
      "TypeError: cannot read properties of undefined (reading 'token') at refreshSession src/auth.ts",
      "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      "FAILED tests/test_api.py::test_login_v2 - AssertionError: assert 401 == 200",
      "--- FAIL: TestParse_Header (0.00s) ../pkg/http2/frame_test.go:42 0x1f3a9c deadbeef",
      "\tat Object.<anonymous> (/home/u/.cache/x-y/z.js:10:3) [[ISO-8859-1]] ~~~ 1234 _a_b_ ./-x-./"
    ]
    for (const line of lines) {
      // A word the terms drop ("é", shorter than a term) makes the line non-ASCII: the Unicode classes split it.
      expect(failureTerms([line])).toEqual(failureTerms([`${line} é`]))
      expect(failureTerms([line]).length).toBeGreaterThan(0)
    }
    expect(failureTerms(["Ошибка: модуль auth.ts не найден; 認証エラー in löwe_handler"])).toEqual(
      ["auth.ts", "löwe_handler", "модуль", "найден", "ошибка", "認証エラー"]
    )
  })
})

describe("a failure in one line", () => {
  it("gives the message that follows a line naming only a test or a file", () => {
    expect(failureHeadline(`Exit code 1\n${VITEST_FAIL}`))
      .toBe("FAIL src/auth.test.ts > login > refreshes the token 12ms: TokenExpiredError: jwt expired")
    expect(failureHeadline(
      "FAIL src/payments/webhook.test.ts\n    at Object.<anonymous> (webhook.test.ts:4:1)\n" +
        "Error: Timeout of 5000ms exceeded waiting for signature verification"
    ))
      .toBe("FAIL src/payments/webhook.test.ts: Error: Timeout of 5000ms exceeded waiting for signature verification")
    const cargo =
      "test csv::quoted_newline ... FAILED\nthread 'csv::quoted_newline' panicked: expected 2 records, got 3"
    expect(failureHeadline(cargo))
      .toBe("test csv::quoted_newline ... FAILED: thread 'csv::quoted_newline' panicked: expected 2 records, got 3")
  })

  it("keeps a line that says what failed as it is, and a line naming a failure when nothing says more", () => {
    expect(failureHeadline("src/a.ts(3,5): error TS2532: Object is possibly 'undefined'.\nFound 1 error in 1 file."))
      .toBe("src/a.ts(3,5): error TS2532: Object is possibly 'undefined'.")
    expect(failureHeadline("FAIL src/a.test.ts\nTests  1 failed (3)")).toBe("FAIL src/a.test.ts")
    // A loop's check reports its exit in its own words: that says nothing of what failed.
    expect(failureHeadline(" FAIL  src/thing.test.ts > works\n\n[ralph-mem] exit code 1, expected 0")).toBe(
      "FAIL src/thing.test.ts > works"
    )
  })

  it("falls back to a tool's own line when every line is one (npm's engine check), never to nothing", () => {
    expect(failureHeadline("Exit code 1\nnpm ERR! engine Unsupported engine: wanted: {\"node\":\">=22\"}"))
      .toBe("npm ERR! engine Unsupported engine: wanted: {\"node\":\">=22\"}")
    expect(failureHeadline("Exit code 1\nnpm error code 1\n")).toBe("npm error code 1")
    expect(failureHeadline("Exit code 1")).toBe("")
  })
})

describe("failures and what resolved them", () => {
  it("resolves a failing run by the next passing run of the same command, and says what came between", () => {
    const memory = given([
      ["session:a", started("a")],
      ["session:a", failing("a", "npm test -- auth 2>&1 | tail -5", VITEST_FAIL)],
      ["session:a", edit("a", "/work/app/src/auth.ts")],
      ["session:a", observation("a", "12: expiresIn", { inputSummary: "grep -n expiresIn src/auth.ts" })],
      ["session:a", {
        _tag: "NoteInjected",
        noteId: "n1",
        projectPath: "/work/app",
        sessionId: "a",
        noteType: "note",
        text: "tokens live an hour"
      }],
      ["session:a", passing("a", "npm test -- auth")]
    ])
    const [failure] = projectFailures(memory.db, { project: "/work/app", limit: 10 })
    expect(failure).toMatchObject({
      position: 2,
      family: "test",
      command: "npm test -- auth",
      ...recogniseFailure(VITEST_FAIL),
      failedAt: at(1),
      resolution: { position: 6, at: at(5) }
    })
    const activity = activityBetween(memory.db, { project: "/work/app", after: 2, before: 6, limit: 3 })
    expect(activity.edits.map((e) => [e.position, e.text, e.change])).toEqual([[
      3,
      "/work/app/src/auth.ts",
      "- a\n+ b"
    ]])
    expect(activity.commands.map((e) => e.text)).toEqual(["grep -n expiresIn src/auth.ts"])
    expect(activity.notes.map((e) => e.text)).toEqual(["tokens live an hour"])
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("a broader passing run resolves a narrower failure, not the reverse; other commands resolve nothing", () => {
    const memory = given([
      ["session:a", started("a")],
      ["session:a", failing("a", "npm test -- auth", VITEST_FAIL)],
      ["session:a", failing("a", "npm test", VITEST_FAIL)],
      ["session:a", failing("a", "node scripts/seed.js", "Error: ECONNREFUSED")],
      ["session:a", passing("a", "npm test -- other")],
      ["session:a", passing("a", "npm run lint")],
      ["session:a", passing("a", "node scripts/seed.js --dry")]
    ])
    expect(projectFailures(memory.db, { project: "/work/app", limit: 10 }).map((f) => f.resolution)).toEqual([
      null,
      null,
      null
    ])
    const later = given([
      ["session:a", started("a")],
      ["session:a", failing("a", "npm test -- auth", VITEST_FAIL)],
      ["session:a", failing("a", "node scripts/seed.js", "Error: ECONNREFUSED")],
      ["session:a", passing("a", "npm test")],
      ["session:a", passing("a", "node scripts/seed.js")]
    ])
    expect(projectFailures(later.db, { project: "/work/app", limit: 10 }).map((f) => f.resolution?.position)).toEqual([
      5,
      4
    ])
  })

  it("a loop's passing test check resolves a failed test run; its failing check is a failure of its own", () => {
    const results = (
      passed: boolean
    ) => [{ kind: "test_pass" as const, passed, durationMs: 5, outputTail: passed ? "ok" : VITEST_FAIL }]
    const memory = given([
      ["session:a", started("a")],
      ["session:a", failing("a", "npm test", VITEST_FAIL)],
      ["loop:l1", loopStarted],
      ["loop:l1", { _tag: "LoopCriteriaEvaluated", loopId: "l1", iteration: 1, results: results(false) }],
      ["session:a", edit("a", "/work/app/src/auth.ts")],
      ["loop:l1", { _tag: "LoopCriteriaEvaluated", loopId: "l1", iteration: 2, results: results(true) }]
    ])
    const found = projectFailures(memory.db, { project: "/work/app", limit: 10 })
    expect(found.map((f) => [f.position, f.family, f.command, f.sessionId, f.resolution?.position])).toEqual([
      [4, "test", "test_pass", "a", 6],
      [2, "test", "npm test", "a", 6]
    ])
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("a pass in another project resolves nothing", () => {
    const memory = given([
      ["session:a", started("a")],
      ["session:a", failing("a", "npm test", VITEST_FAIL)],
      ["session:b", { _tag: "SessionStarted", sessionId: "b", projectPath: "/work/other", source: "startup" }],
      ["session:b", passing("b", "npm test")]
    ])
    expect(projectFailures(memory.db, { project: "/work/app", limit: 10 })[0]?.resolution).toBeNull()
  })
})

describe("what a failure's row keeps (version 3)", () => {
  const TSC = "Exit code 2\nsrc/a.ts(3,5): error TS2532: Object is possibly 'undefined'.\nFound 1 error in 1 file."
  const recorded = (memory: MemoryStore) =>
    rows(memory, "SELECT position, part, command, digest, terms, headline FROM failure_rows ORDER BY position, part")

  it("what the failure is recognised by and told with, from a command's output and a loop check's tail", () => {
    const memory = given([
      ["session:a", started("a")],
      ["session:a", failing("a", "npx tsc --noEmit", TSC)],
      ["session:a", failing("a", "node seed.js", "Exit code 1")],
      ["loop:l1", loopStarted],
      ["loop:l1", {
        _tag: "LoopCriteriaEvaluated",
        loopId: "l1",
        iteration: 1,
        results: [
          { kind: "build_success", passed: true, durationMs: 5, outputTail: "ok" },
          { kind: "test_pass", passed: false, durationMs: 5, outputTail: VITEST_FAIL }
        ]
      }]
    ])
    expect(recorded(memory)).toEqual([
      {
        position: 2,
        part: 0,
        command: "npx tsc --noEmit",
        digest: failureDigest(signatureOf(TSC)),
        terms: JSON.stringify(["src/a.ts", "ts2532"]),
        // Without its closing period: a recall goes on after it.
        headline: "src/a.ts(3,5): error TS2532: Object is possibly 'undefined'"
      },
      // Its output names nothing: no digest, no terms, nothing to match it by.
      { position: 3, part: 0, command: "node seed.js", digest: null, terms: "[]", headline: "" },
      {
        position: 5,
        part: 1,
        command: "test_pass",
        digest: failureDigest(signatureOf(VITEST_FAIL)),
        terms: JSON.stringify(failureTerms(signatureOf(VITEST_FAIL))),
        headline: "FAIL src/auth.test.ts > login > refreshes the token 12ms: TokenExpiredError: jwt expired"
      }
    ])
    expect(run(verify(memory)).findings).toEqual([])
  })

  it("is rebuilt from the log in a database whose failures were folded by version 2", () => {
    const memory = given([["session:a", started("a")], ["session:a", failing("a", "npx tsc --noEmit", TSC)]])
    const folded = recorded(memory)
    memory.db.exec(`DROP TABLE failure_rows;
      CREATE TABLE failure_rows (position INTEGER NOT NULL, part INTEGER NOT NULL, session_id TEXT, project_path TEXT,
        family TEXT NOT NULL, command TEXT NOT NULL, resolving_keys TEXT NOT NULL, PRIMARY KEY (position, part)) STRICT;
      UPDATE projection_checkpoints SET version = 2 WHERE name = 'failures';`)
    memory.db.close()
    const reopened = open(memory.db.name)
    expect(reopened.runner.checkpoint("failures")?.version).toBe(3)
    expect(recorded(reopened)).toEqual(folded)
  })

  it("is what a failure packed by compaction is read by: a fresh process reads it without loading zlib", () => {
    const memory = given([
      ["session:a", started("a")],
      ["session:a", failing("a", "npx tsc --noEmit", TSC)],
      ["session:a", edit("a", "/work/app/src/a.ts")],
      ["session:a", passing("a", "npx tsc --noEmit")]
    ])
    compactLog(memory.db, { idleMs: 0 })
    expect(rows(memory, "SELECT count(*) AS unpacked FROM event_rows WHERE block_id IS NULL")).toEqual([{
      unpacked: 0
    }])
    memory.db.close()
    const child = spawnSync(process.execPath, [READ_FAILURES, memory.db.name, "/work/app"], { encoding: "utf8" })
    expect(child.stderr).toBe("")
    const read = JSON.parse(child.stdout) as {
      failures: Array<FailureRecord>
      afterFailures: boolean
      payloadRead: string
      afterPayload: boolean
    }
    expect(read.failures).toEqual([{
      position: 2,
      eventId: expect.any(String),
      sessionId: "a",
      family: "typecheck",
      command: "npx tsc --noEmit",
      ...recogniseFailure(TSC),
      failedAt: at(1),
      resolution: { position: 4, eventId: expect.any(String), at: at(3) }
    }])
    // Nothing was unpacked to read it; reading its payload, which is packed, is what loads zlib.
    expect(read).toMatchObject({ afterFailures: false, payloadRead: "string", afterPayload: true })
  })
})
