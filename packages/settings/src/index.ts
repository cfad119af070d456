/**
 * ralph-mem's configuration: YAML files layered as defaults < global < project < environment,
 * validated key by key. See load.ts for the layering and yaml.ts for why the YAML parser loads lazily.
 */
export { listSettings, settingKeys, settingValue } from "./access.ts"
export { DURATION_EXAMPLES, formatDuration, parseDuration } from "./duration.ts"
export { type WriteResult, writeSetting, type WriteSettingOptions } from "./edit.ts"
export type { Environment } from "./env.ts"
export {
  type Acceptance,
  acceptProjectFile,
  keepAccepted,
  type LoadedSettings,
  loadSettings,
  type LoadSettingsOptions,
  type SettingsFiles
} from "./load.ts"
export {
  type BackupSettings,
  type CriterionType,
  criterionTypes,
  defaultSettings,
  type LoopSettings,
  type MemorySettings,
  type SearchSettings,
  type Settings,
  type SuccessCriterion
} from "./settings.ts"
export { isTrusted, recordTrust, TrustNotRecorded } from "./trust.ts"
