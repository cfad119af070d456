/** A real in-memory FTS5 table indexed the way observations are: original text + "\n" + its searchable parts. */
import Database from "better-sqlite3"
import { searchableText } from "../../src/search/text.ts"

export interface SearchIndex {
  /** Rowids of the matching rows, best bm25 first. */
  readonly search: (match: string) => ReadonlyArray<number>
  readonly close: () => void
}

export const searchIndex = (rows: Readonly<Record<number, string>>): SearchIndex => {
  const db = new Database(":memory:")
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`)
  const insert = db.prepare("INSERT INTO docs (rowid, body) VALUES (?, ?)")
  for (const [id, text] of Object.entries(rows)) insert.run(Number(id), `${text}\n${searchableText(text)}`)
  const select = db.prepare<[string], { id: number }>(
    "SELECT rowid AS id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid"
  )
  return {
    search: (match) => select.all(match).map((row) => row.id),
    close: () => db.close()
  }
}
