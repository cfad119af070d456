/**
 * Payload blocks: how the log keeps its older events small. Compaction (compaction.ts) packs the
 * payloads and metadata of settled streams' events into deflated blocks; each event row then keeps only
 * the block and its slot in it. The `events` view gives every reader the payload and metadata JSON as
 * they were written, through the SQL functions registered here, so nothing above the storage knows
 * whether an event is packed.
 *
 * A block is `deflateRaw(JSON.stringify(slots))`, a slot being `[payload, metadata]` (blocks packed by
 * schema 2 hold the payload string alone: their events keep their metadata in the row). Events repeat
 * their files, commands, errors and metadata, so a block of a few sessions costs about a ninth of the
 * JSON it holds, where one payload deflated alone costs three quarters. Blocks are never changed: a
 * forget unpacks the block of an event it redacts and deletes the block.
 *
 * Every connection must have the functions (`newSqliteDatabase` registers them): without them, SQLite
 * refuses any query of the `events` view ("no such function").
 */
import type Database from "better-sqlite3"

/** zlib, loaded on first use: a hook that never meets a packed payload does not pay for loading it. */
let zlib: typeof import("node:zlib") | undefined
const deflater = () => (zlib ??= process.getBuiltinModule("node:zlib"))

/** What a block keeps of an event; `metadata` is null in a block packed by schema 2. */
export interface PackedEvent {
  readonly payload: string
  readonly metadata: string | null
}

export const encodeBlock = (events: ReadonlyArray<{ readonly payload: string; readonly metadata: string }>): Buffer =>
  deflater().deflateRawSync(JSON.stringify(events.map((event) => [event.payload, event.metadata])))

const slotOf = (slot: unknown): PackedEvent => {
  if (typeof slot === "string") return { payload: slot, metadata: null }
  if (Array.isArray(slot) && slot.length === 2 && typeof slot[0] === "string" && typeof slot[1] === "string") {
    return { payload: slot[0], metadata: slot[1] }
  }
  throw new Error("not a payload block")
}

export const decodeBlock = (data: Uint8Array): ReadonlyArray<PackedEvent> => {
  const slots: unknown = JSON.parse(deflater().inflateRawSync(data).toString("utf8"))
  if (!Array.isArray(slots)) throw new Error("not a payload block")
  return slots.map(slotOf)
}

/** A block that cannot be read: missing, damaged, or without the slot an event names. */
export class DamagedBlock extends Error {}

export const isDamagedBlock = (error: unknown): boolean => error instanceof DamagedBlock

/**
 * Decoded blocks by id. Safe to keep: block ids are never reused (AUTOINCREMENT) and a block never
 * changes. A replay reads a block's events one after another, so a few blocks suffice (sessions that
 * ran at the same time interleave); the oldest entry goes first.
 */
class BlockCache {
  readonly #blocks = new Map<number, ReadonlyArray<PackedEvent>>()

  /** Slot `slot` of block `id`, decoding `bytes()` when the block is not in memory. */
  event(id: number, slot: number, bytes: () => unknown): PackedEvent {
    let events = this.#blocks.get(id)
    if (events === undefined) {
      const data = bytes()
      if (!(data instanceof Uint8Array)) throw new DamagedBlock(`payload block ${id} is missing`)
      try {
        events = decodeBlock(data)
      } catch (error) {
        throw new DamagedBlock(
          `payload block ${id} is damaged (${error instanceof Error ? error.message : String(error)})`
        )
      }
      if (this.#blocks.size >= CACHED_BLOCKS) this.#blocks.delete(this.#blocks.keys().next().value!)
      this.#blocks.set(id, events)
    }
    const event = events[slot]
    if (event === undefined) throw new DamagedBlock(`payload block ${id} has no slot ${slot}`)
    return event
  }

  has(id: number): boolean {
    return this.#blocks.has(id)
  }

  delete(id: number): void {
    this.#blocks.delete(id)
  }
}

const CACHED_BLOCKS = 64

const caches = new WeakMap<Database.Database, BlockCache>()

/** Registers the functions the `events` view and the log's triggers call. */
export const registerPayloadFunctions = (db: Database.Database): void => {
  const cache = new BlockCache()
  caches.set(db, cache)
  const cached = (blockId: unknown, slot: unknown) =>
    cache.has(Number(blockId)) ? cache.event(Number(blockId), Number(slot), () => undefined) : undefined
  const packed = (blockId: unknown, slot: unknown, data: unknown) =>
    cache.event(Number(blockId), Number(slot), () => data)
  // Each part when its block is in memory, else NULL: the view then skips reading the block's bytes.
  db.function("ralph_cached_payload", (blockId: unknown, slot: unknown) => cached(blockId, slot)?.payload ?? null)
  db.function("ralph_cached_metadata", (blockId: unknown, slot: unknown) => cached(blockId, slot)?.metadata ?? null)
  db.function(
    "ralph_block_payload",
    (blockId: unknown, slot: unknown, data: unknown) => packed(blockId, slot, data).payload
  )
  db.function(
    "ralph_block_metadata",
    (blockId: unknown, slot: unknown, data: unknown) => packed(blockId, slot, data).metadata
  )
}

/**
 * Packed payloads read straight from their blocks, for a reader of `event_rows` itself: a replay, which
 * reads every event and does better without a function call per row.
 */
export const blockReader = (db: Database.Database): (blockId: number, slot: number) => PackedEvent => {
  const cache = new BlockCache()
  const data = db.prepare<[number], Buffer>("SELECT data FROM payload_blocks WHERE id = ?").pluck()
  return (blockId, slot) => cache.event(blockId, slot, () => data.get(blockId))
}

/**
 * Puts a block's payloads and metadata back into its events and deletes the block (a forget does this
 * before it redacts one of them). The log's trigger checks each event against the block.
 */
export const unpackBlock = (db: Database.Database, blockId: number): void => {
  db.prepare(
    `UPDATE event_rows
     SET payload = ralph_block_payload(block_id, block_slot, (SELECT data FROM payload_blocks WHERE id = block_id)),
       metadata = coalesce(
         metadata, ralph_block_metadata(block_id, block_slot, (SELECT data FROM payload_blocks WHERE id = block_id))
       ),
       block_id = NULL, block_slot = NULL
     WHERE position BETWEEN (SELECT first_position FROM payload_blocks WHERE id = @block)
                        AND (SELECT last_position FROM payload_blocks WHERE id = @block)
       AND block_id = @block`
  ).run({ block: blockId })
  db.prepare("DELETE FROM payload_blocks WHERE id = ?").run(blockId)
  // A forgotten payload does not stay in memory either.
  caches.get(db)?.delete(blockId)
}
