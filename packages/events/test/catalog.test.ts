import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { catalog, defineEvent, makeCatalog, type RalphMemEvent } from "../src/index.ts"

const samples: ReadonlyArray<RalphMemEvent> = [
  { _tag: "SessionStarted", sessionId: "s1", projectPath: "/p", source: "resume", model: "opus" },
  { _tag: "PromptSubmitted", sessionId: "s1", prompt: "fix the login bug" },
  {
    _tag: "ContextInjected",
    sessionId: "s1",
    hookEvent: "SessionStart",
    reason: "recent",
    text: "…",
    tokens: 12,
    sources: ["01A"]
  },
  {
    _tag: "ObservationRecorded",
    sessionId: "s1",
    kind: "error",
    toolName: "Bash",
    content: "boom",
    files: ["a.ts"],
    errorMessage: "Exit code 1"
  },
  { _tag: "SessionEnded", sessionId: "s1", reason: "logout" },
  {
    _tag: "LoopStarted",
    loopId: "l1",
    goal: "make tests pass",
    projectPath: "/p",
    driver: "session",
    sessionId: "s1",
    config: {
      maxIterations: 10,
      noProgressThreshold: 3,
      cooldownMs: 1000,
      contextBudget: 0.6,
      successCriteria: [{ kind: "test_pass" }, { kind: "custom", command: ["make", "check"], expectedExitCode: 0 }]
    }
  },
  { _tag: "HookFailed", hook: "PostToolUse", reason: "stdin is not JSON" }
]

describe("the ralph-mem catalog", () => {
  it.each(samples.map((event) => [event._tag, event] as const))(
    "round-trips %s through its stored form",
    (_, event) => {
      const encoded = Result.getOrThrow(catalog.encode(event))
      expect(encoded.type).toBe(event._tag)
      expect(encoded.schemaVersion).toBe(1)
      expect(JSON.parse(encoded.payload)).not.toHaveProperty("_tag")
      const decoded = Result.getOrThrow(
        catalog.decode(encoded.type, encoded.schemaVersion, JSON.parse(encoded.payload))
      )
      expect(decoded).toEqual(event)
    }
  )

  it.each(samples.map((event) => [event._tag, event] as const))(
    "reads %s back from the log as decode does, without checking it again",
    (_, event) => {
      const encoded = Result.getOrThrow(catalog.encode(event))
      const stored = JSON.parse(encoded.payload)
      const decoded = Result.getOrThrow(catalog.decodeStored(encoded.type, encoded.schemaVersion, stored))
      expect(JSON.stringify(decoded)).toBe(
        JSON.stringify(Result.getOrThrow(catalog.decode(encoded.type, encoded.schemaVersion, stored)))
      )
    }
  )

  it("reads back through decode what is not stored as is: another version, a transformed field, a non-object", () => {
    const Timed = defineEvent("Timed", { at: Schema.NumberFromString })
    const timed = makeCatalog([Timed])
    expect(Result.getOrThrow(timed.decodeStored("Timed", 1, { at: "42" }))).toEqual({ _tag: "Timed", at: 42 })
    expect(Result.isFailure(catalog.decodeStored("SessionEnded", 1, "garbage"))).toBe(true)
    expect(Result.isFailure(catalog.decodeStored("SessionEnded", 2, { sessionId: "s", reason: "exit" }))).toBe(true)
  })

  it("rejects an event whose fields break its schema, naming the event", () => {
    const bad = {
      _tag: "SessionStarted",
      sessionId: "s1",
      projectPath: "/p",
      source: "reboot"
    } as unknown as RalphMemEvent
    const result = catalog.encode(bad)
    expect(Result.isFailure(result)).toBe(true)
    expect(Result.isFailure(result) && result.failure).toMatch(/^SessionStarted: .*reboot|source/s)
  })

  it("rejects an unknown event type on write and on read", () => {
    expect(Result.isFailure(catalog.encode({ _tag: "Nope" } as unknown as RalphMemEvent))).toBe(true)
    const read = catalog.decode("Nope", 1, {})
    expect(Result.isFailure(read) && read.failure).toMatch(/unknown event type "Nope"/)
  })

  it("refuses to decode a version newer than it knows", () => {
    const read = catalog.decode("SessionStarted", 7, { sessionId: "s", projectPath: "/p", source: "startup" })
    expect(Result.isFailure(read) && read.failure).toMatch(/v7 is newer than this ralph-mem knows \(v1\)/)
  })

  it("lists every event type once", () => {
    expect(new Set(catalog.types).size).toBe(catalog.types.length)
    expect(catalog.types).toContain("MemoryForgotten")
    expect(catalog.types).toContain("LoopRolledBack")
  })
})

describe("upcasting", () => {
  // A type that changed twice: v1 had one `name`, v2 split it, v3 added a default `tags`.
  const V1 = Schema.Struct({ name: Schema.String })
  const V2 = Schema.Struct({ first: Schema.String, last: Schema.String })
  const PersonNamed = defineEvent(
    "PersonNamed",
    { first: Schema.String, last: Schema.String, tags: Schema.Array(Schema.String) },
    [
      {
        version: 1,
        schema: V1,
        up: ({ name }: typeof V1.Type) => {
          const [first = "", ...rest] = name.split(" ")
          return { first, last: rest.join(" ") }
        }
      },
      { version: 2, schema: V2, up: (v2: typeof V2.Type) => ({ ...v2, tags: [] }) }
    ]
  )
  const people = makeCatalog([PersonNamed])

  it("writes at the current version", () => {
    const encoded = Result.getOrThrow(
      people.encode({ _tag: "PersonNamed", first: "Ada", last: "Lovelace", tags: ["math"] })
    )
    expect(encoded.schemaVersion).toBe(3)
  })

  it("reads v1 and v2 payloads as the current shape, through each step", () => {
    expect(Result.getOrThrow(people.decode("PersonNamed", 1, { name: "Grace Brewster Hopper" }))).toEqual({
      _tag: "PersonNamed",
      first: "Grace",
      last: "Brewster Hopper",
      tags: []
    })
    expect(Result.getOrThrow(people.decode("PersonNamed", 2, { first: "Alan", last: "Turing" }))).toEqual({
      _tag: "PersonNamed",
      first: "Alan",
      last: "Turing",
      tags: []
    })
  })

  it("upcasts an older payload read back from the log", () => {
    expect(Result.getOrThrow(people.decodeStored("PersonNamed", 2, { first: "Alan", last: "Turing" }))).toEqual({
      _tag: "PersonNamed",
      first: "Alan",
      last: "Turing",
      tags: []
    })
  })

  it("reports a malformed old payload instead of upcasting garbage", () => {
    const read = people.decode("PersonNamed", 1, { name: 42 })
    expect(Result.isFailure(read) && read.failure).toMatch(/^PersonNamed v1: /)
  })

  it("refuses upcasts listed out of order", () => {
    expect(() => defineEvent("Broken", {}, [{ version: 2, schema: V2, up: (x) => x }])).toThrow(/from version 1 up/)
  })
})
