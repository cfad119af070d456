/**
 * The lexicon's data files, as text. Read from beside this module when it runs from source; the bundles hold
 * them inline instead (scripts/bundle.mjs replaces this module), so an installed plugin reads no extra file.
 */
import { readFileSync } from "node:fs"

export type LexiconFile = "bridge.tsv" | "errors.tsv" | "synonyms.tsv"

export const lexiconText = (name: LexiconFile): string => readFileSync(new URL(`./${name}`, import.meta.url), "utf8")
