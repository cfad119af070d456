/** The shape of a converted secret catalogue (see scripts/import-gitleaks.ts). */

/**
 * Matches that are not secrets after all: a regex on the secret, the whole match or its line, or words in
 * the secret.
 */
export interface CatalogueAllow {
  readonly target: "secret" | "match" | "line"
  readonly regexes: ReadonlyArray<string>
  /** Lowercase; a secret containing one is not reported. */
  readonly stopwords: ReadonlyArray<string>
}

export interface CatalogueRule {
  readonly id: string
  /** JavaScript source, used with the `g` and `d` flags only. */
  readonly regex: string
  /** Lowercase; a text holds one of them for the rule to be tried. */
  readonly keywords: ReadonlyArray<string>
  /** Minimum Shannon entropy (bits per character) of the secret. */
  readonly entropy?: number
  /** The capture group holding the secret; by default the first one that matched, or the whole match. */
  readonly secretGroup?: number
  readonly allow?: ReadonlyArray<CatalogueAllow>
}

export interface CatalogueData {
  readonly source: string
  readonly global: CatalogueAllow
  readonly rules: ReadonlyArray<CatalogueRule>
}
