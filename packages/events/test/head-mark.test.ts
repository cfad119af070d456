/**
 * The head mark, read while another process writes it: a read that takes half of one mark and half of the
 * next names an event no append made, and must not be taken for a mark (it was reported as a lost event).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { headMarkPath, readHeadMark, readOwnHeadMark, writeHeadMark } from "../src/index.ts"
import { tempFolder } from "./helpers.ts"

const databasePath = () => join(tempFolder(), "memory.db")

describe("the head mark", () => {
  it("reads back the newest mark written, and keeps a later one over an earlier one", () => {
    const path = databasePath()
    expect(readHeadMark(path)).toBeUndefined()
    writeHeadMark(path, { position: 251, eventId: "01M8GPE506VTAN35R2111S2T0C" })
    writeHeadMark(path, { position: 250, eventId: "01M8GPE4ZZ0000000000000000" })
    expect(readHeadMark(path)).toEqual({ position: 251, eventId: "01M8GPE506VTAN35R2111S2T0C" })
    writeHeadMark(path, { position: 250, eventId: "01M8GPE4ZZ0000000000000000" }, true)
    expect(readHeadMark(path)).toEqual({ position: 250, eventId: "01M8GPE4ZZ0000000000000000" })
  })

  it("reads a mark torn between two writes (the first bytes of one, the rest of the other) as no mark", () => {
    const path = databasePath()
    writeHeadMark(path, { position: 250, eventId: "01M8GPE4ZZQ8W1XK3V6T9R2M5B" })
    const earlier = readFileSync(headMarkPath(path))
    writeHeadMark(path, { position: 251, eventId: "01M8GPE506VTAN35R2111S2T0C" })
    const later = readFileSync(headMarkPath(path))
    // Cut inside the event id: the same position, an id neither append made.
    const cut = later.indexOf("01M8GPE5") + 12
    const torn = Buffer.concat([later.subarray(0, cut), earlier.subarray(cut)])
    expect(JSON.parse(torn.toString("utf8"))).toMatchObject({ position: 251, eventId: "01M8GPE506VTW1XK3V6T9R2M5B" })
    writeFileSync(headMarkPath(path), torn)
    expect(readHeadMark(path)).toBeUndefined()
  })

  it("still reads a mark an earlier ralph-mem wrote, without a check", () => {
    const path = databasePath()
    writeFileSync(
      headMarkPath(path),
      JSON.stringify({ position: 7, eventId: "01M8GPE506VTAN35R2111S2T0C" }).padEnd(64, " ")
    )
    expect(readHeadMark(path)).toEqual({ position: 7, eventId: "01M8GPE506VTAN35R2111S2T0C" })
  })

  it("is read for a memory only when it names that memory's id; another is ignored, and replaced by a write", () => {
    const path = databasePath()
    const mine = "0123456789abcdef0123456789abcdef"
    const theirs = "fedcba9876543210fedcba9876543210"
    writeHeadMark(path, { position: 9_000, eventId: "01M8GPE506VTAN35R2111S2T0C", memory: theirs })
    expect(readOwnHeadMark(path, theirs).mark).toMatchObject({ position: 9_000, memory: theirs })
    expect(readOwnHeadMark(path, mine)).toEqual({ foreign: expect.stringContaining(`names memory ${theirs}`) })
    // A mark naming no memory (an earlier ralph-mem's, or planted by hand) is not this memory's either.
    writeFileSync(
      headMarkPath(path),
      JSON.stringify({ position: 9_000, eventId: "01M8GPE506VTAN35R2111S2T0C" }).padEnd(128, " ")
    )
    expect(readOwnHeadMark(path, mine)).toEqual({ foreign: expect.stringContaining("names no memory") })
    expect(readOwnHeadMark(path, undefined).mark).toMatchObject({ position: 9_000 })
    // A later position of another memory does not hold this memory's mark back.
    writeHeadMark(path, { position: 12, eventId: "01M8GPE4ZZ0000000000000000", memory: mine })
    expect(readOwnHeadMark(path, mine)).toEqual({
      mark: { position: 12, eventId: "01M8GPE4ZZ0000000000000000", memory: mine }
    })
    writeHeadMark(path, { position: 11, eventId: "01M8GPE4ZY0000000000000000", memory: mine })
    expect(readOwnHeadMark(path, mine).mark?.position).toBe(12)
  })

  it("checks the memory it names with the rest: a mark whose id was changed is read as none", () => {
    const path = databasePath()
    const mine = "0123456789abcdef0123456789abcdef"
    writeHeadMark(path, { position: 40, eventId: "01M8GPE506VTAN35R2111S2T0C", memory: mine })
    const text = readFileSync(headMarkPath(path), "utf8")
    writeFileSync(headMarkPath(path), text.replace(mine, "f".repeat(32)))
    expect(readHeadMark(path)).toBeUndefined()
  })
})
