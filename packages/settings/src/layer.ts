/**
 * One configuration layer (a file's top-level mapping, or the environment) -> the settings it sets,
 * validated key by key. Invalid and unknown keys become problems and are dropped; the rest still apply.
 */
import { findSpec, settingSpecs } from "./schema.ts"
import { isMapping, show } from "./spec.ts"
import { unknownKeyProblem } from "./suggest.ts"

/** Values as `Settings` holds them, by dotted YAML key. */
export type SettingValues = ReadonlyMap<string, unknown>

export interface Layer {
  /** Named in problems that concern the layer as a whole: a file path, or "environment". */
  readonly source: string
  readonly values: SettingValues
  readonly problems: ReadonlyArray<string>
}

export const emptyLayer = (source: string): Layer => ({ source, values: new Map(), problems: [] })

/** Dotted prefixes that hold other keys ("memory", "memory.search"), with their child names. */
const sectionChildren = (): ReadonlyMap<string, ReadonlySet<string>> => {
  const children = new Map<string, Set<string>>([["", new Set()]])
  for (const { key } of settingSpecs()) {
    const parts = key.split(".")
    for (let depth = 0; depth < parts.length; depth++) {
      const section = parts.slice(0, depth).join(".")
      const child = parts[depth] ?? ""
      const names = children.get(section) ?? new Set<string>()
      names.add(child)
      children.set(section, names)
    }
  }
  return children
}

/** Validates a file's parsed top-level mapping; every problem is prefixed with `source`. */
export const layerFromMapping = (source: string, mapping: Readonly<Record<string, unknown>>): Layer => {
  const sections = sectionChildren()
  const values = new Map<string, unknown>()
  const problems: Array<string> = []

  const visit = (section: string, entries: Readonly<Record<string, unknown>>): void => {
    for (const [name, raw] of Object.entries(entries)) {
      const key = section === "" ? name : `${section}.${name}`
      const spec = findSpec(key)
      if (spec !== undefined) {
        const decoded = spec.decode(raw)
        if (decoded.ok) {
          values.set(key, decoded.value)
          problems.push(...(decoded.notes ?? []).map((note) => `${source}: ${note}`))
        } else {
          problems.push(...decoded.problems.map((problem) => `${source}: ${problem}`))
        }
      } else if (name !== "" && sections.has(key)) {
        // `memory:` with every child commented out parses as null: nothing set, nothing wrong.
        if (isMapping(raw)) visit(key, raw)
        else if (raw !== null) problems.push(`${source}: ${key}: expected a mapping of settings, got ${show(raw)}`)
      } else {
        problems.push(`${source}: ${unknownKeyProblem(key, name, sections.get(section) ?? [])}`)
      }
    }
  }

  visit("", mapping)
  return { source, values, problems }
}
