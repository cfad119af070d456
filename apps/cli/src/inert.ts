/**
 * Text a terminal shows, made inert: what ralph-mem prints can quote what a repository named (a file or folder called
 * `\x1b]52;c;...\x07`, a tool's output, a prd.json's description), and printed as it is, a terminal ran it as a
 * command, writing the clipboard, clearing the screen or retitling the window. A module of its own: the hook programs
 * use it for the messages Claude Code shows, and load nothing more for it.
 */

/** C0 and C1 control characters but the tab and the line break, and DEL. */
const CONTROL = /\r(?!\n)|[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f]/g

/** The text with each control character a terminal would act on shown as `\xNN` instead (see `CONTROL`). */
export const inert = (text: string): string =>
  text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`)
