/**
 * The lexicon's data files, as text, and its link index. Read from beside this module when it runs from source
 * (the index is built from the files then); the bundles hold the index built instead
 * (scripts/bundle.mjs replaces this module), so an installed plugin reads no extra file and builds nothing.
 */
import { readFileSync } from "node:fs"

export type LexiconFile = "bridge.tsv" | "errors.tsv" | "synonyms.tsv"

export const lexiconText = (name: LexiconFile): string => readFileSync(new URL(`./${name}`, import.meta.url), "utf8")

/** In a bundle, the link index cut by first character, each part JSON (see `linkIndexParts`). */
export const prebuiltLinkParts = (): Readonly<Record<string, string>> | undefined => undefined
