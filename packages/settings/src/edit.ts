/**
 * writeSetting: `ralph-mem config set KEY VALUE`. Changes one key of one YAML file through the yaml
 * Document API, so the rest of the file (order, comments, other keys) stays as the user wrote it.
 * Anything wrong (unknown key, invalid value, unreadable file) is refused and the file left untouched.
 */
import { ensureOutputFolder, isInsideMemoryFolder, writePrivateFile } from "@ralph-mem/events"
import { existsSync, mkdirSync, realpathSync, statSync } from "node:fs"
import { dirname } from "node:path"
import type * as Yaml from "yaml"
import { flattenSettings, settingKeys } from "./access.ts"
import { layerFromMapping } from "./layer.ts"
import { readConfigFile } from "./load.ts"
import { findSpec, shareKeys } from "./schema.ts"
import { defaultSettings } from "./settings.ts"
import { shareSum, shareSumProblem } from "./shares.ts"
import { unknownKeyProblem } from "./suggest.ts"
import { parseConfigText, yamlModule } from "./yaml.ts"

export interface WriteSettingOptions {
  readonly file: string
  /** A dotted key: `memory.context_window`. */
  readonly key: string
  /** YAML text for the value: "0.2" -> 0.2, "null" -> null, "[a, b]" -> a list, "30m" -> "30m". */
  readonly value: string
}

export type WriteResult = { readonly problems: ReadonlyArray<string> }

export const writeSetting = ({ file, key, value }: WriteSettingOptions): WriteResult => {
  // File problems already name the file; key problems get it prepended, like loadSettings' problems.
  const refuseFile = (problem: string): WriteResult => ({ problems: [`${problem} (not changed)`] })
  const refuse = (...problems: ReadonlyArray<string>): WriteResult => ({
    problems: problems.map((problem) => `${file}: ${problem} (not changed)`)
  })

  const spec = findSpec(key)
  if (spec === undefined) return refuse(unknownKeyProblem(key, key, settingKeys()))

  const raw = parseValue(value)
  if (!raw.ok) return refuse(`${key}: the value is not valid YAML (${raw.reason})`)
  const decoded = spec.decode(raw.value)
  if (!decoded.ok) return refuse(...decoded.problems)
  // Unknown keys inside a criterion would be dropped silently on the next load: refuse them now.
  if (decoded.notes !== undefined && decoded.notes.length > 0) return refuse(...decoded.notes)

  const existing = readConfigFile(file)
  if (existing.problem !== undefined) return refuseFile(existing.problem)
  const parsed = parseConfigText(file, existing.text ?? "")
  if (!parsed.ok) return refuseFile(parsed.problem)

  const isShare = shareKeys.some((share) => share === key)
  const sumProblem = isShare ? raisedShareSum(parsed.mapping, file, key, decoded.value) : undefined
  if (sumProblem !== undefined) return refuse(`${sumProblem}; lower another share first`)

  const blocked = setKey(parsed.document, key.split("."), raw.value)
  if (blocked !== undefined) return refuse(blocked)
  try {
    writeAtomically(file, parsed.document.toString())
  } catch (cause) {
    return refuse(`cannot be written (${(cause as Error).message})`)
  }
  return { problems: [] }
}

type ParsedValue = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string }

const parseValue = (text: string): ParsedValue => {
  try {
    return { ok: true, value: yamlModule().parse(text) }
  } catch (cause) {
    return { ok: false, reason: (cause as Error).message.split("\n")[0] ?? "" }
  }
}

/**
 * The sum check for a share, against the defaults overlaid with this file. Refused only when the new
 * value makes an over-budget sum larger, so a file already over budget can still be fixed step by step.
 */
const raisedShareSum = (
  mapping: Readonly<Record<string, unknown>>,
  file: string,
  key: string,
  value: unknown
): string | undefined => {
  const before = new Map([...flattenSettings(defaultSettings), ...layerFromMapping(file, mapping).values])
  const after = new Map([...before, [key, value]])
  return shareSum(after) > shareSum(before) ? shareSumProblem(after) : undefined
}

/** Sets `path` in the document, turning empty (`memory:`) sections into mappings; a problem if blocked. */
const setKey = (document: Yaml.Document, path: ReadonlyArray<string>, value: unknown): string | undefined => {
  const yaml = yamlModule()
  for (let depth = 1; depth < path.length; depth++) {
    const sectionPath = path.slice(0, depth)
    const section = document.getIn(sectionPath, true)
    if (section === undefined || yaml.isMap(section)) continue
    if (!(yaml.isScalar(section) && section.value === null)) {
      return `${sectionPath.join(".")}: is not a mapping, so ${path.join(".")} cannot be set`
    }
    // Keep the comments the empty section carried.
    const mapping = new yaml.YAMLMap()
    if (section.comment) mapping.comment = section.comment
    if (section.commentBefore) mapping.commentBefore = section.commentBefore
    document.setIn(sectionPath, mapping)
  }
  document.setIn(path, value)
  return undefined
}

/**
 * Write-then-rename, so a crash never leaves half a config file. A new file is private (0600, folder
 * 0700); an existing one keeps its mode. The global file may be a link (dotfile managers) and is written
 * through it; a project's file, in its memory folder, never is (a repository could have planted the link).
 */
const writeAtomically = (file: string, text: string): void => {
  const inProject = isInsideMemoryFolder(file)
  if (inProject) ensureOutputFolder(dirname(file))
  else mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const exists = existsSync(file)
  const target = exists && !inProject ? realpathSync(file) : file
  const mode = exists && !inProject ? statSync(target).mode & 0o777 : 0o600
  writePrivateFile(target, text, mode)
}
