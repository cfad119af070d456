/**
 * Belief keys and task ids: short plain words, lower-cased. They are part of stream ids, which the
 * privacy filter never sees, so anything that looks like a secret or private text is refused.
 */
import { redactText } from "@ralph-mem/events"
import { refuse, type Refused } from "@ralph-mem/projections"

const NAME = /^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,63}$/u

const MAX_SLUG_LENGTH = 40

/** The marks the privacy filter leaves (`[private]`, `[secret:github-token]`) say nothing about the task. */
const FILTER_MARKS = /\[(?:private|secret:[^\]]*)\]/g

const shown = (raw: string) => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 39)}…` : raw)

/** A belief key or task id as typed, normalised; or why it cannot be one. */
export const parseName = (what: "belief key" | "task id", raw: string): string | Refused => {
  const name = raw.trim().toLowerCase()
  if (name === "") return refuse(`the ${what} is empty`)
  if (redactText(raw).redactions > 0 || redactText(name).redactions > 0) {
    return refuse(`the ${what} looks like a secret or private text; choose another`)
  }
  if (!NAME.test(name)) {
    return refuse(
      `${what} ${shown(raw)}: use letters, digits, '-', '_' and '.' (at most 64, starting with a letter or digit)`
    )
  }
  return name
}

/**
 * A free task id made from a title's words (`Fix the login` -> `fix-the-login`, then `fix-the-login-2`),
 * as the title will be stored: private text and secrets never make it into the id.
 */
export const taskIdFor = (title: string, taken: ReadonlySet<string>): string => {
  let base = ""
  for (const word of redactText(title).text.replace(FILTER_MARKS, " ").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const next = base === "" ? word.slice(0, MAX_SLUG_LENGTH) : `${base}-${word}`
    if (next.length > MAX_SLUG_LENGTH) break
    base = next
  }
  if (base === "" || typeof parseName("task id", base) !== "string") base = "task"
  for (let n = 1;; n++) {
    const id = n === 1 ? base : `${base}-${n}`
    if (!taken.has(id)) return id
  }
}
