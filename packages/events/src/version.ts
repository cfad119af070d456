/** The ralph-mem version, stamped into every event's metadata. Kept equal to apps/cli/package.json (tested). */
export const VERSION = "0.1.0"
