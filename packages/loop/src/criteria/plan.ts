/**
 * The plan loop's quality gate, checked by the harness on the plan text itself: every required section
 * has a heading (in English or in Korean), and the loop has run its minimum number of iterations (the
 * first is always a draft to critique). Pure.
 */
import type { Criterion, CriterionResult } from "@ralph-mem/events"
import { fingerprintFailure } from "@ralph-mem/projections"

export const DEFAULT_PLAN_SECTIONS: ReadonlyArray<string> = ["Goal", "Steps", "Risks", "Verification"]
export const DEFAULT_PLAN_MARKER = "[PLAN_COMPLETE]"
export const DEFAULT_MIN_PLAN_ITERATIONS = 2

/** Names that mean the same section; a heading with any of them satisfies a requirement for any other. */
const SYNONYMS: ReadonlyArray<ReadonlyArray<string>> = [
  ["goal", "goals", "objective", "목표", "목적"],
  ["overview", "summary", "개요", "요약"],
  ["context", "background", "배경", "맥락"],
  ["scope", "범위"],
  ["steps", "plan", "implementation", "tasks", "단계", "구현", "작업", "계획"],
  ["risks", "risk", "위험", "리스크"],
  ["verification", "testing", "tests", "validation", "검증", "테스트"],
  ["alternatives", "options", "대안"],
  ["dependencies", "의존성"],
  ["open questions", "questions", "미해결 질문", "질문"],
  ["rollback", "롤백"],
  ["timeline", "schedule", "일정"],
  ["decisions", "결정", "결정 사항"]
]

const normalize = (text: string) =>
  text.normalize("NFC").toLowerCase().replace(/[*_`]/g, "").replace(/\s+/g, " ").trim()

const namesFor = (section: string): ReadonlyArray<string> => {
  const name = normalize(section)
  return SYNONYMS.find((group) => group.includes(name)) ?? [name]
}

/** Markdown ATX headings (`## Steps`, `### 2. 단계:`), normalized. */
const headingsOf = (markdown: string): ReadonlyArray<string> =>
  [...markdown.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)].map((m) => normalize(m[1]!.replace(/^[\d.)\s]+/, "")))

const isHangul = (name: string) => /[\uac00-\ud7a3]/.test(name)
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A heading names a section when it contains one of its names as words ("Implementation Steps"); Korean by
 * substring.
 */
const headingNames = (heading: string, names: ReadonlyArray<string>) =>
  names.some((
    name
  ) => (isHangul(name)
    ? heading.includes(name)
    : new RegExp(`(^|[^\\p{L}\\p{N}])${escape(name)}($|[^\\p{L}\\p{N}])`, "u").test(heading))
  )

const missingSections = (plan: string, sections: ReadonlyArray<string>): ReadonlyArray<string> => {
  const headings = headingsOf(plan)
  return sections.filter((section) => !headings.some((heading) => headingNames(heading, namesFor(section))))
}

export const checkPlanSections = (criterion: Criterion, plan: string | undefined): CriterionResult => {
  const sections = criterion.sections ?? DEFAULT_PLAN_SECTIONS
  const missing = missingSections(plan ?? "", sections)
  if (missing.length === 0) {
    return {
      kind: "plan_sections",
      passed: true,
      durationMs: 0,
      outputTail: `every required section has a heading: ${sections.join(", ")}`
    }
  }
  const outputTail = `the plan lacks a heading for: ${missing.join(", ")} (a Markdown heading such as "## ${
    missing[0]
  }"; Korean headings count too)`
  return {
    kind: "plan_sections",
    passed: false,
    durationMs: 0,
    outputTail,
    fingerprint: fingerprintFailure("", { fallback: `missing: ${missing.join(", ")}` })
  }
}

export const checkMinIterations = (criterion: Criterion, iteration: number | undefined): CriterionResult => {
  const minimum = criterion.minIterations ?? DEFAULT_MIN_PLAN_ITERATIONS
  const reached = iteration ?? 0
  return reached >= minimum
    ? { kind: "min_iterations", passed: true, durationMs: 0, outputTail: `iteration ${reached} of at least ${minimum}` }
    : {
      kind: "min_iterations",
      passed: false,
      durationMs: 0,
      outputTail:
        `iteration ${reached}: the plan needs at least ${minimum} iterations (the first is a draft to critique)`,
      // Not a repeating failure: each iteration gets closer, so it never counts as "no progress".
      fingerprint: `below the minimum at iteration ${reached}`
    }
}
