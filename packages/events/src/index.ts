export * from "./catalog/index.ts"
export * from "./compaction.ts"
export * from "./database.ts"
export * from "./digest.ts"
export * from "./errors.ts"
export * from "./head-mark.ts"
export * from "./ids.ts"
export { nameReader } from "./interned-names.ts"
export * from "./location.ts"
export * from "./log.ts"
export {
  adoptMemory,
  damagedMemoryOriginProblem,
  filesHoldMemoryId,
  memoryIdOf,
  memoryOriginProblem,
  memoryRegistry,
  readMemoryId
} from "./memory-origin.ts"
export { APPLICATION_ID, LATEST_SCHEMA_VERSION, REDACTED_PAYLOAD } from "./migrations.ts"
export * from "./native.ts"
export { blockReader, decodeBlock, encodeBlock, unpackBlock } from "./payload-blocks.ts"
export * from "./privacy/index.ts"
export * from "./processes.ts"
export * from "./read-only.ts"
export * from "./read.ts"
export * from "./safe-fs.ts"
export * from "./side-files.ts"
export type { StopOutput } from "./stop-output.ts"
export * from "./streams.ts"
export * from "./tracked-memory.ts"
export { VERSION } from "./version.ts"
