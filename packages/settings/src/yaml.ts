/**
 * The `yaml` package, loaded on first use only. Every hook calls loadSettings, and most projects have
 * no config file: they should not pay for evaluating a YAML parser (about 4 ms bundled, measured).
 *
 * Why `require` rather than a static import: ESM imports are evaluated eagerly, and loadSettings must stay
 * synchronous, so `import()` is out. In the esbuild bundle, the free `require("yaml")` below is seen and
 * bundled as a lazily-initialised CommonJS module (the plugin ships without node_modules, so yaml must be
 * inside the bundle). Unbundled ESM (vitest, `node file.ts`) has no `require`, so it falls back to
 * `createRequire(import.meta.url)`, which resolves yaml from node_modules (node:module is fetched only
 * then: a static import of it would load it in every hook).
 */
import type * as Yaml from "yaml"
import { isMapping } from "./spec.ts"

let loaded: typeof Yaml | undefined

export const yamlModule = (): typeof Yaml => (loaded ??= (typeof require === "function"
  ? require("yaml")
  : process.getBuiltinModule("node:module").createRequire(import.meta.url)("yaml")) as typeof Yaml)

/** Config files are a few hundred bytes; anything this big is a mistake (or an attack on the parser). */
export const maxConfigBytes = 1024 * 1024

export type ParsedConfig =
  | { readonly ok: true; readonly document: Yaml.Document; readonly mapping: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly problem: string }

const describe = (value: unknown): string =>
  Array.isArray(value) ? "a list" : value === null ? "null" : `a ${typeof value}`

/** Parses a config file's text; a problem names the file and concerns all of it. */
export const parseConfigText = (file: string, text: string): ParsedConfig => {
  const yaml = yamlModule()
  const document = yaml.parseDocument(text, { prettyErrors: true })
  const [error] = document.errors
  if (error !== undefined) {
    // Where and what kind, never the message: yaml quotes the offending text in it.
    const at = error.linePos?.[0]
    const where = at === undefined ? "" : ` at line ${at.line}, column ${at.col}`
    return { ok: false, problem: `${file}: not valid YAML (${error.code}${where})` }
  }
  let top: unknown
  try {
    // The alias limit stops "billion laughs" documents from expanding without bound.
    top = document.toJS({ maxAliasCount: 100 })
  } catch (cause) {
    const kind = (cause as Error).name
    return { ok: false, problem: `${file}: not usable YAML (${kind}: too many aliases, or aliases it cannot resolve)` }
  }
  // An empty file (or one with only comments) is an empty configuration.
  if (top === null || top === undefined) return { ok: true, document, mapping: {} }
  if (!isMapping(top)) {
    return { ok: false, problem: `${file}: expected a mapping of settings at the top, got ${describe(top)}` }
  }
  return { ok: true, document, mapping: top }
}
