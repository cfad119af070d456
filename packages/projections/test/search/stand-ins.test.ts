/**
 * Terms that stand for the user's words (other languages, error codes, synonyms, word forms), on a real memory:
 * they find what the words alone cannot, and never outrank a memory that holds the words as typed.
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import { describe, expect, it } from "vitest"
import { planForget } from "../../src/index.ts"
import { searchIndex } from "../../src/search/index.ts"
import { observation, started } from "../events.ts"
import { append, open, T0 } from "../spec.ts"

const DAY = 86_400_000

const memoryOf = (
  rows: ReadonlyArray<readonly [label: string, content: string]>,
  filler: ReadonlyArray<string> = []
) => {
  const memory = open()
  append(memory, [["session:a", started("a")]], T0 - 30 * DAY)
  for (const content of filler) append(memory, [["session:a", observation("a", content)]], T0 - 20 * DAY)
  const ids = new Map<string, string>()
  for (const [label, content] of rows) {
    ids.set(
      label,
      append(memory, [["session:a", observation("a", content) as RalphMemEvent]], T0 - 10 * DAY)[0]!.eventId
    )
  }
  const labelOf = new Map([...ids].map(([label, id]) => [id, label]))
  const search = (query: string) =>
    searchIndex(memory.db, { query, project: "/work/app", now: T0 }).hits.map((h) => labelOf.get(h.id) ?? h.title)
  const forgetting = (query: string) =>
    planForget(memory.db, { by: "query", query }).chosen.map((e) => labelOf.get(e.eventId) ?? e.eventId)
  return { search, forgetting }
}

describe("terms that stand for the query's words", () => {
  it("find English memories for Korean queries and Korean notes for English ones", () => {
    const { search } = memoryOf([
      ["enospc", "npm ERR! nospc ENOSPC: no space left on device, write"],
      ["allocated", "Bind for 0.0.0.0:5432 failed: port is already allocated"],
      ["websocket-ko", "웹소켓이 30초마다 끊기는 문제: nginx proxy_read_timeout 이 30s 였음"],
      ["other", "npm test passed, 48 files"]
    ])
    expect(search("디스크 공간 부족")[0]).toBe("enospc")
    expect(search("포트 충돌")[0]).toBe("allocated")
    expect(search("websocket disconnects every 30 seconds")[0]).toBe("websocket-ko")
    // Without the bridge none of these share a word with their memory.
    expect(search("디스크 공간 부족")).not.toContain("other")
  })

  it("never rank a memory holding only the stand-in above one holding the word as typed", () => {
    // Unrelated rows, so that bm25's idf is not the floor it is when every row holds every word.
    const filler = Array.from({ length: 20 }, (_, i) => `eslint checked ${i} files`)
    const { search } = memoryOf([
      ["korean", "포트 충돌 때문에 서버가 시작되지 않음"],
      ["english", "port conflict: the server does not start"]
    ], filler)
    expect(search("포트 충돌").slice(0, 2)).toEqual(["korean", "english"])
    expect(search("port conflict").slice(0, 2)).toEqual(["english", "korean"])
  })

  it("count below a typed word even if rarer: a common English word is not outranked by its rare Korean twin", () => {
    // `build` is in 60 rows, `빌드` in one: by idf alone the Korean note would win.
    const filler = Array.from({ length: 60 }, (_, i) => `npm run build finished step ${i}`)
    const { search } = memoryOf([
      ["english", "the build failed on the release branch"],
      ["korean", "빌드 실패 원인 정리"]
    ], filler)
    const hits = search("build failed")
    expect(hits.indexOf("english")).toBe(0)
    expect(hits.indexOf("korean") === -1 || hits.indexOf("korean") > 0).toBe(true)
    expect(search("빌드 실패")[0]).toBe("korean")
  })

  it("find word forms and error codes the query does not spell", () => {
    const { search } = memoryOf([
      ["expired", "TokenExpiredError: jwt expired at verify"],
      ["oom", "Last State: Terminated, Reason: OOMKilled, Exit Code: 137"],
      ["other", "eslint found no problems"]
    ])
    expect(search("token expires")[0]).toBe("expired")
    expect(search("container killed out of memory")[0]).toBe("oom")
  })

  it("are not asked by a forget: it selects only what its query names", () => {
    const { search, forgetting } = memoryOf([
      ["english", "Bind for 0.0.0.0:5432 failed: port is already allocated"],
      ["korean", "포트 충돌 정리"]
    ])
    expect(search("포트 충돌")).toContain("english")
    expect(forgetting("포트 충돌")).toEqual(["korean"])
  })

  it("rank a memory holding most of the query's concepts via them above newer ones holding one or two as typed", () => {
    // Six concepts: coverage is weighed for each, not only for pairs or the whole query.
    const filler = Array.from({ length: 40 }, (_, i) => `eslint checked ${i} files`)
    const { search } = memoryOf([
      ["korean", "도커 이미지 빌드 캐시가 매번 깨지던 원인: Dockerfile 에서 COPY . . 가 npm ci 보다 앞에 있었음"],
      ["cache", "cache: cache hit, cache warm"],
      ["build-cache", "npm run build: reused the build cache from the last build"]
    ], filler)
    expect(search("docker image build cache keeps breaking")[0]).toBe("korean")
    // Of two memories holding the same concepts, the one holding them as typed still comes first.
    expect(search("build cache").slice(0, 1)).toEqual(["build-cache"])
  })

  it("do not count function words as concepts, however long (`from`, `with`, `when`)", () => {
    const filler = Array.from({ length: 40 }, (_, i) => `eslint checked ${i} files`)
    const { search } = memoryOf([
      ["korean", "웹소켓 연결이 30초마다 끊김: nginx 프록시 타임아웃"],
      ["function-words", "moved the handler from the router with the others when it was ready"]
    ], filler)
    expect(search("websocket disconnected from the proxy with nginx when idle")[0]).toBe("korean")
  })

  it("find an old memory holding only rare stand-ins when prefixes of the query's words are in every newer row", () => {
    // `permission` stands in as `permiss*` and `container` as `contain*`: their words hold no row, their prefixes
    // hold every newer row. The rarest stand-ins (`권한`, `컨테이너`) must still be asked, however old their rows.
    const memory = open()
    append(memory, [["session:a", started("a")]], T0 - 40 * DAY)
    const [korean] = append(
      memory,
      [["session:a", observation("a", "컨테이너 권한 문제: 볼륨 소유자가 root")]],
      T0 - 30 * DAY
    )
    const later = Array.from(
      { length: 400 },
      (_, i) => ["session:b", observation("b", `permissions checked for containers, step ${i}`)] as const
    )
    append(memory, [["session:b", started("b")], ...later], T0 - 5 * DAY)
    const { hits } = searchIndex(memory.db, { query: "permission container", project: "/work/app", now: T0 })
    expect(hits.map((h) => h.id)).toContain(korean!.eventId)
  })
})
