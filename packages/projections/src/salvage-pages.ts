/**
 * Reading rows out of a damaged SQLite file page by page, for when SQLite itself cannot (its schema or
 * a b-tree's upper pages are gone): what `.recover` does, which better-sqlite3 does not compile in.
 * Every page is taken at its newest committed version (the WAL's frames that check out over the main
 * file's), and every table leaf page's cells are decoded into rows, following overflow chains. Which
 * table a row came from is not known: the caller picks rows by their shape.
 */
import { existsSync, readFileSync } from "node:fs"

export type Value = null | number | bigint | string | Uint8Array

export interface RawRow {
  readonly rowid: number
  readonly values: ReadonlyArray<Value>
}

const WAL_HEADER = 32
const FRAME_HEADER = 24

/** The WAL's checksum (SQLite's: two 32-bit sums over pairs of words, in the byte order the magic says). */
const walChecksum = (data: Buffer, bigEndian: boolean, start: readonly [number, number]): [number, number] => {
  let [s0, s1] = start
  for (let i = 0; i + 8 <= data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i)
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4)
    s0 = (s0 + x0 + s1) >>> 0
    s1 = (s1 + x1 + s0) >>> 0
  }
  return [s0, s1]
}

/** The pages of the WAL's committed transactions, newest version of each; empty when it has none that check out. */
const walPages = (wal: Buffer): Map<number, Buffer> => {
  const pages = new Map<number, Buffer>()
  if (wal.length < WAL_HEADER) return pages
  const magic = wal.readUInt32BE(0)
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return pages
  const bigEndian = magic === 0x377f0683
  const pageSize = wal.readUInt32BE(8)
  const salt = [wal.readUInt32BE(16), wal.readUInt32BE(20)]
  let sum = walChecksum(wal.subarray(0, 24), bigEndian, [0, 0])
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return pages
  let pending = new Map<number, Buffer>()
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt[0] || wal.readUInt32BE(at + 12) !== salt[1]) break
    sum = walChecksum(wal.subarray(at, at + 8), bigEndian, sum)
    sum = walChecksum(wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize), bigEndian, sum)
    if (sum[0] !== wal.readUInt32BE(at + 16) || sum[1] !== wal.readUInt32BE(at + 20)) break
    pending.set(wal.readUInt32BE(at), wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize))
    // A commit frame: its transaction, and every one before, is committed.
    if (wal.readUInt32BE(at + 4) !== 0) {
      for (const [page, data] of pending) pages.set(page, data)
      pending = new Map()
    }
  }
  return pages
}

const varint = (data: Buffer, at: number): [value: number, next: number] => {
  let value = 0
  for (let i = 0; i < 8; i++) {
    const byte = data[at + i]
    if (byte === undefined) throw new RangeError("varint past the end")
    value = value * 128 + (byte & 0x7f)
    if ((byte & 0x80) === 0) return [value, at + i + 1]
  }
  const last = data[at + 8]
  if (last === undefined) throw new RangeError("varint past the end")
  return [value * 256 + last, at + 9]
}

const INT_BYTES = [0, 1, 2, 3, 4, 6, 8]

/** A record's values (SQLite's record format). */
const decodeRecord = (payload: Buffer): Array<Value> => {
  const [headerSize, first] = varint(payload, 0)
  const types: Array<number> = []
  for (let at = first; at < headerSize;) {
    const [type, next] = varint(payload, at)
    types.push(type)
    at = next
  }
  const values: Array<Value> = []
  let at = headerSize
  for (const type of types) {
    if (type === 0) values.push(null)
    else if (type >= 1 && type <= 6) {
      const bytes = INT_BYTES[type]!
      if (at + bytes > payload.length) throw new RangeError("record past the end")
      values.push(bytes === 8 ? Number(payload.readBigInt64BE(at)) : payload.readIntBE(at, bytes))
      at += bytes
    } else if (type === 7) {
      values.push(payload.readDoubleBE(at))
      at += 8
    } else if (type === 8 || type === 9) values.push(type - 8)
    else if (type >= 12) {
      const length = Math.floor((type - (type % 2 === 0 ? 12 : 13)) / 2)
      if (at + length > payload.length) throw new RangeError("record past the end")
      const bytes = payload.subarray(at, at + length)
      values.push(type % 2 === 0 ? new Uint8Array(bytes) : bytes.toString("utf8"))
      at += length
    } else throw new RangeError(`serial type ${type}`)
  }
  return values
}

/**
 * Every row of every table leaf page that decodes. Damaged pages, cells and overflow chains are
 * skipped; what they held is simply not among the rows.
 */
export const rowsFromPages = (databasePath: string): Array<RawRow> => {
  const file = readFileSync(databasePath)
  const pageSize = (() => {
    const size = file.length >= 100 ? file.readUInt16BE(16) : 0
    return size === 1 ? 65536 : size >= 512 && (size & (size - 1)) === 0 ? size : 4096
  })()
  const reserved = file.length >= 100 ? file[20]! : 0
  const usable = pageSize - reserved
  const pages = new Map<number, Buffer>()
  for (let page = 1; page * pageSize <= file.length; page++) {
    pages.set(page, file.subarray((page - 1) * pageSize, page * pageSize))
  }
  const wal = `${databasePath}-wal`
  if (existsSync(wal)) { for (const [page, data] of walPages(readFileSync(wal))) pages.set(page, data) }

  const overflow = (first: number, length: number): Buffer => {
    const parts: Array<Buffer> = []
    let total = 0
    const seen = new Set<number>()
    for (let page = first; total < length;) {
      const data = pages.get(page)
      if (data === undefined || seen.has(page)) throw new RangeError("broken overflow chain")
      seen.add(page)
      const part = data.subarray(4, Math.min(usable, 4 + length - total))
      parts.push(part)
      total += part.length
      page = data.readUInt32BE(0)
    }
    return Buffer.concat(parts)
  }

  const rows: Array<RawRow> = []
  for (const [page, data] of pages) {
    const header = page === 1 ? 100 : 0
    if (data[header] !== 0x0d) continue
    const cells = data.readUInt16BE(header + 3)
    for (let cell = 0; cell < cells; cell++) {
      try {
        const pointer = data.readUInt16BE(header + 8 + cell * 2)
        const [size, afterSize] = varint(data, pointer)
        const [rowid, start] = varint(data, afterSize)
        const maxLocal = usable - 35
        let payload: Buffer
        if (size <= maxLocal) payload = data.subarray(start, start + size)
        else {
          const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23
          const k = minLocal + ((size - minLocal) % (usable - 4))
          const local = k <= maxLocal ? k : minLocal
          payload = Buffer.concat([
            data.subarray(start, start + local),
            overflow(data.readUInt32BE(start + local), size - local)
          ])
        }
        if (payload.length !== size) continue
        rows.push({ rowid, values: decodeRecord(payload) })
      } catch {
        // A damaged cell: skipped.
      }
    }
  }
  return rows
}
