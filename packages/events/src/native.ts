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

let nativeBinding: string | undefined

export const useBundledNativeBinding = (bundleUrl: string): void => {
  const path = join(dirname(fileURLToPath(bundleUrl)), "native", `${process.platform}-${process.arch}.node`)
  nativeBinding = existsSync(path) ? path : undefined
}

export const newSqliteDatabase = (path: string, options: Database.Options = {}): Database.Database =>
  new Database(path, nativeBinding === undefined ? options : { ...options, nativeBinding })
