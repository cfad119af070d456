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

/**
 * A belief's or task's stream id taken apart (`belief:/home/me/app#stack` -> belief, /home/me/app, stack);
 * undefined for a stream that names no project. Keys and task ids never hold `#`; a project path may.
 */
export const projectStream = (
  streamId: string
): { readonly kind: "belief" | "task"; readonly project: string; readonly name: string } | undefined => {
  const match = /^(belief|task):(.+)#([^#]+)$/.exec(streamId)
  return match === null ? undefined : { kind: match[1] as "belief" | "task", project: match[2]!, name: match[3]! }
}
