/**
 * The SQLite native module, when running from the plugin's bundles: they ship better-sqlite3's prebuilt
 * binaries in `dist/native/<platform>-<arch>.node`, so installing the plugin needs no compiler and no
 * download. Outside the bundles (tests, development) better-sqlite3 finds its own binary.
 */
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const bundledNativeBinding = (bundleUrl: string): string | undefined => {
  const path = join(dirname(fileURLToPath(bundleUrl)), "native", `${process.platform}-${process.arch}.node`)
  return existsSync(path) ? path : undefined
}
