/**
 * Stream ids: one stream per session, per loop, per note, per decision, per belief of a project and per
 * task of a project; one for hook failures and one for forgets.
 */
export const streams = {
  session: (sessionId: string) => `session:${sessionId}`,
  loop: (loopId: string) => `loop:${loopId}`,
  note: (noteId: string) => `note:${noteId}`,
  decision: (decisionId: string) => `decision:${decisionId}`,
  belief: (projectPath: string, key: string) => `belief:${projectPath}#${key}`,
  task: (projectPath: string, taskId: string) => `task:${projectPath}#${taskId}`,
  forgets: "memory:forgets",
  /** Memory tool calls made where the session is not known (the MCP server was given no session id). */
  memoryTools: "memory:tool-calls",
  hookFailures: "hooks:failures",
  maintenance: "maintenance"
} as const
