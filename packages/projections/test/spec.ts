/**
 * Projection specs in the given-events / expected-rows style, on a real SQLite file:
 *   const memory = given([["session:a", started("a")], ...])
 *   expect(rows(memory, "SELECT ...")).toEqual([...])
 */
import type { RalphMemEvent } from "@ralph-mem/events"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { afterEach } from "vitest"
import { run, tempFolder } from "../../events/test/helpers.ts"
import { type MemoryStore, openMemory } from "../src/index.ts"

const opened: Array<MemoryStore> = []
afterEach(() => {
  for (const memory of opened.splice(0)) if (memory.db.open) memory.db.close()
})

export const T0 = Date.parse("2026-11-20T09:00:00Z")

/** Opens (or reopens) the memory at `path`, closed after the test. */
export const open = (path = join(tempFolder(), "memory.db")): MemoryStore => {
  const memory = run(openMemory({ path }))
  opened.push(memory)
  return memory
}

export type Given = ReadonlyArray<readonly [stream: string, event: RalphMemEvent]>

/** Appends each event in order, one second apart from T0. */
export const append = (memory: MemoryStore, events: Given, start = T0) => {
  const recorded = events.map(([stream, event], i) =>
    Effect.runSync(
      memory.log.append(stream, [event], { expectedVersion: "any", writer: "spec", occurredAt: start + i * 1000 })
    )
      .events[0]!
  )
  return recorded
}

export const given = (events: Given): MemoryStore => {
  const memory = open()
  append(memory, events)
  return memory
}

export const rows = (memory: MemoryStore, query: string, ...params: Array<string | number>) =>
  memory.db.prepare(query).all(...params)

/** Every projection table's content, in a deterministic order: the bytes a replay must reproduce. */
export const dump = (memory: MemoryStore): string =>
  JSON.stringify(
    memory.runner.projections.flatMap((p) =>
      p.tables.map((t) => [t.name, memory.db.prepare(`SELECT * FROM ${t.name} ORDER BY ${t.orderBy}`).raw().all()])
    )
  )

export const at = (second: number) => T0 + second * 1000
