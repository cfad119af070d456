/**
 * What a setting is: its dotted YAML key, where it lives in `Settings`, and how a raw YAML value is
 * validated (Effect Schema) and turned back into YAML. Keys are validated one by one, so a bad value
 * drops only that key and every problem names the exact key.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { durationPattern, formatDuration, parseDuration } from "./duration.ts"

/**
 * A validated value, as `Settings` holds it (`notes`: problems that did not reject it), or problems
 * of the form `key: expected ..., got ...`.
 */
export type Decoded =
  | { readonly ok: true; readonly value: unknown; readonly notes?: ReadonlyArray<string> }
  | { readonly ok: false; readonly problems: ReadonlyArray<string> }

export interface SettingSpec {
  /** Dotted snake_case key, as written in YAML: `memory.search.recency_weight`. */
  readonly key: string
  /** Path to the value in `Settings`: `["memory", "search", "recencyWeight"]`. */
  readonly field: ReadonlyArray<string>
  /** Raw YAML value -> `Settings` value. */
  readonly decode: (raw: unknown) => Decoded
  /** `Settings` value -> YAML value (durations back to "30m", criteria back to snake_case). */
  readonly encode: (value: unknown) => unknown
  /**
   * Does this value make ralph-mem run a command (or reach outside the project)? Such a value in a
   * project's file applies only once the user has accepted the file (trust.ts).
   */
  readonly needsTrust?: (value: unknown) => boolean
  /**
   * Does this value give more room than `below`, the value of the user's own layers (the defaults and the global
   * file): more iterations, time, tokens, money, stored text or backups? A project's file may tighten a limit at
   * once; loosening one applies only once the user has accepted the file (trust.ts), so a cloned repository cannot
   * make a loop run longer or spend more than the user allowed.
   */
  readonly loosens?: (value: unknown, below: unknown) => boolean
}

/**
 * A raw value as a problem message shows it: numbers, booleans and null as they are, anything else by its
 * shape only. Problems reach hooks.log, status and doctor, and a config file can come with a cloned
 * repository: its text (`"$(touch ~/pwned)"`) is never repeated, in a log or anywhere else.
 */
export const show = (value: unknown): string => {
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value)
  if (typeof value === "string") return value === "" ? "an empty string" : `a string of ${[...value].length} characters`
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? "" : "s"}`
  return isMapping(value) ? "a mapping" : `a ${typeof value}`
}

export const isMapping = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

export const valid = (value: unknown): Decoded => ({ ok: true, value })
export const invalid = (...problems: ReadonlyArray<string>): Decoded => ({ ok: false, problems })

// ---- leaf schemas -----------------------------------------------------------------------------------

export const intAtLeast = (minimum: number) => Schema.Int.check(Schema.isGreaterThanOrEqualTo(minimum))
export const fraction = () => Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

/** "30m" <-> 1_800_000. */
export const durationMs = () =>
  Schema.String.check(Schema.isPattern(durationPattern)).pipe(
    Schema.decodeTo(
      Schema.Finite.check(Schema.isGreaterThan(0)),
      SchemaTransformation.transform({ decode: (text) => parseDuration(text) ?? Number.NaN, encode: formatDuration })
    )
  )

export const durationExpected = "a duration like \"90s\", \"30m\" or \"2h\""

/** A higher limit than `below`, or none (null) where `below` is one. */
export const raisesLimit = (value: unknown, below: unknown): boolean =>
  below !== null && (value === null || (value as number) > (below as number))

/** `spec` as a limit a project's file may tighten but not loosen (`loosens`; by default, raising it loosens it). */
export const limit = (spec: SettingSpec, loosens: SettingSpec["loosens"] = raisesLimit): SettingSpec => ({
  ...spec,
  loosens
})

/** Runs `make` on the first call only. */
export const once = <A>(make: () => A): () => A => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}

/**
 * A spec for a single value checked by one schema. The schema is built when the key is first seen:
 * a config file usually sets a few keys, and building all of them would cost a hook a few ms.
 */
export const leaf = (
  key: string,
  expected: string,
  makeSchema: () => Schema.Codec<unknown, unknown>,
  field: ReadonlyArray<string> = key.split(".").map(camelCase)
): SettingSpec => {
  const codec = once(() => {
    const schema = makeSchema()
    return { decode: Schema.decodeUnknownOption(schema), encode: Schema.encodeUnknownSync(schema) }
  })
  return {
    key,
    field,
    decode: (raw) => {
      const decoded = codec().decode(raw)
      return Option.isSome(decoded) ? valid(decoded.value) : invalid(`${key}: expected ${expected}, got ${show(raw)}`)
    },
    encode: (value) => codec().encode(value)
  }
}
