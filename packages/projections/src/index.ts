export * from "./all.ts"
export * from "./decider.ts"
export { activeLoopForSession, latestLoop, listLoopRuns, type LoopRunRow, loopRuns, runningLoops } from "./loop-runs.ts"
export {
  observationCountsByType,
  observations,
  observationsOfSessionsSince
} from "./observations.ts"
export * from "./projection.ts"
export * from "./replay.ts"
export * from "./runner.ts"
export { findSession, listSessions, sessionCount, type SessionRow, sessions } from "./sessions.ts"
export * from "./session-log.ts"
export * from "./metrics.ts"
export * from "./memory-store.ts"
export * from "./verify.ts"
export * from "./queries.ts"
export { estimateTokens } from "./search/tokens.ts"
export * from "./forget.ts"
export * from "./erasure.ts"
export * from "./neighbours.ts"
export * from "./backup.ts"
export * from "./recovery.ts"
export * from "./losses.ts"
export { beliefs } from "./working/beliefs.ts"
export { decisions } from "./working/decisions.ts"
export { tasks } from "./working/tasks.ts"
export * from "./working/read.ts"
export * from "./working/brief.ts"
export * from "./text.ts"
export { failures } from "./failures/projection.ts"
export * from "./failures/queries.ts"
export * from "./failures/identity.ts"
export {
  extractFailures,
  failureSignature,
  fingerprintFailure,
  type FingerprintOptions,
  normalizeLine,
  stripAnsi
} from "./failures/fingerprint.ts"
export * from "./memory-items.ts"
export * from "./session-record.ts"
export * from "./display-paths.ts"
