/**
 * Routine work around the sessions a scenario is about: the reads and searches every session does, and
 * unrelated sessions (tidying, tests, dependency bumps, renames) with their own failures. Deterministic:
 * a scenario always gets the same routine. A real session makes dozens of tool calls; these make 12 to 20.
 */
import { edit, fail, grep, type PastSession, read, run, type Scenario, session, type Step, write } from "./scenario.ts"

/** A small deterministic generator (mulberry32), seeded by the scenario's id. */
const random = (seed: string) => {
  let state = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261) >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const stem = (file: string) => file.split("/").at(-1)!.replace(/\.[^.]+$/, "")

/** What every session does before the work: reads, searches, a look at git. */
export const lookAround = (scenario: Scenario, salt: string, count: number): Array<Step> => {
  const next = random(`${scenario.id}:${salt}`)
  const pick = () => scenario.files[Math.floor(next() * scenario.files.length)]!
  return Array.from({ length: count }, (_, i): Step => {
    const roll = next()
    const file = pick()
    if (roll < 0.55) return read(file, 40 + Math.floor(next() * 300))
    if (roll < 0.8) return grep(`${stem(file)}`, file, pick())
    if (roll < 0.9) return run("git status --short", ` M ${file}`)
    return run(`git log --oneline -5 -- ${file}`, `a1b2c3${i} touch ${stem(file)}\nd4e5f6${i} earlier change`)
  })
}

type Template = (file: string, other: string, korean: boolean) => PastSession

const TEMPLATES: ReadonlyArray<Template> = [
  (file, _other, korean) =>
    session(korean ? `${file}의 import 정리해 줘` : `Tidy up the imports in ${file}`, [
      read(file),
      grep("^import", file),
      edit(file, `import { a, b, c } from "./util"`, `import { a, c } from "./util"`),
      run("npm run lint", "0 problems")
    ], korean ? "사용하지 않는 import를 지웠고 lint도 깨끗합니다." : "Removed the unused import; lint is clean."),
  (file, _other, korean) => {
    const name = stem(file)
    const test = file.replace(/\.(\w+)$/, ".test.$1")
    return session(korean ? `${name}에 단위 테스트 하나 추가해 줘` : `Add a unit test for ${name}`, [
      read(file),
      write(test, `describe("${name}", () => { it("works", () => { expect(run()).toBe(4) }) })`),
      fail(`npm test -- ${name}`, `FAIL ${test}\nAssertionError: expected 3 to be 4`),
      edit(test, "toBe(4)", "toBe(3)"),
      run(`npm test -- ${name}`, `PASS ${test} (1 test)`)
    ], korean ? `${name} 테스트를 추가했고 통과합니다.` : `Added a test for ${name}; it passes.`)
  },
  (_file, _other, korean) =>
    session(korean ? "dev 의존성 버전 올려 줘" : "Bump the dev dependencies", [
      run(
        "npm outdated",
        "Package  Current  Wanted  Latest\nvitest   5.0.2    5.1.1   5.1.1\nprettier 3.5.0    3.6.2   3.6.2"
      ),
      run("npm install -D vitest@5.1.1 prettier@3.6.2", "changed 4 packages in 3s"),
      run("npm test", "Test Files  14 passed (14)")
    ], korean ? "vitest와 prettier를 올렸고 테스트는 통과합니다." : "Bumped vitest and prettier; the tests pass."),
  (file, other, korean) =>
    session(
      korean ? `${stem(file)}가 어떻게 동작하는지 설명해 줘` : `Explain how ${stem(file)} works`,
      [
        read(file),
        read(other),
        grep(stem(other), file)
      ],
      korean
        ? `${stem(file)}는 ${stem(other)}를 호출해 결과를 캐시합니다.`
        : `${stem(file)} calls ${stem(other)} and caches the result.`
    ),
  (_file, _other, korean) =>
    session(korean ? "README 오타 고쳐 줘" : "Fix the typo in the README", [
      read("README.md"),
      edit("README.md", "recieve", "receive")
    ], korean ? "README 오타를 고쳤습니다." : "Fixed the typo."),
  (file, other, korean) => {
    const before = `${stem(file)}Helper`
    const after = `${stem(file)}Service`
    return session(korean ? `${before}를 ${after}로 이름 바꿔 줘` : `Rename ${before} to ${after}`, [
      grep(before, file, other),
      edit(file, before, after),
      fail("npx tsc --noEmit", `${other}(12,5): error TS2304: Cannot find name '${before}'.`),
      edit(other, before, after),
      run("npx tsc --noEmit", "")
    ], korean ? `${after}로 바꾸고 타입 검사를 통과했습니다.` : `Renamed to ${after}; the type check passes.`)
  }
]

/** Unrelated sessions after the ones the scenario is about, each with its share of looking around. */
export const unrelatedSessions = (scenario: Scenario, count: number): Array<PastSession> => {
  const next = random(`${scenario.id}:unrelated`)
  return Array.from({ length: count }, (_, i) => {
    const template = TEMPLATES[Math.floor(next() * TEMPLATES.length)]!
    const file = scenario.files[Math.floor(next() * scenario.files.length)]!
    const other = scenario.files[Math.floor(next() * scenario.files.length)]!
    const work = template(file, other, scenario.language === "ko")
    return { ...work, steps: [...lookAround(scenario, `unrelated-${i}`, 10 + Math.floor(next() * 8)), ...work.steps] }
  })
}
