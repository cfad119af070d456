// Bundles every entry point with esbuild: one ESM file each, better-sqlite3 left external (native).
import { build } from "esbuild"

const entries = [{ in: "apps/cli/src/bin.ts", out: "apps/cli/dist/ralph-mem" }]

await build({
  entryPoints: entries,
  outdir: ".",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  external: ["better-sqlite3"],
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  // Bundled CommonJS dependencies call require() for Node built-ins; give ESM output a real one.
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);'
  },
  logLevel: "warning"
})
