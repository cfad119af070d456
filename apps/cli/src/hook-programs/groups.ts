/**
 * Each hook program (a module of this folder, bundled on its own by scripts/bundle.mjs) and the hooks it runs:
 * the hook loader picks a hook's program by this table, which is built from the handlers' groups.
 */
import { promptHandlers, toolCallHandlers, turnEndHandlers } from "@ralph-mem/hooks"

export const hookPrograms: Readonly<Record<string, ReadonlyArray<string>>> = {
  "tool-call": Object.keys(toolCallHandlers),
  prompt: Object.keys(promptHandlers),
  "turn-end": Object.keys(turnEndHandlers)
}
