export * from "./belief.ts"
export * from "./decision.ts"
export * from "./names.ts"
export * from "./task.ts"
