/** The plan loop's gate: required headings in English or Korean, and a minimum number of iterations. */
import { describe, expect, it } from "vitest"
import { checkMinIterations, checkPlanSections } from "../../src/criteria/plan.ts"

const plan = (...headings: ReadonlyArray<string>) => headings.map((h) => `${h}\n\nSome text.\n`).join("\n")

/** The sections the gate finds missing, as its failure names them. */
const missingSections = (text: string, sections: ReadonlyArray<string>): ReadonlyArray<string> => {
  const result = checkPlanSections({ kind: "plan_sections", sections }, text)
  if (result.passed) return []
  return result.outputTail.match(/^the plan lacks a heading for: (.*) \(a Markdown heading/)![1]!.split(", ")
}

describe("plan sections", () => {
  it("reads Markdown headings, numbered or emphasised, and ignores text that only mentions a section", () => {
    const text = "# Plan\n## 1. **Steps**:\nsteps are below\n   ### Risks ##\n####### not a heading\n"
    expect(missingSections(text, ["Plan", "Steps", "Risks", "heading"])).toEqual(["heading"])
    expect(missingSections("The steps and risks are obvious.", ["Steps", "Risks"])).toEqual(["Steps", "Risks"])
  })

  it("accepts English headings, synonyms and longer headings that name the section", () => {
    expect(
      missingSections(plan("## Goal", "## Implementation Steps", "## Risks and mitigations", "## Testing"), [
        "Goal",
        "Steps",
        "Risks",
        "Verification"
      ])
    ).toEqual([])
    // "Stepsize" is not "Steps".
    expect(missingSections(plan("## Stepsize"), ["Steps"])).toEqual(["Steps"])
  })

  it("accepts Korean headings for English names and the other way round, with particles", () => {
    expect(
      missingSections(plan("## 목표", "## 구현 단계", "## 위험 요소", "## 검증 방법"), [
        "Goal",
        "Steps",
        "Risks",
        "Verification"
      ])
    ).toEqual([])
    expect(missingSections(plan("## Goal", "## Steps"), ["목표", "단계", "위험"])).toEqual(["위험"])
    expect(missingSections(plan("### 단계별 계획"), ["Steps"])).toEqual([])
  })

  it("takes custom section names as they are", () => {
    expect(missingSections(plan("## Data model", "## API"), ["Data model", "API", "Migration"])).toEqual(["Migration"])
  })

  it("fails with what is missing (a stable fingerprint), and passes with every section", () => {
    const failed = checkPlanSections({ kind: "plan_sections", sections: ["Goal", "Risks"] }, plan("## Goal"))
    expect(failed).toMatchObject({
      kind: "plan_sections",
      passed: false,
      outputTail: expect.stringMatching(/lacks a heading for: Risks/)
    })
    expect(failed.fingerprint).toBe(
      checkPlanSections({ kind: "plan_sections", sections: ["Goal", "Risks"] }, plan("## 목표")).fingerprint
    )
    expect(
      checkPlanSections({ kind: "plan_sections", sections: ["Goal", "Risks"] }, plan("## Goal", "## 리스크")).passed
    ).toBe(true)
    expect(checkPlanSections({ kind: "plan_sections" }, undefined).passed).toBe(false)
  })
})

describe("min_iterations", () => {
  it("holds the plan back before the minimum: the first iteration is a draft", () => {
    expect(checkMinIterations({ kind: "min_iterations", minIterations: 2 }, 1)).toMatchObject({
      passed: false,
      outputTail: expect.stringMatching(/draft to critique/)
    })
    expect(checkMinIterations({ kind: "min_iterations", minIterations: 2 }, 2).passed).toBe(true)
    // Each iteration's fingerprint differs: waiting for the minimum is never "no progress".
    expect(checkMinIterations({ kind: "min_iterations", minIterations: 3 }, 1).fingerprint).not.toBe(
      checkMinIterations({ kind: "min_iterations", minIterations: 3 }, 2).fingerprint
    )
  })
})
