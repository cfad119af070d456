/**
 * How a recall scenario is written: earlier sessions of developer work (prompts, tool uses, failures,
 * fixes, notes, Claude's replies), then a later session's prompt and the past items a good memory should
 * bring to it. Paths are written relative to the project; the harness makes them absolute, as Claude
 * Code reports them.
 */

export type Step =
  | { readonly kind: "read"; readonly file: string; readonly lines: number }
  | { readonly kind: "grep"; readonly pattern: string; readonly found: ReadonlyArray<string> }
  | { readonly kind: "run"; readonly command: string; readonly output: string }
  | { readonly kind: "fail"; readonly command: string; readonly output: string }
  | { readonly kind: "edit"; readonly file: string; readonly before: string; readonly after: string }
  | { readonly kind: "write"; readonly file: string; readonly content: string }
  /** `ralph-mem inject <text>`: a note the user asked memory to keep. */
  | { readonly kind: "note"; readonly text: string }

export interface PastSession {
  readonly prompts: ReadonlyArray<string>
  readonly steps: ReadonlyArray<Step>
  /** Claude's last reply, as the Stop hook sees it. */
  readonly reply: string
}

export interface ExpectedItem {
  /** What the item is, for the reader of the results. */
  readonly what: string
  /** A distinctive string of the item: the item counts as brought when the injected text contains it. */
  readonly match: string
}

export interface Scenario {
  readonly id: string
  readonly language: "en" | "ko"
  /** Files of the project that routine work (reads, searches) touches. */
  readonly files: ReadonlyArray<string>
  /** Earlier sessions, oldest first. Routine work and unrelated sessions are added by the harness. */
  readonly past: ReadonlyArray<PastSession>
  /** How many unrelated sessions of routine work follow the relevant ones (default 3). */
  readonly laterSessions?: number
  readonly next: string
  readonly expected: ReadonlyArray<ExpectedItem>
}

export const read = (file: string, lines = 120): Step => ({ kind: "read", file, lines })
export const grep = (pattern: string, ...found: ReadonlyArray<string>): Step => ({ kind: "grep", pattern, found })
export const run = (command: string, output = ""): Step => ({ kind: "run", command, output })
export const fail = (command: string, output: string): Step => ({ kind: "fail", command, output })
export const edit = (file: string, before: string, after: string): Step => ({ kind: "edit", file, before, after })
export const write = (file: string, content: string): Step => ({ kind: "write", file, content })
export const note = (text: string): Step => ({ kind: "note", text })
export const session = (
  prompt: string | ReadonlyArray<string>,
  steps: ReadonlyArray<Step>,
  reply: string
): PastSession => ({
  prompts: typeof prompt === "string" ? [prompt] : prompt,
  steps,
  reply
})
