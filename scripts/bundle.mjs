// Bundles the entry points into dist/, which is committed: the repository is the Claude Code plugin,
// and installing a plugin builds nothing. better-sqlite3's JavaScript is bundled in and its prebuilt
// native modules are copied to dist/native/, so the plugin needs neither node_modules nor a compiler.
// CI rebuilds dist/ and fails if it differs from what is committed.
import { build } from "esbuild"
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")
// Built beside dist/ and swapped in at the end: a failed build, or a session using the plugin while
// it builds, never sees a half-written dist/.
const dist = join(root, "dist")
const next = join(root, `.dist-next-${process.pid}`)
rmSync(next, { recursive: true, force: true })
mkdirSync(join(next, "native"), { recursive: true })

const prebuilds = join(root, "node_modules", "better-sqlite3", "prebuilds")
for (const file of readdirSync(prebuilds).filter((f) => f.endsWith(".node"))) {
  copyFileSync(join(prebuilds, file), join(next, "native", file))
}

await build({
  absWorkingDir: root,
  entryPoints: [
    { in: "apps/cli/src/hook.ts", out: "hook" },
    { in: "apps/cli/src/bin.ts", out: "ralph-mem" }
  ],
  outdir: next,
  outExtension: { ".js": ".mjs" },
  // The entries stay tiny: they turn on Node's compile cache, then import the real code from a chunk,
  // which the cache then covers (a hook is a fresh process every time, so this is most of its start-up).
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  minify: true,
  legalComments: "none",
  // Bundled CommonJS (better-sqlite3) calls require() and reads __dirname: give the ESM output both.
  banner: {
    js: [
      "#!/usr/bin/env node",
      'import { createRequire as __createRequire } from "node:module";',
      'import { fileURLToPath as __fileURLToPath } from "node:url";',
      'import { dirname as __dirnameOf } from "node:path";',
      "const require = __createRequire(import.meta.url);",
      "const __filename = __fileURLToPath(import.meta.url);",
      "const __dirname = __dirnameOf(__filename);"
    ].join("\n")
  },
  logLevel: "warning"
}).catch((error) => {
  rmSync(next, { recursive: true, force: true })
  throw error
})

const old = join(root, `.dist-old-${process.pid}`)
rmSync(old, { recursive: true, force: true })
try {
  renameSync(dist, old)
} catch {
  // No dist/ yet.
}
renameSync(next, dist)
rmSync(old, { recursive: true, force: true })
