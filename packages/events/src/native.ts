/**
 * Creating SQLite connections. The plugin's bundles ship better-sqlite3's prebuilt binaries in
 * `dist/native/<platform>-<arch>.node` (installing the plugin needs no compiler and no download); an
 * entry point calls `useBundledNativeBinding` once and every connection, however it is opened, uses
 * it. Outside the bundles (tests, development) better-sqlite3 finds its own binary.
 */
import Database from "better-sqlite3"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { registerPayloadFunctions } from "./payload-blocks.ts"

let nativeBinding: string | undefined

/** `bundleUrl` is the calling module's URL: in `dist/` itself, or in `dist/chunks/` after code splitting. */
export const useBundledNativeBinding = (bundleUrl: string): void => {
  const here = dirname(fileURLToPath(bundleUrl))
  const file = `${process.platform}-${process.arch}.node`
  nativeBinding = [join(here, "native", file), join(here, "..", "native", file)].find(existsSync)
}

let nativeLoaded = false

/**
 * A connection with the functions the log's view and triggers call (see payload-blocks.ts).
 * better-sqlite3 reads SQLITE_USE_URI once, when its native module loads with the first connection: it is
 * set for that moment only, so a read-only database can be opened as `file:...?immutable=1` (database.ts).
 * Paths ralph-mem opens are absolute, so none of them starts with `file:` by chance.
 */
export const newSqliteDatabase = (path: string, options: Database.Options = {}): Database.Database => {
  const before = nativeLoaded ? undefined : process.env["SQLITE_USE_URI"]
  if (!nativeLoaded) process.env["SQLITE_USE_URI"] = "1"
  let db: Database.Database
  try {
    db = new Database(path, nativeBinding === undefined ? options : { ...options, nativeBinding })
  } finally {
    if (!nativeLoaded) {
      if (before === undefined) delete process.env["SQLITE_USE_URI"]
      else process.env["SQLITE_USE_URI"] = before
      nativeLoaded = true
    }
  }
  registerPayloadFunctions(db)
  return db
}
