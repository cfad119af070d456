import { describe, expect, it } from "vitest"
import { pageNumber } from "../src/ui/pages.ts"
import { allowedHosts } from "../src/ui/server.ts"
import { singleXRange } from "../ui/scales.ts"

describe("the viewer's Host check", () => {
  it("takes its address or localhost at its port, and at port 80 without one (browsers leave the default out)", () => {
    expect([...allowedHosts(8123)].sort()).toEqual(["127.0.0.1:8123", "localhost:8123"])
    expect([...allowedHosts(80)].sort()).toEqual(["127.0.0.1", "127.0.0.1:80", "localhost", "localhost:80"])
  })
})

describe("a page number from the URL", () => {
  it("is digits only; anything else is the first page", () => {
    for (const value of [undefined, "", "0", "-1", "1.5", "abc", "1e3", "9999999", " 2", "0x10"]) {
      expect(pageNumber(value), String(value)).toBe(0)
    }
    expect(["1", "3", "007", "999999"].map(pageNumber)).toEqual([1, 3, 7, 999999])
  })
})

describe("a chart's x span", () => {
  it("is a day or an iteration either side of a single x, and left to uPlot for a range of them", () => {
    const day = Date.parse("2026-11-28T00:00:00Z") / 1000
    expect(singleXRange([day], "time")).toEqual([day - 86_400, day + 86_400])
    expect(singleXRange([day, day], "time")).toEqual([day - 86_400, day + 86_400])
    expect(singleXRange([1], "index")).toEqual([0, 2])
    expect(singleXRange([day - 86_400, day], "time")).toBeUndefined()
    expect(singleXRange([], "time")).toBeUndefined()
  })
})
