/**
 * loop.success_criteria: a list of `{type, command?, expected_exit_code?, marker?, timeout?}`.
 * Each field is checked on its own so a problem names it: `loop.success_criteria[1].timeout: ...`.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { formatDuration } from "./duration.ts"
import { criterionTypes, type SuccessCriterion } from "./settings.ts"
import { durationExpected, durationMs, invalid, isMapping, once, type SettingSpec, show } from "./spec.ts"
import { unknownKeyProblem } from "./suggest.ts"

interface CriterionField {
  readonly name: string
  readonly expected: string
  readonly decode: (raw: unknown) => Option.Option<unknown>
}

const typeExpected = `one of ${criterionTypes.join(", ")}`

const criterionFields = (): ReadonlyArray<CriterionField> => {
  const field = (name: string, expected: string, schema: Schema.Codec<unknown, unknown>): CriterionField => ({
    name,
    expected,
    decode: Schema.decodeUnknownOption(schema)
  })
  return [
    field("type", typeExpected, Schema.Literals(criterionTypes)),
    field(
      "command",
      "a command line or a list of strings (argv)",
      Schema.Union([Schema.NonEmptyString, Schema.NonEmptyArray(Schema.String)])
    ),
    field("expected_exit_code", "an integer", Schema.Int),
    field("marker", "a non-empty string", Schema.NonEmptyString),
    field("timeout", durationExpected, durationMs())
  ]
}

interface DecodedCriterion {
  /** Absent when `problems` is not empty. */
  readonly criterion?: SuccessCriterion
  readonly problems: ReadonlyArray<string>
  /** Unknown keys: reported, but they do not make the item invalid. */
  readonly ignored: ReadonlyArray<string>
}

/** Decodes one list item; `at` is its path, `loop.success_criteria[2]`. */
const decodeCriterion = (raw: unknown, at: string, fields: ReadonlyArray<CriterionField>): DecodedCriterion => {
  if (!isMapping(raw)) {
    return { problems: [`${at}: expected a mapping like {type: test_pass}, got ${show(raw)}`], ignored: [] }
  }
  const problems: Array<string> = []
  const ignored: Array<string> = []
  const values: Record<string, unknown> = {}
  const names = fields.map((field) => field.name)
  for (const [name, value] of Object.entries(raw)) {
    const field = fields.find((candidate) => candidate.name === name)
    if (field === undefined) {
      ignored.push(unknownKeyProblem(`${at}.${name}`, name, names))
      continue
    }
    const decoded = field.decode(value)
    if (Option.isSome(decoded)) values[name] = decoded.value
    else problems.push(`${at}.${name}: expected ${field.expected}, got ${show(value)}`)
  }
  if (!("type" in raw)) problems.push(`${at}.type: missing; expected ${typeExpected}`)
  if (values["type"] === "custom" && values["command"] === undefined) {
    problems.push(`${at}: type custom needs a command`)
  }
  if (values["type"] === "marker" && values["marker"] === undefined) problems.push(`${at}: type marker needs a marker`)
  if (problems.length > 0) return { problems, ignored }
  return { criterion: toCriterion(values), problems, ignored }
}

// The casts are safe: each value passed its field's schema above.
const toCriterion = (values: Readonly<Record<string, unknown>>): SuccessCriterion => ({
  type: values["type"] as SuccessCriterion["type"],
  expectedExitCode: (values["expected_exit_code"] as number | undefined) ?? 0,
  ...(values["command"] !== undefined && { command: values["command"] as string | ReadonlyArray<string> }),
  ...(values["marker"] !== undefined && { marker: values["marker"] as string }),
  ...(values["timeout"] !== undefined && { timeoutMs: values["timeout"] as number })
})

/** Back to YAML's shape; the default exit code is left out, as people write it. */
const criterionToYaml = (criterion: SuccessCriterion): Record<string, unknown> => ({
  type: criterion.type,
  ...(criterion.command !== undefined && { command: criterion.command }),
  ...(criterion.expectedExitCode !== 0 && { expected_exit_code: criterion.expectedExitCode }),
  ...(criterion.marker !== undefined && { marker: criterion.marker }),
  ...(criterion.timeoutMs !== undefined && { timeout: formatDuration(criterion.timeoutMs) })
})

/**
 * The whole list is one setting: any invalid item rejects the list (a partial list would silently
 * drop a check). Unknown keys inside an item are only reported, like unknown keys elsewhere.
 */
export const successCriteriaSpec = (): SettingSpec => {
  const key = "loop.success_criteria"
  const fields = once(criterionFields)
  return {
    key,
    field: ["loop", "successCriteria"],
    decode: (raw) => {
      if (!Array.isArray(raw)) {
        return invalid(`${key}: expected a list of criteria like [{type: test_pass}], got ${show(raw)}`)
      }
      const decoded = raw.map((item, index) => decodeCriterion(item, `${key}[${index}]`, fields()))
      const problems = decoded.flatMap((item) => [...item.problems, ...item.ignored])
      if (decoded.some((item) => item.criterion === undefined)) return invalid(...problems)
      const criteria = decoded.flatMap((item) => (item.criterion === undefined ? [] : [item.criterion]))
      return { ok: true, value: criteria, ...(problems.length > 0 && { notes: problems }) }
    },
    encode: (value) => (value as ReadonlyArray<SuccessCriterion>).map(criterionToYaml),
    // A criterion's own command runs in the user's shell account at every Stop of a loop.
    needsTrust: (value) => (value as ReadonlyArray<SuccessCriterion>).some((item) => item.command !== undefined)
  }
}
