/**
 * Compaction: packs the payloads and metadata of settled streams into deflated blocks (see
 * payload-blocks.ts). It runs off the hook path (after a session ends, in the background, or
 * `ralph-mem compact`), one short transaction per block's worth of streams, so a hook waits for at most
 * that much packing.
 *
 * A stream is settled once nothing was appended to it for `idleMs`. Settled streams are taken oldest
 * first and packed together, their unpacked events in position order, into blocks of at most
 * `maxBlockBytes` of JSON: a block of several sessions deflates better than one of a single session and
 * fills its pages (a block smaller than a page leaves the rest of it empty). A block that would not be
 * smaller than the events it holds is not written: those events stay as they are. The streams appended to
 * last, `keepNewestStreams` of them, stay unpacked however long idle: they are what hooks read most (the last
 * sessions' summaries, errors and fixes; the newest hits, which recency ranks first), and a hook that reads
 * only unpacked payloads never loads zlib nor inflates a block. Finding the streams
 * to pack scans the log (about a second a million events, in the background): an index of unpacked
 * events cost batched appends 40% of their throughput. Blocks packed by schema 2 hold payloads only:
 * they are unpacked first, so their events are packed again with their metadata.
 */
import type { SqliteDatabase } from "./database.ts"
import { encodeBlock, isDamagedBlock, unpackBlock } from "./payload-blocks.ts"

export interface CompactOptions {
  /** Streams with an append in the last `idleMs` are left for later. */
  readonly idleMs: number
  /** This many streams, those appended to last, are left unpacked however long idle (default none). */
  readonly keepNewestStreams?: number
  readonly now?: number
  readonly maxBlockBytes?: number
  /** Called after each transaction: settled streams packed so far, of all. */
  readonly onProgress?: (doneStreams: number, totalStreams: number) => void
}

export interface CompactReport {
  readonly streams: number
  readonly events: number
  readonly blocks: number
  /** Payload and metadata JSON packed, in bytes. */
  readonly payloadBytes: number
  /** What the blocks take instead, in bytes. */
  readonly blockBytes: number
}

/**
 * A reader of one packed event inflates and parses its whole block, and a search's hits are spread over as many
 * blocks as sessions: 32 KiB of JSON halves that work against 64 KiB, for a database of the same size (the
 * dictionary deflate finds repeats in is 32 KiB anyway). Below it, blocks grow the database.
 */
export const DEFAULT_MAX_BLOCK_BYTES = 32 * 1024

/**
 * How many of the newest streams maintenance leaves unpacked (`keepNewestStreams`): a few days of sessions. Their
 * payloads take about nine times what they would packed, a share of a memory that shrinks as it grows.
 */
export const MAINTENANCE_UNPACKED_STREAMS = 20

/** Row overhead a block adds next to its data; a block must save more than this to be written. */
const BLOCK_ROW_BYTES = 16

interface Unpacked {
  readonly position: number
  readonly stream: number
  readonly payload: string
  readonly metadata: string
}

interface Settled {
  readonly stream: number
  readonly bytes: number
}

/** Consecutive runs of items whose sizes add up to at most `maxBytes` (one item may exceed it alone). */
const chunk = <T>(items: ReadonlyArray<T>, maxBytes: number, sizeOf: (item: T) => number): Array<Array<T>> => {
  const chunks: Array<Array<T>> = []
  let current: Array<T> = []
  let bytes = 0
  for (const item of items) {
    const size = sizeOf(item)
    if (current.length > 0 && bytes + size > maxBytes) {
      chunks.push(current)
      current = []
      bytes = 0
    }
    current.push(item)
    bytes += size
  }
  if (current.length > 0) chunks.push(current)
  return chunks
}

const jsonBytes = (event: Unpacked): number => Buffer.byteLength(event.payload) + Buffer.byteLength(event.metadata)

/** The `count` streams appended to last: read from the end of the log, as far back as their last events. */
const newestStreams = (db: SqliteDatabase, count: number): Set<number> => {
  const newest = new Set<number>()
  if (count <= 0) return newest
  const streams = db.prepare<[], number>("SELECT stream FROM event_rows ORDER BY position DESC").pluck()
  for (const stream of streams.iterate()) {
    newest.add(stream)
    if (newest.size === count) break
  }
  return newest
}

export const compactLog = (db: SqliteDatabase, options: CompactOptions): CompactReport => {
  const now = options.now ?? Date.now()
  const maxBlockBytes = options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES
  const payloadOnlyBlocks = db
    .prepare<[], number>("SELECT DISTINCT block_id FROM event_rows WHERE block_id IS NOT NULL AND metadata IS NOT NULL")
    .pluck()
    .all()
  const unpack = db.transaction((block: number) => unpackBlock(db, block))
  for (const block of payloadOnlyBlocks) {
    try {
      unpack.immediate(block)
    } catch (error) {
      // A damaged block stays as it is, for verify to report, and does not stop the rest; anything else
      // (a locked database) stops compaction.
      if (!isDamagedBlock(error)) throw error
    }
  }
  const kept = newestStreams(db, options.keepNewestStreams ?? 0)
  const settled = db
    .prepare<[number], Settled>(
      `SELECT stream, sum(length(payload) + length(metadata)) AS bytes FROM event_rows
       WHERE block_id IS NULL AND redacted_by IS NULL
       GROUP BY stream HAVING max(occurred_at) <= ? ORDER BY min(position)`
    )
    .all(now - options.idleMs)
    .filter(({ stream }) => !kept.has(stream))
  const lastAppend = db.prepare<[number], number>(
    "SELECT occurred_at FROM event_rows WHERE stream = ? ORDER BY stream_version DESC LIMIT 1"
  ).pluck()
  const unpacked = db.prepare<[number], Unpacked>(
    `SELECT position, stream, payload, metadata FROM event_rows
     WHERE stream = ? AND block_id IS NULL AND redacted_by IS NULL`
  )
  const insertBlock = db.prepare("INSERT INTO payload_blocks (first_position, last_position, data) VALUES (?, ?, ?)")
  const pack = db.prepare(
    "UPDATE event_rows SET payload = NULL, metadata = NULL, block_id = ?, block_slot = ? WHERE position = ?"
  )

  const totals = { streams: 0, events: 0, blocks: 0, payloadBytes: 0, blockBytes: 0 }
  const compactStreams = db.transaction((streams: ReadonlyArray<Settled>) => {
    // Read again under the write lock: an append or a forget may have come in between.
    const events = streams
      .filter(({ stream }) => now - (lastAppend.get(stream) ?? now) >= options.idleMs)
      .flatMap(({ stream }) => unpacked.all(stream))
      .sort((a, b) => a.position - b.position)
    const packedStreams = new Set<number>()
    for (const block of chunk(events, maxBlockBytes, jsonBytes)) {
      const data = encodeBlock(block)
      const bytes = block.reduce((sum, event) => sum + jsonBytes(event), 0)
      if (data.length + BLOCK_ROW_BYTES >= bytes) continue
      const id = Number(insertBlock.run(block[0]!.position, block.at(-1)!.position, data).lastInsertRowid)
      block.forEach((event, slot) => {
        pack.run(id, slot, event.position)
        packedStreams.add(event.stream)
      })
      totals.events += block.length
      totals.blocks++
      totals.payloadBytes += bytes
      totals.blockBytes += data.length
    }
    totals.streams += packedStreams.size
  })
  // Streams go in groups about a block's worth: one transaction each.
  let done = 0
  for (const streams of chunk(settled, maxBlockBytes, (stream) => stream.bytes)) {
    compactStreams.immediate(streams)
    done += streams.length
    options.onProgress?.(done, settled.length)
  }
  return totals
}
