/** Reading rows out of a database file page by page, its WAL's committed frames over it. */
import { newSqliteDatabase } from "@ralph-mem/events"
import { closeSync, copyFileSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../events/test/helpers.ts"
import { rowsFromPages } from "../src/salvage-pages.ts"

/** A table of `count` rows, the last `inWal` of them committed in the WAL only; copied while it is open. */
const copyOfOpenDatabase = (count: number, inWal: number) => {
  const folder = tempFolder()
  const path = join(folder, "live.db")
  const db = newSqliteDatabase(path)
  db.pragma("journal_mode = WAL")
  db.pragma("wal_autocheckpoint = 0")
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
  const insert = db.prepare("INSERT INTO t (body) VALUES (?)")
  const big = "x".repeat(6000)
  for (let i = 1; i <= count - inWal; i++) insert.run(`row-${i}${i % 10 === 0 ? big : ""}`)
  db.pragma("wal_checkpoint(TRUNCATE)")
  for (let i = count - inWal + 1; i <= count; i++) insert.run(`row-${i}${i % 10 === 0 ? big : ""}`)
  const copy = join(folder, "copy.db")
  copyFileSync(path, copy)
  copyFileSync(`${path}-wal`, `${copy}-wal`)
  db.close()
  return copy
}

const bodies = (path: string) =>
  rowsFromPages(path)
    .filter((r) => r.values.length === 2 && typeof r.values[1] === "string" && r.values[1].startsWith("row-"))
    .map((r) => [r.rowid, (r.values[1] as string).slice(0, 10)] as const)
    .sort((a, b) => a[0] - b[0])

describe("rows from pages", () => {
  it("reads every row, overflow pages included, with the WAL's commits over the file", () => {
    const copy = copyOfOpenDatabase(60, 20)
    const rows = bodies(copy)
    expect(rows.map(([id]) => id)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
    expect(rows.find(([id]) => id === 50)![1]).toBe("row-50xxxx")
  })

  it("still reads the rows when the schema page is overwritten", () => {
    const copy = copyOfOpenDatabase(30, 0)
    const fd = openSync(copy, "r+")
    writeSync(fd, Buffer.alloc(4096 - 100, 0x5a), 0, 4096 - 100, 100)
    closeSync(fd)
    expect(bodies(copy).length).toBe(30)
  })

  it("leaves out the commits after a WAL frame that does not check out", () => {
    const copy = copyOfOpenDatabase(40, 20)
    const wal = readFileSync(`${copy}-wal`)
    truncateSync(`${copy}-wal`, Math.floor(wal.length / 2))
    const rows = bodies(copy).map(([id]) => id)
    expect(rows.length).toBeGreaterThanOrEqual(20)
    expect(rows.length).toBeLessThan(40)
    expect(rows).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1))
  })
})
