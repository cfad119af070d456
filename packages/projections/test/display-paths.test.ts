import { describe, expect, it } from "vitest"
import { relativePath, relativeText, relativeValues } from "../src/display-paths.ts"

const context = { project: "/home/me/work/app", home: "/home/me" }

describe("paths as they are read", () => {
  it("makes the project's paths relative and writes the home folder as ~", () => {
    expect(relativeText("edit /home/me/work/app/src/a.ts and /home/me/notes.md", context)).toBe(
      "edit src/a.ts and ~/notes.md"
    )
    expect(relativeText("cd /home/me/work/app && ls /home/me", context)).toBe("cd . && ls ~")
    expect(relativeText(`"/home/me/work/app/src/a.ts:12:5"`, context)).toBe(`"src/a.ts:12:5"`)
    expect(relativeText("at (/home/me/work/app/src/a.ts:3)", context)).toBe("at (src/a.ts:3)")
  })

  it("leaves a folder that only starts with the same name alone", () => {
    expect(relativeText("/home/me/work/app2/x.ts /home/meg/y", context)).toBe("~/work/app2/x.ts /home/meg/y")
  })

  it("handles folders with characters a pattern would read as syntax", () => {
    const odd = { project: "/tmp/a+b (1)/[x]", home: "/tmp" }
    expect(relativeText("see /tmp/a+b (1)/[x]/src/y.ts", odd)).toBe("see src/y.ts")
  })

  it("never treats the root as a project or a home folder", () => {
    expect(relativeText("/etc/hosts", { project: "/", home: "/" })).toBe("/etc/hosts")
    expect(relativeText("/etc/hosts", { project: "relative/path" })).toBe("/etc/hosts")
  })

  it("gives one path relative to the project, or with ~ outside it", () => {
    expect(relativePath("/home/me/work/app/src/a.ts", context)).toBe("src/a.ts")
    expect(relativePath("/home/me/work/app", context)).toBe(".")
    expect(relativePath("/home/me/.config/x.json", context)).toBe("~/.config/x.json")
    expect(relativePath("/opt/tool/bin", context)).toBe("/opt/tool/bin")
    expect(relativePath("src/already.ts", context)).toBe("src/already.ts")
  })

  it("makes every string of plain data relative, so a line cut short afterwards keeps no part of a folder", () => {
    const hit = {
      id: "e1",
      score: 1.5,
      title: `Grep x in /home/me/work/app: ["/home/me/work/app/src/a.ts"]`,
      nested: [{ at: "/home/me/x" }]
    }
    expect(relativeValues(hit, context)).toEqual({
      id: "e1",
      score: 1.5,
      title: `Grep x in .: ["src/a.ts"]`,
      nested: [{ at: "~/x" }]
    })
    expect(relativeText("read /home/me\u2026", context)).toBe("read ~\u2026")
    // Cut upstream inside a folder: what is left of it goes too.
    expect(relativeText(`read ["/home/me/wo\u2026`, context)).toBe(`read ["~/wo\u2026`)
    expect(relativeText(`read ["/home/m\u2026`, context)).toBe(`read ["~\u2026`)
    expect(relativeText("see /ho\u2026 and /opt/x\u2026", context)).toBe("see ~\u2026 and /opt/x\u2026")
    // Only a path that starts a word: `src/h…` is the project's own relative path.
    expect(relativeText("edit src/h\u2026", context)).toBe("edit src/h\u2026")
  })
})
