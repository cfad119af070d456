/**
 * The spill file: where a hook that cannot record (the database locked by another process past the
 * hook's wait, a full disk, an I/O error) leaves its events, privacy-filtered, or at least its failure,
 * so nothing is lost without a trace. The next process that can write folds it into the log.
 *
 * It is written in place in space allocated while the disk had room: a header page, then SLOTS fixed
 * slots, zero when free. A full disk refuses new blocks, not writes over blocks a file already has
 * (on copy-on-write file systems such as btrfs or ZFS even those need room; there only the failures
 * counted in the header survive). A hook claims a free slot starting at a random one and checks, after
 * writing, that the slot holds its record. When every slot is taken, it sets one byte of the header's
 * overflow area, so the failure is still counted. Size: 4 KiB + 32 x 8 KiB.
 *
 * Folding appends each record's events with the idempotency key they were to be written with (or one
 * of the record's own) and a HookFailed event saying what happened, then zeroes the slot: a fold that
 * is interrupted, or two at once, record each event once.
 */
import {
  failureLogPath,
  openSideFile,
  openSideFileToRead,
  type RalphMemEvent,
  readSideFileAt,
  redactStrings,
  streams,
  writeSideFileAt
} from "@ralph-mem/events"
import type { MemoryStore } from "@ralph-mem/projections"
import * as Effect from "effect/Effect"
import { closeSync, existsSync } from "node:fs"
import { logFailure } from "./failure-log.ts"

const MAGIC = Buffer.from("RMSPILL1")
const HEADER_BYTES = 4096
const DIRTY_AT = 8
const OVERFLOW_AT = 64
const OVERFLOW_BYTES = HEADER_BYTES - OVERFLOW_AT
export const SPILL_SLOTS = 32
const SLOT_BYTES = 8192
const SPILL_BYTES = HEADER_BYTES + SPILL_SLOTS * SLOT_BYTES

export const spillPath = (databasePath: string): string => `${databasePath}.spill`

/** What a hook could not record. */
export interface SpillRecord {
  /** The hook invocation's id. */
  readonly id: string
  readonly time: string
  readonly hook: string
  readonly reason: string
  readonly sessionId?: string
  /** The append the hook could not make, its events privacy-filtered; absent when none was decided yet. */
  readonly append?: {
    readonly stream: string
    readonly events: ReadonlyArray<RalphMemEvent>
    readonly writer: string
    readonly correlationId: string
    readonly idempotencyKey?: string
  }
  /** Events left out because the record would not fit in a slot. */
  readonly eventsDropped?: number
}

const slotOffset = (slot: number) => HEADER_BYTES + slot * SLOT_BYTES

/** Creates the spill file with all its space written (zeros), while the disk has room. */
const create = (path: string): number => {
  const fd = openSideFile(path, true)
  try {
    writeSideFileAt(fd, Buffer.alloc(SPILL_BYTES), 0)
    writeSideFileAt(fd, MAGIC, 0)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** The slot's record bytes: a 4-byte length, then JSON. */
const encode = (record: SpillRecord): Buffer | undefined => {
  const json = Buffer.from(JSON.stringify(record))
  if (json.length + 4 > SLOT_BYTES) return undefined
  const bytes = Buffer.alloc(4 + json.length)
  bytes.writeUInt32LE(json.length, 0)
  json.copy(bytes, 4)
  return bytes
}

type SlotContent =
  | { readonly kind: "free" }
  | { readonly kind: "record"; readonly record: SpillRecord }
  | { readonly kind: "unreadable" }

const readSlot = (fd: number, slot: number): SlotContent => {
  const length = readSideFileAt(fd, 4, slotOffset(slot)).readUInt32LE(0)
  if (length === 0) return { kind: "free" }
  if (length + 4 > SLOT_BYTES) return { kind: "unreadable" }
  try {
    return {
      kind: "record",
      record: JSON.parse(readSideFileAt(fd, length, slotOffset(slot) + 4).toString("utf8")) as SpillRecord
    }
  } catch {
    return { kind: "unreadable" }
  }
}

/** The record as it fits: with its events, or without them (counted) when they are too large. */
const fitted = (record: SpillRecord): Buffer => {
  const filtered: SpillRecord = record.append === undefined
    ? record
    : { ...record, append: { ...record.append, events: record.append.events.map((e) => redactStrings(e)) } }
  const { append: _, ...withoutEvents } = filtered
  return (
    encode(filtered) ??
      encode({ ...withoutEvents, eventsDropped: record.append?.events.length ?? 0 }) ??
      encode({
        id: record.id,
        time: record.time,
        hook: record.hook,
        reason: record.reason.slice(0, 1000),
        eventsDropped: record.append?.events.length ?? 0
      })!
  )
}

const markDirty = (fd: number) => writeSideFileAt(fd, Buffer.from([1]), DIRTY_AT)

/**
 * Keeps what a hook could not record. Never throws: it is the last trace there is. Returns where it
 * went: a slot, the overflow count, or nowhere (no spill file could be written at all).
 */
export const spill = (databasePath: string, record: SpillRecord): "kept" | "counted" | "lost" => {
  let fd: number
  try {
    fd = existsSync(spillPath(databasePath))
      ? openSideFile(spillPath(databasePath), false)
      : create(spillPath(databasePath))
  } catch {
    return "lost"
  }
  try {
    const bytes = fitted(record)
    const start = Math.floor(Math.random() * SPILL_SLOTS)
    for (let i = 0; i < SPILL_SLOTS; i++) {
      const slot = (start + i) % SPILL_SLOTS
      if (readSlot(fd, slot).kind !== "free") continue
      writeSideFileAt(fd, bytes, slotOffset(slot))
      // Another hook may have claimed the same slot at the same moment: the last write won.
      const now = readSlot(fd, slot)
      if (now.kind === "record" && now.record.id === record.id) {
        markDirty(fd)
        return "kept"
      }
    }
    const ticks = readSideFileAt(fd, OVERFLOW_BYTES, OVERFLOW_AT)
    const free = [...ticks.keys()].filter((i) => ticks[i] === 0)
    if (free.length === 0) return "lost"
    writeSideFileAt(fd, Buffer.from([1]), OVERFLOW_AT + free[Math.floor(Math.random() * free.length)]!)
    markDirty(fd)
    return "counted"
  } catch {
    return "lost"
  } finally {
    closeSync(fd)
  }
}

export interface SpillState {
  /** Records kept, waiting to be recorded. */
  readonly kept: number
  /** Failures only counted: the slots were all taken. */
  readonly counted: number
  /** Slots that could not be read (a record being written, or damaged). */
  readonly unreadable: number
}

/** What the spill file holds now (nothing when there is none). */
export const spillState = (databasePath: string): SpillState => {
  if (!existsSync(spillPath(databasePath))) return { kept: 0, counted: 0, unreadable: 0 }
  const fd = openSideFileToRead(spillPath(databasePath))
  try {
    const slots = Array.from({ length: SPILL_SLOTS }, (_, slot) => readSlot(fd, slot).kind)
    const ticks = readSideFileAt(fd, OVERFLOW_BYTES, OVERFLOW_AT)
    return {
      kept: slots.filter((k) => k === "record").length,
      counted: ticks.filter((b) => b !== 0).length,
      unreadable: slots.filter((k) => k === "unreadable").length
    }
  } finally {
    closeSync(fd)
  }
}

const describeRecord = (record: SpillRecord, recordedAt: string) => {
  const events = record.append?.events.length ?? 0
  const kept = events > 0
    ? `its ${events} event(s) were kept in the spill file and recorded at ${recordedAt}`
    : "nothing of it was recorded"
  const dropped = record.eventsDropped ? `; ${record.eventsDropped} event(s) were too large to keep and are lost` : ""
  return `could not record (${record.reason.slice(0, 500)}): ${kept}${dropped}`
}

/** Appends one record's events and its failure, each once whatever happened before. */
const foldRecord = (memory: MemoryStore, record: SpillRecord) =>
  Effect.gen(function*() {
    const recordedAt = new Date().toISOString()
    const occurredAt = Date.parse(record.time)
    if (record.append !== undefined) {
      yield* memory.log.append(record.append.stream, record.append.events, {
        expectedVersion: "any",
        writer: record.append.writer,
        correlationId: record.append.correlationId,
        idempotencyKey: record.append.idempotencyKey ?? `spill:${record.id}`,
        ...(Number.isNaN(occurredAt) ? {} : { occurredAt })
      })
    }
    const reason = describeRecord(record, recordedAt)
    yield* memory.log.append(
      streams.hookFailures,
      [
        {
          _tag: "HookFailed",
          hook: record.hook,
          reason,
          ...(record.sessionId === undefined ? {} : { sessionId: record.sessionId })
        }
      ],
      {
        expectedVersion: "any",
        writer: `hook:${record.hook}`,
        idempotencyKey: `spill:${record.id}:failed`,
        // The invocation's: `status` counts it once, as failed, though its events were recorded late.
        ...(record.append === undefined ? {} : { correlationId: record.append.correlationId }),
        ...(Number.isNaN(occurredAt) ? {} : { occurredAt })
      }
    )
    logFailure(failureLogPath(memory.path), {
      time: record.time,
      hook: record.hook,
      reason,
      ...(record.sessionId === undefined ? {} : { sessionId: record.sessionId })
    })
  })

/**
 * Folds the spill file into the log, when it holds anything (one byte read otherwise); creates it, with
 * its space, when it is missing. Never fails: what it cannot fold stays for the next process, and the
 * fold stops at the first append that fails (waiting at most `waitMs` for a lock), since the next would too.
 */
export const foldSpill = (memory: MemoryStore, waitMs = 1000): Effect.Effect<{ readonly folded: number }> =>
  Effect.suspend(() => {
    const path = spillPath(memory.path)
    let fd: number
    try {
      fd = existsSync(path) ? openSideFile(path, false) : create(path)
    } catch {
      return Effect.succeed({ folded: 0 })
    }
    return Effect.gen(function*() {
      if (readSideFileAt(fd, 1, DIRTY_AT)[0] === 0) return { folded: 0 }
      // Cleared first: a hook that spills while this runs sets it again.
      writeSideFileAt(fd, Buffer.from([0]), DIRTY_AT)
      let folded = 0
      let left = false
      let stopped = false
      const previousWait = memory.db.pragma("busy_timeout", { simple: true }) as number
      memory.db.pragma(`busy_timeout = ${Math.min(previousWait, waitMs)}`)
      for (let slot = 0; slot < SPILL_SLOTS && !stopped; slot++) {
        const content = readSlot(fd, slot)
        if (content.kind === "free") continue
        if (content.kind === "unreadable") {
          left = true
          continue
        }
        const done = yield* Effect.result(foldRecord(memory, content.record))
        if (done._tag === "Failure") {
          left = stopped = true
          continue
        }
        // Zeroed whole: the record held the events' text.
        writeSideFileAt(fd, Buffer.alloc(SLOT_BYTES), slotOffset(slot))
        folded++
      }
      const ticks = readSideFileAt(fd, OVERFLOW_BYTES, OVERFLOW_AT)
      const set = [...ticks.keys()].filter((i) => ticks[i] !== 0)
      if (set.length > 0 && !stopped) {
        // One HookFailed per hook call counted, so `status` counts each.
        const time = new Date().toISOString()
        const reason =
          `could not record, and the spill file was full: what the hook call held is lost (counted at ${time})`
        const done = yield* Effect.result(
          memory.log.append(
            streams.hookFailures,
            set.map(() => ({ _tag: "HookFailed" as const, hook: "unknown", reason })),
            { expectedVersion: "any", writer: "spill" }
          )
        )
        if (done._tag === "Success") {
          for (const i of set) writeSideFileAt(fd, Buffer.from([0]), OVERFLOW_AT + i)
          logFailure(failureLogPath(memory.path), {
            time,
            hook: "unknown",
            reason: `${set.length} hook call(s) ${reason}`
          })
          folded += set.length
        } else left = true
      } else if (set.length > 0) left = true
      memory.db.pragma(`busy_timeout = ${previousWait}`)
      if (left) markDirty(fd)
      return { folded }
    }).pipe(
      Effect.catchCause(() => Effect.succeed({ folded: 0 })),
      Effect.ensuring(Effect.sync(() => closeSync(fd)))
    )
  })
