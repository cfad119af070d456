/**
 * Paths as Claude and the user read them: relative to the project, and never the home folder. The log
 * keeps full paths; whatever ralph-mem prints or injects goes through here first.
 */
import { isAbsolute, relative, sep } from "node:path"

export interface PathContext {
  /** The project root (absolute). */
  readonly project: string
  /** The user's home folder, written as `~` wherever it still shows. */
  readonly home?: string | undefined
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A path ends where a character that cannot continue a folder's name follows (or the text ends, or is cut: `…`). */
const folderPattern = (folder: string) =>
  new RegExp(`${escape(folder)}(?:[/\\\\](?=[^\\s/\\\\])|(?![^\\s"'\`:;,)\\]}>\u2026]))`, "g")

const usable = (folder: string | undefined): folder is string =>
  folder !== undefined && isAbsolute(folder) && folder.replace(/[/\\]+$/, "").length > 1

/**
 * Every mention of the project's folder in `text` made relative (`/home/me/app/src/a.ts` -> `src/a.ts`,
 * the folder alone -> `.`), then every mention of the home folder written as `~`.
 */
export const relativeText = (text: string, context: PathContext): string => {
  let out = text
  const project = context.project.replace(/[/\\]+$/, "")
  if (usable(project) && out.includes(project)) {
    out = out.replace(folderPattern(project), (match) => (match.length > project.length ? "" : "."))
  }
  const home = context.home?.replace(/[/\\]+$/, "")
  if (usable(home) && out.includes(home)) {
    out = out.replace(folderPattern(home), (match) => (match.length > home.length ? "~/" : "~"))
  }
  // Text cut short upstream (a search title) can end inside one of the folders: its start goes too.
  return out.includes("\u2026")
    ? out.replace(CUT_PATH, (cut, start: string) => (insideFolder(start, project, home) ? "~\u2026" : cut))
    : out
}

/** A path cut short by an ellipsis: a run from a slash that starts a word up to the ellipsis. */
const CUT_PATH = /(?<![^\s"'`([{<=])([/\\][^\s"'`([{<]*)\u2026/g

const insideFolder = (start: string, ...folders: ReadonlyArray<string | undefined>) =>
  folders.some((folder) => usable(folder) && folder.startsWith(start))

/**
 * Every string in a value of plain data (objects, arrays) made relative: what a renderer will shorten or
 * cut is relative before it is cut, so no cut can leave part of a folder behind.
 */
export const relativeValues = <T>(value: T, context: PathContext): T =>
  stringsMapped(value, (text) => relativeText(text, context))

/** Every string in a value of plain data (objects, arrays) through `map`; anything else as it is. */
export const stringsMapped = <T>(value: T, map: (text: string) => string): T => {
  if (typeof value === "string") return map(value) as T
  if (Array.isArray(value)) return value.map((item: unknown) => stringsMapped(item, map)) as T
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stringsMapped(item, map)])) as T
  }
  return value
}

/** One path, relative to the project when inside it, else with the home folder as `~`. */
export const relativePath = (path: string, context: PathContext): string => {
  if (!isAbsolute(path)) return path
  const inside = relative(context.project, path)
  if (inside === "") return "."
  if (!inside.startsWith("..") && !isAbsolute(inside)) return inside.split(sep).join("/")
  return relativeText(path, context)
}
