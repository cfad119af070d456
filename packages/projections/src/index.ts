export * from "./all.ts"
export * from "./backup.ts"
export * from "./decider.ts"
export * from "./display-paths.ts"
export * from "./erasure.ts"
export {
  extractFailures,
  failureSignature,
  fingerprintFailure,
  type FingerprintOptions,
  normalizeLine,
  stripAnsi
} from "./failures/fingerprint.ts"
export * from "./failures/identity.ts"
export { failures } from "./failures/projection.ts"
export * from "./failures/queries.ts"
export * from "./forget.ts"
export * from "./index-merge.ts"
export { activeLoopForSession, latestLoop, listLoopRuns, type LoopRunRow, loopRuns, runningLoops } from "./loop-runs.ts"
export * from "./losses.ts"
export * from "./memory-items.ts"
export * from "./memory-store.ts"
export * from "./metrics.ts"
export * from "./neighbours.ts"
export { observationCountsByType, observations, observationsOfSessionsSince } from "./observations.ts"
export * from "./projection.ts"
export * from "./queries.ts"
export * from "./recovery.ts"
export * from "./replay.ts"
export * from "./runner.ts"
export { estimateTokens } from "./search/tokens.ts"
export * from "./session-log.ts"
export * from "./session-record.ts"
export {
  findSession,
  listSessions,
  type RecordedElsewhere,
  sessionCount,
  type SessionRow,
  sessions,
  sessionsRecordedElsewhere
} from "./sessions.ts"
export * from "./text.ts"
export * from "./verify.ts"
export { beliefs } from "./working/beliefs.ts"
export * from "./working/brief.ts"
export { decisions } from "./working/decisions.ts"
export * from "./working/read.ts"
export { tasks } from "./working/tasks.ts"
