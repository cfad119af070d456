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

/** A path ends where a character that cannot continue a folder's name follows (or the text ends). */
const folderPattern = (folder: string) =>
  new RegExp(`${escape(folder)}(?:[/\\\\](?=[^\\s/\\\\])|(?![^\\s"'\`:;,)\\]}>]))`, "g")

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
  return out
}

/** One path, relative to the project when inside it, else with the home folder as `~`. */
export const relativePath = (path: string, context: PathContext): string => {
  if (!isAbsolute(path)) return path
  const inside = relative(context.project, path)
  if (inside === "") return "."
  if (!inside.startsWith("..") && !isAbsolute(inside)) return inside.split(sep).join("/")
  return relativeText(path, context)
}
