/**
 * Compaction: packs the payloads of settled streams into deflated blocks (see payload-blocks.ts).
 * It runs off the hook path (after a session ends, in the background, or `ralph-mem compact`), one
 * short transaction per stream, so a hook waits for at most one stream's packing.
 *
 * A stream is settled once nothing was appended to it for `idleMs`. Its unpacked events go into blocks
 * of at most `maxBlockBytes` of payload JSON, in position order. A block that would not be smaller than
 * the payloads it holds is not written: those events stay as they are. Finding the streams to pack
 * scans the log (about a second a million events, in the background): an index of unpacked events cost
 * batched appends 40% of their throughput.
 */
import type { SqliteDatabase } from "./database.ts"
import { encodeBlock } from "./payload-blocks.ts"

export interface CompactOptions {
  /** Streams with an append in the last `idleMs` are left for later. */
  readonly idleMs: number
  readonly now?: number
  readonly maxBlockBytes?: number
}

export interface CompactReport {
  readonly streams: number
  readonly events: number
  readonly blocks: number
  /** Payload JSON packed, in bytes. */
  readonly payloadBytes: number
  /** What the blocks take instead, in bytes. */
  readonly blockBytes: number
}

export const DEFAULT_MAX_BLOCK_BYTES = 64 * 1024

/** Row overhead a block adds next to its data; a block must save more than this to be written. */
const BLOCK_ROW_BYTES = 16

interface Unpacked {
  readonly position: number
  readonly payload: string
}

/** Consecutive runs of events whose payloads add up to at most `maxBytes` (one event may exceed it alone). */
const chunk = (events: ReadonlyArray<Unpacked>, maxBytes: number): Array<Array<Unpacked>> => {
  const chunks: Array<Array<Unpacked>> = []
  let current: Array<Unpacked> = []
  let bytes = 0
  for (const event of events) {
    if (current.length > 0 && bytes + event.payload.length > maxBytes) {
      chunks.push(current)
      current = []
      bytes = 0
    }
    current.push(event)
    bytes += event.payload.length
  }
  if (current.length > 0) chunks.push(current)
  return chunks
}

export const compactLog = (db: SqliteDatabase, options: CompactOptions): CompactReport => {
  const now = options.now ?? Date.now()
  const maxBlockBytes = options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES
  const streams = db
    .prepare("SELECT DISTINCT stream_id FROM event_rows WHERE block_id IS NULL AND redacted_by IS NULL")
    .pluck()
    .all() as Array<string>
  const lastAppend = db.prepare<[string], number>(
    "SELECT occurred_at FROM event_rows WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1"
  ).pluck()
  const unpacked = db.prepare<[string], Unpacked>(
    "SELECT position, payload FROM event_rows WHERE stream_id = ? AND block_id IS NULL AND redacted_by IS NULL ORDER BY position"
  )
  const insertBlock = db.prepare("INSERT INTO payload_blocks (first_position, last_position, data) VALUES (?, ?, ?)")
  const pack = db.prepare("UPDATE event_rows SET payload = NULL, block_id = ?, block_slot = ? WHERE position = ?")

  const totals = { streams: 0, events: 0, blocks: 0, payloadBytes: 0, blockBytes: 0 }
  const compactStream = db.transaction((stream: string) => {
    // Read again under the write lock: an append or a forget may have come in between.
    if (now - (lastAppend.get(stream) ?? now) < options.idleMs) return
    let packedAny = false
    for (const events of chunk(unpacked.all(stream), maxBlockBytes)) {
      const data = encodeBlock(events.map((e) => e.payload))
      const payloadBytes = events.reduce((sum, e) => sum + Buffer.byteLength(e.payload), 0)
      if (data.length + BLOCK_ROW_BYTES >= payloadBytes) continue
      const block = Number(insertBlock.run(events[0]!.position, events.at(-1)!.position, data).lastInsertRowid)
      events.forEach((event, slot) => pack.run(block, slot, event.position))
      totals.events += events.length
      totals.blocks++
      totals.payloadBytes += payloadBytes
      totals.blockBytes += data.length
      packedAny = true
    }
    if (packedAny) totals.streams++
  })
  for (const stream of streams) compactStream.immediate(stream)
  return totals
}
