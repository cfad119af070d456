/**
 * A project's config file can arrive with a cloned repository, so it is not trusted until the user
 * accepts it. Until then, the settings that would make ralph-mem run a command (criteria with a
 * `command`), and limits raised past the user's own settings (more iterations, money, backups), are
 * ignored, with a finding that `config`, `status` and `doctor` show; harmless settings (a lower limit,
 * a search weight) apply. `ralph-mem config trust` accepts the file as it is now: its path and a SHA-256
 * of its bytes are recorded outside the project, in `<config home>/ralph-mem/trusted-projects.json`,
 * so any later change needs accepting again. A file `ralph-mem config` writes for the user is accepted
 * with the write when it was accepted (or held nothing to accept) before.
 */
import { writePrivateFile } from "@ralph-mem/events"
import { mkdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"

/** The record of accepted project files, beside the global config file. */
const trustStorePath = (globalFile: string): string => join(dirname(globalFile), "trusted-projects.json")

type TrustStore = Readonly<Record<string, string>>

const readStore = (storePath: string): TrustStore => {
  try {
    const parsed = JSON.parse(readFileSync(storePath, "utf8")) as unknown
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as TrustStore) : {}
  } catch {
    return {}
  }
}

/** Loaded only when a project's file sets something that needs accepting: most hooks never hash. */
const sha256 = (text: string): string =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(text, "utf8").digest("hex")

/** Has the user accepted `projectFile` with exactly this text? */
export const isTrusted = (globalFile: string, projectFile: string, text: string): boolean =>
  readStore(trustStorePath(globalFile))[projectFile] === sha256(text)

/** The record of accepted files could not be written: nothing was accepted. */
export class TrustNotRecorded extends Error {}

/**
 * Records `text` as the accepted content of `projectFile`; returns its hash. Throws TrustNotRecorded, saying where and
 * why, when the record cannot be written (a config home that is a file, a full disk).
 */
export const recordTrust = (globalFile: string, projectFile: string, text: string): string => {
  const storePath = trustStorePath(globalFile)
  const hash = sha256(text)
  try {
    mkdirSync(dirname(storePath), { recursive: true, mode: 0o700 })
    writePrivateFile(storePath, `${JSON.stringify({ ...readStore(storePath), [projectFile]: hash }, null, 2)}\n`)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error))
    throw new TrustNotRecorded(`cannot record the acceptance in ${storePath} (${reason}): nothing was accepted`)
  }
  return hash
}

/**
 * The finding for keys ignored because the file that sets them is not accepted yet: commands to run, and limits
 * raised past the user's own settings.
 */
export const untrustedFinding = (
  projectFile: string,
  commands: ReadonlyArray<string>,
  limits: ReadonlyArray<string>
): string => {
  const what = [
    ...(commands.length === 0
      ? []
      : [`${commands.join(", ")} ${commands.length === 1 ? "sets" : "set"} commands to run`]),
    ...(limits.length === 0
      ? []
      : [`${limits.join(", ")} ${limits.length === 1 ? "raises a limit" : "raise limits"} past your own settings`])
  ]
  return `${projectFile}: ${what.join(" and ")}, ignored until you accept ` +
    "this file (it may have come with the repository): review it, then run `ralph-mem config trust`"
}
