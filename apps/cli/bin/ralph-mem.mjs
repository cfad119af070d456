#!/usr/bin/env node
// The workspace's `ralph-mem` command runs the bundle that the plugin ships (npm run build makes it).
import "../../../dist/ralph-mem.mjs"
