/**
 * Imports point one way (README, Architecture): each package's source imports only the packages below it,
 * declares them in its package.json, and never reaches into another package's files by a relative path.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "..")

/** What each package may import of ours: the layers of the README's dependency line. */
const mayImport: Readonly<Record<string, ReadonlyArray<string>>> = {
  "packages/events": [],
  "packages/settings": ["events"],
  "packages/projections": ["events"],
  "packages/hooks": ["events", "settings", "projections"],
  "packages/loop": ["events", "settings", "projections"],
  "packages/working": ["events", "projections"],
  "apps/cli": ["events", "settings", "projections", "hooks", "loop", "working"]
}

const sourceFiles = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))

/** Every module specifier a file imports or re-exports statically, or loads with import(). */
const STATIC = /(?:^|\n)\s*(?:import|export)\b[^"'`;]*?\bfrom\s+["']([^"']+)["']/g
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g
const specifiers = (text: string): Array<string> =>
  [...text.matchAll(STATIC), ...text.matchAll(DYNAMIC)].map((m) => m[1]!)

/** `@ralph-mem/projections/search` -> `projections`: a subpath entry belongs to its package. */
const packageOf = (specifier: string): string | undefined =>
  specifier.startsWith("@ralph-mem/") ? specifier.split("/")[1] : undefined

const imports = (pkg: string) =>
  sourceFiles(join(ROOT, pkg, "src")).flatMap((file) =>
    specifiers(readFileSync(file, "utf8")).map((specifier) => ({ file: relative(ROOT, file), specifier }))
  )

describe("package imports", () => {
  it("lists every workspace package that has source", () => {
    const workspaces = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { workspaces: Array<string> })
      .workspaces.filter((w) => w.startsWith("packages/") || w.startsWith("apps/"))
    expect(Object.keys(mayImport).sort()).toEqual(workspaces.sort())
  })

  it.each(Object.entries(mayImport))("%s imports only the packages below it", (pkg, allowed) => {
    const ours = imports(pkg).flatMap(({ file, specifier }) => {
      const name = packageOf(specifier)
      return name === undefined ? [] : [{ file, name }]
    })
    expect(ours.length > 0 || allowed.length === 0).toBe(true)
    expect(ours.filter(({ name }) => !allowed.includes(name))).toEqual([])
  })

  it.each(Object.keys(mayImport))("%s declares in package.json every package of ours it imports", (pkg) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, pkg, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>
    }
    const declared = Object.keys(manifest.dependencies ?? {})
    const used = new Set(imports(pkg).flatMap(({ specifier }) => packageOf(specifier) ?? []))
    expect([...used].filter((name) => !declared.includes(`@ralph-mem/${name}`))).toEqual([])
  })

  it.each(Object.keys(mayImport))("%s reaches no file outside its folder by a relative path", (pkg) => {
    const folder = join(ROOT, pkg)
    const outside = imports(pkg).filter(({ file, specifier }) =>
      specifier.startsWith(".") && relative(folder, resolve(ROOT, file, "..", specifier)).startsWith("..")
    )
    expect(outside).toEqual([])
  })
})
