/**
 * loadSettings: defaults < global file < project file < environment. Synchronous and cheap, because
 * every hook runs it: with no file and no RALPH_MEM_* variable it touches two `stat`s and nothing else.
 * Never throws: a bad key, file or variable becomes a problem, and the valid layers still apply.
 */
import { readFileSync, statSync } from "node:fs"
import { isAbsolute, join } from "node:path"
import { assembleSettings, flattenSettings } from "./access.ts"
import { type Environment, environmentLayer } from "./env.ts"
import { emptyLayer, type Layer, layerFromMapping, type SettingValues } from "./layer.ts"
import { findSpec, shareKeys } from "./schema.ts"
import { defaultSettings, type Settings } from "./settings.ts"
import { shareSumProblem } from "./shares.ts"
import { isTrusted, recordTrust, untrustedFinding } from "./trust.ts"
import { maxConfigBytes, parseConfigText } from "./yaml.ts"

export interface SettingsFiles {
  /** $XDG_CONFIG_HOME/ralph-mem/config.yaml, XDG_CONFIG_HOME defaulting to ~/.config. */
  readonly global: string
  /** <project root>/.ralph-mem/config.yaml */
  readonly project: string
}

export interface LoadSettingsOptions {
  readonly projectRoot: string
  /** Defaults to process.env. */
  readonly env?: Environment | undefined
  /** Defaults to os.homedir(). */
  readonly home?: string | undefined
}

export interface LoadedSettings {
  readonly settings: Settings
  readonly problems: ReadonlyArray<string>
  readonly files: SettingsFiles
  /** Settings of the project's file ignored until the user accepts it (trust.ts), one finding each file. */
  readonly untrusted: ReadonlyArray<string>
}

/**
 * os.homedir(), which on POSIX systems is $HOME when it is set: read directly, so every hook does not
 * load node:os for it.
 */
const homeFolder = (): string =>
  (process.platform !== "win32" && process.env["HOME"]) || process.getBuiltinModule("node:os").homedir()

const settingsFiles = (options: LoadSettingsOptions): SettingsFiles => {
  const xdg = (options.env ?? process.env)["XDG_CONFIG_HOME"]
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const configHome = xdg !== undefined && isAbsolute(xdg) ? xdg : join(options.home ?? homeFolder(), ".config")
  return {
    global: join(configHome, "ralph-mem", "config.yaml"),
    project: join(options.projectRoot, ".ralph-mem", "config.yaml")
  }
}

/** Reads a file within the size limit: its text, no text if missing, or a problem naming the file. */
export const readConfigFile = (file: string): { readonly text?: string; readonly problem?: string } => {
  try {
    const stats = statSync(file, { throwIfNoEntry: false })
    if (stats === undefined) return {}
    if (!stats.isFile()) return { problem: `${file}: not a regular file` }
    if (stats.size > maxConfigBytes) return { problem: `${file}: ${stats.size} bytes, larger than the 1 MB limit` }
    return { text: readFileSync(file, "utf8") }
  } catch (cause) {
    return { problem: `${file}: cannot be read (${(cause as Error).message})` }
  }
}

/**
 * A missing file is an empty layer; an unreadable, oversized or malformed one is one problem. The text
 * comes with it, for the trust check.
 */
const readLayer = (file: string): { readonly layer: Layer; readonly text?: string } => {
  const ignored = (problem: string): Layer => ({ ...emptyLayer(file), problems: [`${problem}; file ignored`] })
  const { text, problem } = readConfigFile(file)
  if (problem !== undefined) return { layer: ignored(problem) }
  if (text === undefined) return { layer: emptyLayer(file) }
  try {
    const parsed = parseConfigText(file, text)
    return { layer: parsed.ok ? layerFromMapping(file, parsed.mapping) : ignored(parsed.problem), text }
  } catch (cause) {
    // Hooks must fail open: even a bug in parsing or validation costs this layer, never the hook.
    return { layer: ignored(`${file}: could not be read as settings (${(cause as Error).name})`) }
  }
}

/**
 * The keys of a project's layer whose values need the file to be accepted: commands to run, and limits it raises
 * past `below`, the user's own settings.
 */
const keysNeedingTrust = (
  layer: Layer,
  below: () => SettingValues
): { readonly commands: Array<string>; readonly limits: Array<string> } => {
  const commands: Array<string> = []
  const limits: Array<string> = []
  for (const [key, value] of layer.values) {
    const spec = findSpec(key)
    if (spec?.needsTrust?.(value) === true) commands.push(key)
    else if (spec?.loosens?.(value, below().get(key)) === true) limits.push(key)
  }
  return { commands, limits }
}

/** The defaults with the global file over them: what the user set, which a project's file is judged against. */
const ownValues = (globalLayer: Layer) => (): SettingValues =>
  new Map([...flattenSettings(defaultSettings), ...globalLayer.values])

/** The project's layer without what needs accepting, unless the user accepted the file as it is. */
const acceptedLayer = (
  files: SettingsFiles,
  globalLayer: Layer
): { readonly layer: Layer; readonly untrusted: ReadonlyArray<string> } => {
  const { layer, text } = readLayer(files.project)
  const { commands, limits } = keysNeedingTrust(layer, ownValues(globalLayer))
  const needing = [...commands, ...limits]
  const accepted = needing.length === 0 || text === undefined || isTrusted(files.global, files.project, text)
  if (accepted) return { layer, untrusted: [] }
  const values = new Map(layer.values)
  for (const key of needing) values.delete(key)
  return { layer: { ...layer, values }, untrusted: [untrustedFinding(files.project, commands, limits)] }
}

/**
 * Lays `layer` over `below`. If the layer pushes the budget shares over 1, its shares are dropped
 * (the ones below stay) rather than guessing which share the user meant to lower.
 */
const applyLayer = (below: SettingValues, layer: Layer, problems: Array<string>): SettingValues => {
  problems.push(...layer.problems)
  if (layer.values.size === 0) return below
  const merged = new Map([...below, ...layer.values])
  const sumProblem = shareSumProblem(merged)
  if (sumProblem !== undefined) {
    problems.push(`${layer.source}: ${sumProblem}; these shares ignored`)
    for (const key of shareKeys) merged.set(key, below.get(key))
  }
  return merged
}

export const loadSettings = (options: LoadSettingsOptions): LoadedSettings => {
  const files = settingsFiles(options)
  // The global file is the user's own; the project's may have come with a clone.
  const globalLayer = readLayer(files.global).layer
  const project = acceptedLayer(files, globalLayer)
  const { untrusted } = project
  const layers = [globalLayer, project.layer, environmentLayer(options.env ?? process.env)]
  // The common case, nothing configured, returns the defaults without building any schema.
  if (layers.every((layer) => layer.values.size === 0)) {
    return { settings: defaultSettings, problems: layers.flatMap((layer) => layer.problems), files, untrusted }
  }
  const problems: Array<string> = []
  const values = layers.reduce<SettingValues>(
    (below, layer) => applyLayer(below, layer, problems),
    flattenSettings(defaultSettings)
  )
  return { settings: assembleSettings(values), problems, files, untrusted }
}

/** What `ralph-mem config trust` accepted: the file, its hash, and the settings that now apply. */
export interface Acceptance {
  readonly file: string
  readonly sha256: string
  readonly accepted: ReadonlyArray<{ readonly key: string; readonly value: unknown }>
}

/**
 * Accepts the project's config file as it is now (trust.ts). Fails with a problem when there is no file,
 * or it cannot be read as settings (accepting what cannot be shown would accept blindly).
 */
export const acceptProjectFile = (
  files: SettingsFiles
): { readonly acceptance?: Acceptance; readonly problem?: string } => {
  const { layer, text } = readLayer(files.project)
  if (text === undefined) return { problem: layer.problems[0] ?? `${files.project}: no such file; nothing to accept` }
  const { commands, limits } = keysNeedingTrust(layer, ownValues(readLayer(files.global).layer))
  const accepted = [...commands, ...limits].map((key) => ({ key, value: findSpec(key)!.encode(layer.values.get(key)) }))
  return { acceptance: { file: files.project, sha256: recordTrust(files.global, files.project, text), accepted } }
}

/** After `ralph-mem config` wrote the project's file: accepted again if it was accepted before the write. */
export const keepAccepted = (files: SettingsFiles, wasAccepted: boolean): void => {
  const { text } = readConfigFile(files.project)
  if (wasAccepted && text !== undefined) recordTrust(files.global, files.project, text)
}
