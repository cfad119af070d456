/** Stream ids: one stream per session, per loop, and per note; one for hook failures and one for forgets. */
export const streams = {
  session: (sessionId: string) => `session:${sessionId}`,
  loop: (loopId: string) => `loop:${loopId}`,
  note: (noteId: string) => `note:${noteId}`,
  forgets: "memory:forgets",
  hookFailures: "hooks:failures",
  maintenance: "maintenance"
} as const
