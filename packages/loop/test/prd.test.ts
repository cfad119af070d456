/** prd.json: validated with one clear problem per mistake, and its `passes` flags kept by the harness. */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../events/test/helpers.ts"
import { PrdInvalid, readPrd, syncPrdFile } from "../src/prd.ts"
import { fold } from "../src/state.ts"

/** Reads `text` as a prd.json file. */
const prdOf = (text: string) => {
  const path = join(tempFolder(), "prd.json")
  writeFileSync(path, text)
  return readPrd(path)
}

const problems = (text: string) => {
  const parsed = prdOf(text)
  expect(parsed).toBeInstanceOf(PrdInvalid)
  return (parsed as PrdInvalid).problems
}

describe("readPrd", () => {
  it("reads the prd.json format: stories with id, title, description, acceptance criteria, priority and passes", () => {
    const prd = prdOf(
      JSON.stringify({
        project: "Shop",
        description: "Checkout",
        userStories: [
          {
            id: "US-001",
            title: "Cart",
            description: "As a buyer…",
            acceptanceCriteria: ["adds items"],
            priority: 2,
            passes: false,
            notes: ""
          },
          { id: 7, title: "Pay", acceptanceCriteria: [], passes: true, criteria: ["custom=node pay.test.js"] }
        ]
      })
    )
    expect(prd).toEqual({
      description: "Checkout",
      stories: [
        {
          id: "US-001",
          title: "Cart",
          description: "As a buyer…",
          acceptanceCriteria: ["adds items"],
          priority: 2,
          passes: false
        },
        // No priority: the file's order; an integer id becomes a string; per-story checks parse like --criteria.
        {
          id: "7",
          title: "Pay",
          description: "",
          acceptanceCriteria: [],
          priority: 2,
          passes: true,
          criteria: [{ kind: "custom", command: ["node", "pay.test.js"] }]
        }
      ]
    })
  })

  it("reports every problem at once, each naming its field", () => {
    expect(problems("{ not json")[0]).toMatch(/^not valid JSON: /)
    expect(problems("[]")).toEqual(["expected an object with \"userStories\", got []"])
    expect(problems(JSON.stringify({ userStories: [] }))).toEqual([
      "userStories: expected a non-empty list of stories, got []"
    ])
    expect(problems(JSON.stringify({
      userStories: [
        { id: "", title: "a", acceptanceCriteria: [] },
        {
          id: "B",
          title: " ",
          acceptanceCriteria: "x",
          priority: "high",
          passes: "no",
          notes: 3,
          criteria: ["bogus", 4]
        },
        "story",
        { id: "B", title: "again", acceptanceCriteria: [] }
      ]
    }))).toEqual([
      "userStories[0].id: expected a non-empty string or an integer, got \"\"",
      "userStories[1].title: expected a non-empty string, got \" \"",
      "userStories[1].acceptanceCriteria: expected a list of strings, got \"x\"",
      "userStories[1].priority: expected a number (lower comes first), got \"high\"",
      "userStories[1].passes: expected true or false, got \"no\"",
      "userStories[1].notes: expected a string, got 3",
      "userStories[1].criteria[0]: unknown criterion \"bogus\";"
      + " use one of test_pass, build_success, lint_clean, type_check, custom, marker",
      "userStories[1].criteria[1]: expected a string, got 4",
      "userStories[2]: expected an object, got \"story\""
    ])
    expect(
      problems(
        JSON.stringify({
          userStories: [{ id: "A", title: "a", acceptanceCriteria: [] }, {
            id: "A",
            title: "b",
            acceptanceCriteria: []
          }]
        })
      )
    ).toEqual([
      "userStories[1].id: \"A\" is also the id of userStories[0]"
    ])
  })
})

describe("syncPrdFile", () => {
  it("writes the harness's flags, keeps every other field, and undoes an agent's own flip", () => {
    const path = join(tempFolder(), "prd.json")
    const original = {
      project: "Shop",
      branchName: "ralph/checkout",
      userStories: [
        { id: "US-001", title: "Cart", acceptanceCriteria: [], priority: 1, passes: false, extra: { kept: true } },
        // The agent said this one passes; the harness never saw its checks pass.
        { id: "US-002", title: "Pay", acceptanceCriteria: [], priority: 2, passes: true }
      ]
    }
    writeFileSync(path, JSON.stringify(original))
    const loop = fold([
      {
        event: {
          _tag: "LoopStarted",
          loopId: "l",
          goal: "g",
          projectPath: "/p",
          driver: "external",
          config: { maxIterations: 3, noProgressThreshold: 2, cooldownMs: 0, contextBudget: 0.5, successCriteria: [] },
          prd: {
            path,
            stories: [
              { id: "US-001", title: "Cart", description: "", acceptanceCriteria: [], priority: 1, passes: false },
              { id: "US-002", title: "Pay", description: "", acceptanceCriteria: [], priority: 2, passes: false }
            ]
          }
        },
        occurredAt: 0
      },
      { event: { _tag: "LoopStoryPassed", loopId: "l", storyId: "US-001", iteration: 1 }, occurredAt: 1 }
    ])!
    expect(syncPrdFile(loop)).toBe(true)
    const written = JSON.parse(readFileSync(path, "utf8"))
    expect(written).toEqual({
      ...original,
      userStories: [{ ...original.userStories[0], passes: true }, { ...original.userStories[1], passes: false }]
    })
    expect(syncPrdFile(loop)).toBe(false)
    writeFileSync(path, "{ broken")
    expect(syncPrdFile(loop)).toBe(false)
    expect(readFileSync(path, "utf8")).toBe("{ broken")
  })
})
