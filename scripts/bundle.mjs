// Bundles the entry points into dist/, which is committed: the repository is the Claude Code plugin,
// and installing a plugin builds nothing. better-sqlite3's JavaScript is bundled in and its prebuilt
// native modules are copied to dist/native/, so the plugin needs neither node_modules nor a compiler.
// CI rebuilds dist/ and fails if it differs from what is committed.
import { build } from "esbuild"
import { createHash } from "node:crypto"
import { chmodSync, copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
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

// The search's lexicon (packages/projections/src/search/lexicon/) is data the source reads from beside its
// module; a bundle holds its link index instead, built here by the same code, so an installed plugin has no
// extra file to find and a hook only parses the parts of it that its prompt's words start with.
const { buildLinkIndex, linkIndexParts } = await import("../packages/projections/src/search/lexicon.ts")
const inlineLexicon = {
  name: "inline-lexicon",
  setup(build) {
    build.onLoad({ filter: /[\\/]search[\\/]lexicon[\\/]files\.ts$/ }, () => {
      const parts = JSON.stringify(linkIndexParts(buildLinkIndex()))
      return {
        contents: [
          "export const lexiconText = () => { throw new Error(\"a bundle holds the lexicon built, not its files\"); };",
          `export const prebuiltLinkParts = () => (${parts});`
        ].join("\n"),
        loader: "js"
      }
    })
  }
}

const common = {
  absWorkingDir: root,
  plugins: [inlineLexicon],
  bundle: true,
  platform: "node",
  target: "node22",
  minify: true,
  legalComments: "none",
  logLevel: "warning"
}

/** The hook programs, each with the hooks it runs (apps/cli/src/hook-programs/groups.ts). */
const { hookPrograms } = await import("../apps/cli/src/hook-programs/groups.ts")

/**
 * A program dist/hook.mjs or the memory server's loader compiles with a code cache of its own (a hook's group of
 * hooks, the memory server): one CommonJS file with everything it runs, and nothing else. The loader compiles it
 * with a V8 code cache that holds every function a run calls (see apps/cli/src/program-loader.ts); its name
 * carries a hash of its content, which keys that cache. No dynamic import: one would make esbuild wrap every
 * module in a lazy initializer, which costs each start. Returns the file's name.
 */
const bundleProgram = async (entry, name) => {
  const program = await build({
    ...common,
    entryPoints: [entry],
    format: "cjs",
    write: false,
    outfile: join(next, "chunks", `${name}.cjs`),
    // A CommonJS module body in the function program-loader.ts compiles as is (no copy of it to wrap it);
    // ASCII, so it can be read without decoding UTF-8.
    charset: "ascii",
    define: { "import.meta.url": "__programUrl" },
    banner: {
      js: "(function (exports, require, module, __filename, __dirname) {"
        + "var __programUrl = require(\"node:url\").pathToFileURL(__filename).href;"
    },
    footer: { js: "})" }
  })
  const [code] = program.outputFiles
  // esbuild escapes strings, not regex literals: write those with \u escapes.
  const nonAscii = code.text.match(/[^\x00-\x7f].{0,40}/)
  if (nonAscii !== null) {
    throw new Error(
      `the program ${name} must be ASCII (program-loader.ts reads it as latin1): ${JSON.stringify(nonAscii[0])}`
    )
  }
  const file = `${name}-${createHash("sha256").update(code.contents).digest("hex").slice(0, 16)}.cjs`
  writeFileSync(join(next, "chunks", file), code.contents)
  return file
}

const bundle = async () => {
  mkdirSync(join(next, "chunks"), { recursive: true })
  // Each hook's program: a hook compiles and evaluates only what its group of hooks runs.
  const programs = {}
  for (const [group, hooks] of Object.entries(hookPrograms)) {
    const name = await bundleProgram(`apps/cli/src/hook-programs/${group}.ts`, `hook-${group}`)
    for (const hook of hooks) programs[hook] = `./chunks/${name}`
  }

  // The hook entry: a version check and the loader, with no imports of its own.
  await build({
    ...common,
    entryPoints: [{ in: "apps/cli/src/hook-loader.ts", out: "hook" }],
    outdir: next,
    outExtension: { ".js": ".mjs" },
    format: "esm",
    define: { HOOK_PROGRAMS: JSON.stringify(programs) },
    banner: { js: "#!/usr/bin/env node" }
  })

  // The memory server's program (apps/cli/src/mcp-loader.ts compiles it), by its file name in chunks/.
  const mcpProgram = await bundleProgram("apps/cli/src/mcp/program.ts", "mcp")

  // The CLI, and the worker thread its replay folds a long log with (packages/projections/src/
  // fold-in-worker.ts finds it next to the entry); the two share their chunks.
  await build({
    ...common,
    entryPoints: [
      { in: "apps/cli/src/bin.ts", out: "ralph-mem" },
      { in: "packages/projections/src/fold-worker.ts", out: "fold-worker" }
    ],
    outdir: next,
    outExtension: { ".js": ".mjs" },
    // The entry stays tiny: it checks the Node version and turns on Node's compile cache, then imports
    // the real code from a chunk, which the cache then covers.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    define: { MCP_PROGRAM: JSON.stringify(mcpProgram) },
    // Bundled CommonJS (better-sqlite3) calls require() and reads __dirname: give the ESM output both.
    banner: {
      js: [
        "#!/usr/bin/env node",
        "import { createRequire as __createRequire } from \"node:module\";",
        "import { fileURLToPath as __fileURLToPath } from \"node:url\";",
        "import { dirname as __dirnameOf } from \"node:path\";",
        "const require = __createRequire(import.meta.url);",
        "const __filename = __fileURLToPath(import.meta.url);",
        "const __dirname = __dirnameOf(__filename);"
      ].join("\n")
    }
  })
}
/**
 * The web viewer's assets (`ralph-mem ui` serves them; nothing is loaded from the network): its browser
 * script, its style, and uPlot, the chart library, as its package ships it.
 */
const bundleViewer = async () => {
  const ui = join(next, "ui")
  mkdirSync(ui, { recursive: true })
  await build({
    ...common,
    entryPoints: ["apps/cli/ui/client.ts"],
    outfile: join(ui, "app.js"),
    platform: "browser",
    target: "es2022",
    format: "iife"
  })
  copyFileSync(join(root, "apps", "cli", "ui", "style.css"), join(ui, "style.css"))
  const uplot = join(root, "node_modules", "uplot", "dist")
  for (const file of ["uPlot.iife.min.js", "uPlot.min.css"]) copyFileSync(join(uplot, file), join(ui, file))
}

await Promise.all([bundle(), bundleViewer()]).catch((error) => {
  rmSync(next, { recursive: true, force: true })
  throw error
})
// The executables stay executable (git keeps the mode): a global install from a clone (`npm install -g
// <clone>`) links its `ralph-mem` command to dist/ralph-mem.mjs, and a rebuild must not break that link.
for (const entry of ["ralph-mem.mjs", "hook.mjs"]) chmodSync(join(next, entry), 0o755)

const old = join(root, `.dist-old-${process.pid}`)
rmSync(old, { recursive: true, force: true })
try {
  renameSync(dist, old)
} catch {
  // No dist/ yet.
}
renameSync(next, dist)
rmSync(old, { recursive: true, force: true })
