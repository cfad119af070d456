/** The plan loop's guard: reading passes, anything that may change the project is refused. */
import { describe, expect, it } from "vitest"
import { planGuard } from "../src/plan-guard.ts"

/** What the guard says of a Bash call running `command`. */
const bash = (command: string) => planGuard("Bash", { command })

describe("planGuard", () => {
  it("refuses every file-editing tool and lets the others through", () => {
    for (const tool of ["Write", "Edit", "MultiEdit", "NotebookEdit"]) {
      expect(planGuard(tool, { file_path: "a.ts" })).toBe(`${tool} edits files`)
    }
    for (const tool of ["Read", "Grep", "Glob", "WebSearch"]) {
      expect(planGuard(tool, { file_path: "a.ts" })).toBeUndefined()
    }
  })

  it("refuses a shell call whose command cannot be read", () => {
    expect(planGuard("Bash", {})).toMatch(/could not be read/)
    expect(planGuard("Bash", "ls")).toMatch(/could not be read/)
  })
})

describe("planGuard on a shell command", () => {
  it.each([
    "ls -la",
    "cat src/a.ts | grep -n 'export' | head -20",
    "git status && git log --oneline -5; git diff HEAD~1 -- src",
    "git -C packages/events show HEAD:package.json",
    "git branch -a",
    "git stash list",
    "rg 'a|b > c' src 2>&1",
    "ls missing 2>/dev/null || echo none",
    "find . -name '*.ts' -newer package.json",
    "sed -n '1,40p' README.md",
    "cd src && wc -l *.ts",
    "sort names.txt | uniq -c",
    "echo \"$HOME\" '$(not run)'"
  ])("lets %s through", (command) => {
    expect(bash(command)).toBeUndefined()
  })

  it.each([
    ["rm -rf build", /`rm -rf build` is not a known read-only command/],
    ["npm test", /`npm test`/],
    ["echo done > notes.md", /output redirection/],
    ["cat a >> b", /output redirection/],
    ["ls &> listing.txt", /output redirection/],
    ["ls | tee out.txt", /`tee out.txt`/],
    ["echo $(touch x)", /command substitution/],
    ["echo \"`touch x`\"", /command substitution/],
    ["diff <(ls a) <(ls b)", /process substitution/],
    ["find . -name '*.tmp' -delete", /`find/],
    ["find . -exec rm {} ;", /`find/],
    ["sed -i 's/a/b/' file", /`sed -i/],
    ["sort -o sorted.txt list", /`sort -o/],
    ["tree -o listing.txt", /`tree -o/],
    ["uniq list deduped.txt", /`uniq list deduped.txt`/],
    ["date -s 2020-01-01", /`date -s/],
    ["git commit -am wip", /`git commit -am wip`/],
    ["git branch feature", /`git branch feature`/],
    ["git stash", /`git stash`/],
    ["git -c core.pager=evil log", /`git -c/],
    ["FOO=1 ls", /`FOO=1 ls`/],
    ["ls; touch x", /`touch x`/],
    ["ls & curl -o x http://h", /`curl/],
    ["python3 -c 'print(1)'", /`python3/],
    ["cat 'unclosed", /unclosed quote/]
  ])("refuses %s", (command, reason) => {
    expect(bash(command)).toMatch(/^the shell command may change something: /)
    expect(bash(command)).toMatch(reason)
  })
})
