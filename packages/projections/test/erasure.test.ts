/**
 * The forgotten text is replaced in exported files read a chunk at a time: a match that runs across two chunks is
 * found whole, wherever the boundary falls in it, and every other byte is kept. Checked against a replace over the
 * whole file held in memory, with chunks a few bytes long so every boundary is crossed.
 */
import { closeSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../../events/test/helpers.ts"
import { replaceInFile, scrubDerivedFiles } from "../src/erasure.ts"

/** Leftmost, longest first: what the chunked reading must give. */
const replacedWhole = (bytes: Buffer, needles: ReadonlyArray<Buffer>): Buffer => {
  const parts: Array<Buffer> = []
  let at = 0
  for (let i = 0; i < bytes.length;) {
    const match = [...needles].sort((a, b) => b.length - a.length).find((n) => bytes.subarray(i).indexOf(n) === 0)
    if (match === undefined) {
      i++
      continue
    }
    parts.push(bytes.subarray(at, i), Buffer.from("[forgotten]"))
    i += match.length
    at = i
  }
  parts.push(bytes.subarray(at))
  return Buffer.concat(parts)
}

const throughChunks = (bytes: Buffer, needles: ReadonlyArray<Buffer>, chunkBytes: number) => {
  const path = join(tempFolder(), "export.bin")
  writeFileSync(path, bytes)
  const fd = openSync(path, "r")
  try {
    const out: Array<Buffer> = []
    const found = replaceInFile(fd, bytes.length, needles, (b) => out.push(Buffer.from(b)), chunkBytes)
    return { found, seen: replaceInFile(fd, bytes.length, needles, undefined, chunkBytes), bytes: Buffer.concat(out) }
  } finally {
    closeSync(fd)
  }
}

describe("replacing the forgotten text a chunk at a time", () => {
  const text = Buffer.from("the SECRET-PLAN-42 text")
  const escaped = Buffer.from("the \\\"SECRET\\\"")

  it("finds a match wherever a chunk boundary cuts it, and keeps every other byte (binary ones too)", () => {
    for (const chunkBytes of [1, 2, 3, 5, 7, 16]) {
      for (let offset = 0; offset < 40; offset++) {
        const bytes = Buffer.concat([
          Buffer.alloc(offset, 0xff),
          text,
          Buffer.from([0x00, 0x80]),
          escaped,
          text,
          Buffer.alloc(3, 0xfe)
        ])
        const result = throughChunks(bytes, [text, escaped], chunkBytes)
        expect(result.found).toBe(true)
        expect(result.seen).toBe(true)
        expect(result.bytes.equals(replacedWhole(bytes, [text, escaped]))).toBe(true)
        expect(result.bytes.includes(text)).toBe(false)
      }
    }
  })

  it("takes the longest match starting at one place, and a match nearer the start over a longer one later", () => {
    const long = Buffer.from("abcdefgh-long")
    const short = Buffer.from("abcdefgh")
    const later = Buffer.from("efgh-long-and-longer")
    for (const chunkBytes of [1, 4, 9, 64]) {
      const bytes = Buffer.from("xx abcdefgh-long yy abcdefgh zz abcdefgh-long-and-longer")
      const result = throughChunks(bytes, [short, long, later], chunkBytes)
      expect(result.bytes.toString()).toBe(replacedWhole(bytes, [short, long, later]).toString())
      expect(result.bytes.toString()).toBe("xx [forgotten] yy [forgotten] zz [forgotten]-and-longer")
    }
  })

  it("leaves a file without the text untouched, and says it found nothing", () => {
    const bytes = Buffer.from("nothing to see: SECRET-PLAN-4 and the SECRET-PLAN-42 tex")
    const result = throughChunks(bytes, [text], 4)
    expect(result).toMatchObject({ found: false, seen: false })
    expect(result.bytes.equals(bytes)).toBe(true)
  })
})

describe("scrubbing the files exported beside a memory", () => {
  const secret = "SECRET-PLAN-42"

  /** A memory's folder with an export holding the text; the database itself is not needed. */
  const memoryWithExport = (name: string, text: string) => {
    const folder = tempFolder()
    mkdirSync(join(folder, "export"))
    const file = join(folder, "export", name)
    writeFileSync(file, text)
    return { databasePath: join(folder, "memory.db"), file, folder }
  }

  it("takes the text from every name of a file with hard links, not only from the one under export/", () => {
    const { databasePath, file, folder } = memoryWithExport("memory.md", `before ${secret} after`)
    // A name the user gave it elsewhere (`ln`): a new file put in the export's place would leave the old text there.
    const elsewhere = join(folder, "kept-copy.md")
    linkSync(file, elsewhere)
    const scrub = scrubDerivedFiles(databasePath, [secret])
    expect(scrub).toEqual({ scrubbed: [file], notChecked: [] })
    expect(readFileSync(file, "utf8")).toBe("before [forgotten] after")
    expect(readFileSync(elsewhere, "utf8")).toBe("before [forgotten] after")
    // Still one file under two names, and no temporary file left beside it.
    expect(statSync(elsewhere).ino).toBe(statSync(file).ino)
    expect(statSync(file).nlink).toBe(2)
    expect(readdirSync(join(folder, "export"))).toEqual(["memory.md"])
  })

  it("reads no more than its limit in all: the files past it are named as not checked", () => {
    const { databasePath, file, folder } = memoryWithExport("a.md", `${secret} one`)
    writeFileSync(join(folder, "export", "b.md"), `${secret} two`)
    writeFileSync(join(folder, "export", "c.md"), `${secret} three`)
    const limits = { fileBytes: 100, totalBytes: 40 }
    const scrub = scrubDerivedFiles(databasePath, [secret], limits)
    expect(scrub.scrubbed).toEqual([file, join(folder, "export", "b.md")])
    expect(scrub.notChecked).toEqual([{
      file: join(folder, "export", "c.md"),
      bytes: secret.length + 6,
      reason: "past the 40 bytes a forget reads in all"
    }])
    expect(readFileSync(join(folder, "export", "c.md"), "utf8")).toBe(`${secret} three`)
  })
})
