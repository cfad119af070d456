/**
 * Payload blocks: how the log keeps its older events small. Compaction (compaction.ts) packs the
 * payloads and metadata of settled streams' events into deflated blocks; each event row then keeps only
 * the block and its slot in it. The `events` view gives every reader the payload and metadata JSON as
 * they were written, through the SQL functions registered here, so nothing above the storage knows
 * whether an event is packed.
 *
 * A block is deflated (raw deflate) events in slots: each event's payload and metadata, found by their lengths
 * (`encodeBlock`). Blocks written before that are `JSON.stringify(slots)`, a slot being `[payload, metadata]` (or,
 * packed by schema 2, the payload string alone: their events keep their metadata in the row); they read as ever.
 * Events repeat their files, commands, errors and metadata, so a block of a few sessions costs about a ninth of
 * the JSON it holds, where one payload deflated alone costs three quarters. Blocks are never changed: a
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

/**
 * A block as compaction writes it since schema 4 (slotted): a marker byte, the number of events, each event's
 * payload and metadata length in UTF-8 bytes, then the payloads and metadata one after the other. Reading one
 * event decodes only its own text: a JSON block (as schema 2 and 3 wrote them) is parsed whole, every string in
 * it, to read one.
 */
const SLOTTED = 1
/** An older block is a JSON array: its first byte is `[`. */
const JSON_ARRAY = 0x5b
const HEADER_BYTES = 5
const LENGTHS_BYTES = 8

export const encodeBlock = (events: ReadonlyArray<{ readonly payload: string; readonly metadata: string }>): Buffer => {
  const texts = events.flatMap((event) => [Buffer.from(event.payload, "utf8"), Buffer.from(event.metadata, "utf8")])
  const header = Buffer.alloc(HEADER_BYTES + LENGTHS_BYTES * events.length)
  header.writeUInt8(SLOTTED, 0)
  header.writeUInt32LE(events.length, 1)
  texts.forEach((text, i) => header.writeUInt32LE(text.length, HEADER_BYTES + 4 * i))
  return deflater().deflateRawSync(Buffer.concat([header, ...texts]))
}

/** A decoded block: its events, each read when asked for. */
interface Block {
  readonly events: number
  /** Slot `slot`'s event; undefined when the block has no such slot. */
  readonly event: (slot: number) => PackedEvent | undefined
}

const slotOf = (slot: unknown): PackedEvent => {
  if (typeof slot === "string") return { payload: slot, metadata: null }
  if (Array.isArray(slot) && slot.length === 2 && typeof slot[0] === "string" && typeof slot[1] === "string") {
    return { payload: slot[0], metadata: slot[1] }
  }
  throw new Error("not a payload block")
}

const jsonBlock = (text: string): Block => {
  const slots: unknown = JSON.parse(text)
  if (!Array.isArray(slots)) throw new Error("not a payload block")
  const events = slots.map(slotOf)
  return { events: events.length, event: (slot) => events[slot] }
}

/** The slotted block in `bytes`, its lengths checked against its size: a damaged one is refused here. */
const slottedBlock = (bytes: Buffer): Block => {
  const events = bytes.length >= HEADER_BYTES ? bytes.readUInt32LE(1) : -1
  const textsStart = HEADER_BYTES + LENGTHS_BYTES * events
  if (events < 0 || textsStart > bytes.length) throw new Error("not a payload block")
  const starts = new Array<number>(2 * events + 1)
  starts[0] = textsStart
  for (let i = 0; i < 2 * events; i++) starts[i + 1] = starts[i]! + bytes.readUInt32LE(HEADER_BYTES + 4 * i)
  if (starts[2 * events] !== bytes.length) throw new Error("not a payload block")
  const text = (i: number) => bytes.toString("utf8", starts[i], starts[i + 1])
  return {
    events,
    event: (slot) =>
      Number.isInteger(slot) && slot >= 0 && slot < events
        ? { payload: text(2 * slot), metadata: text(2 * slot + 1) }
        : undefined
  }
}

/**
 * Node's one-shot inflate runs its JavaScript once for each output chunk (16 KiB unless told), and a process that
 * reads few blocks (a hook, a search's first run) runs that code unoptimised: a block comes out in one chunk.
 */
const INFLATE_CHUNK_BYTES = 64 * 1024

const openBlock = (data: Uint8Array): Block => {
  const bytes = deflater().inflateRawSync(data, { chunkSize: INFLATE_CHUNK_BYTES })
  if (bytes[0] === SLOTTED) return slottedBlock(bytes)
  if (bytes[0] === JSON_ARRAY) return jsonBlock(bytes.toString("utf8"))
  throw new Error("not a payload block")
}

/** Every event of a block, in slot order. */
export const decodeBlock = (data: Uint8Array): ReadonlyArray<PackedEvent> => {
  const block = openBlock(data)
  return Array.from({ length: block.events }, (_, slot) => block.event(slot)!)
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
  readonly #blocks = new Map<number, Block>()

  /** Slot `slot` of block `id`, decoding `bytes()` when the block is not in memory. */
  event(id: number, slot: number, bytes: () => unknown): PackedEvent {
    let block = this.#blocks.get(id)
    if (block === undefined) {
      const data = bytes()
      if (!(data instanceof Uint8Array)) throw new DamagedBlock(`payload block ${id} is missing`)
      try {
        block = openBlock(data)
      } catch (error) {
        throw new DamagedBlock(
          `payload block ${id} is damaged (${error instanceof Error ? error.message : String(error)})`
        )
      }
      if (this.#blocks.size >= CACHED_BLOCKS) this.#blocks.delete(this.#blocks.keys().next().value!)
      this.#blocks.set(id, block)
    }
    const event = block.event(slot)
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
