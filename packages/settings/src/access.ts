/** Between the nested `Settings` object and flat dotted keys (`memory.search.recency_weight`). */
import type { SettingValues } from "./layer.ts"
import { findSpec, settingSpecs } from "./schema.ts"
import type { Settings } from "./settings.ts"

const getIn = (root: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((node, name) => (node as Readonly<Record<string, unknown>>)[name], root)

/** Every setting's value, by dotted key. */
export const flattenSettings = (settings: Settings): Map<string, unknown> =>
  new Map(settingSpecs().map((spec) => [spec.key, getIn(settings, spec.field)]))

/** Rebuilds `Settings` from a complete set of validated values (defaults included). */
export const assembleSettings = (values: SettingValues): Settings => {
  const root: Record<string, unknown> = {}
  for (const spec of settingSpecs()) {
    let node = root
    for (const name of spec.field.slice(0, -1)) node = (node[name] ??= {}) as Record<string, unknown>
    node[spec.field[spec.field.length - 1] ?? ""] = values.get(spec.key)
  }
  // Sound because every spec's value was validated by its schema, and the specs cover Settings' fields.
  return root as unknown as Settings
}

/** One setting as YAML would spell it ("30m", not 1800000), or undefined for an unknown key. */
export const settingValue = (settings: Settings, key: string): unknown => {
  const spec = findSpec(key)
  return spec === undefined ? undefined : spec.encode(getIn(settings, spec.field))
}

/** Every setting, dotted key and YAML value, in a stable order (for `ralph-mem config`). */
export const listSettings = (settings: Settings): ReadonlyArray<{ readonly key: string; readonly value: unknown }> =>
  settingSpecs().map((spec) => ({ key: spec.key, value: spec.encode(getIn(settings, spec.field)) }))

/** The dotted keys ralph-mem knows. */
export const settingKeys = (): ReadonlyArray<string> => settingSpecs().map((spec) => spec.key)
