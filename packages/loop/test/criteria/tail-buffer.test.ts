import { describe, expect, it } from "vitest"
import { TailBuffer } from "../../src/criteria/tail-buffer.ts"

describe("TailBuffer", () => {
  it("never holds more than its capacity while 10 MB stream through it", () => {
    const buffer = new TailBuffer(64 * 1024)
    let largest = 0
    for (let i = 0; i < 10 * 1024; i++) {
      buffer.append(Buffer.from(`${String(i).padStart(8, "0")}`.padEnd(1024, ".")))
      largest = Math.max(largest, buffer.byteLength)
    }
    expect(largest).toBe(64 * 1024)
    expect(buffer.totalBytes).toBe(10 * 1024 * 1024)
    expect(buffer.toString().endsWith(`${String(10 * 1024 - 1).padStart(8, "0")}`.padEnd(1024, "."))).toBe(true)
  })

  it("keeps only the end of a single chunk larger than the window", () => {
    const buffer = new TailBuffer(4)
    buffer.append(Buffer.from("abcdefgh"))
    expect(buffer.toString()).toBe("efgh")
    buffer.append(Buffer.from("ij"))
    expect(buffer.toString()).toBe("ghij")
  })

  it("keeps everything while under capacity, in order", () => {
    const buffer = new TailBuffer(100)
    buffer.append(Buffer.from("out "))
    buffer.append(Buffer.from("err"))
    expect(buffer.toString()).toBe("out err")
  })
})
