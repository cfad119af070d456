/**
 * The server's stdin cut into messages (one JSON-RPC message a line) before the MCP SDK's stdio transport
 * reads them. The transport gathers its input in one buffer and, once that passes its limit, closes itself:
 * the server would end over a single message, and the session lose its memory tools. Here a line longer than
 * the bound is dropped as it streams in, keeping only its first and last bytes (where clients put the
 * request's id), and said back to the caller; every other line reaches the transport whole, on its own.
 */
import { Transform } from "node:stream"

/** No call of a memory tool comes near this: their inputs are bounded to tens of kilobytes. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024

/** What is kept of each end of a dropped line: enough for `{"jsonrpc":"2.0","id":<id>,` or `,"id":<id>}`. */
const EDGE_BYTES = 256

export interface OversizedMessage {
  /** Its length, without the newline that ends it. */
  readonly bytes: number
  /** The request's id, when one end of the line names it; a line without a readable id is answered without one. */
  readonly id: string | number | undefined
}

const NEWLINE = 0x0a
const LINE_END = Buffer.from("\n")
const ID = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,100}")`
/** The id as the first member (or the second, after `jsonrpc`) of the message: most clients write it so. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*[,}]`)
/** The id as the last member of the message, as the MCP SDK's client writes it. */
const ID_AT_END = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`)

const idOf = (head: Buffer, tail: Buffer): string | number | undefined => {
  const found = ID_AT_START.exec(head.toString("utf8")) ?? ID_AT_END.exec(tail.toString("utf8"))
  return found === null ? undefined : (JSON.parse(found[1]!) as string | number)
}

/**
 * Passes on the lines written to it, each whole and at most `maxBytes` long (newline included), one chunk
 * each, so the transport reading them never holds more than one message. A longer line is never held whole:
 * its bytes are counted as they pass, and `onOversized` is told once it ends.
 */
export const boundedLines = (
  maxBytes: number,
  onOversized: (message: OversizedMessage) => void
): Transform => {
  let parts: Array<Buffer> = []
  let size = 0
  let dropping: { bytes: number; readonly head: Buffer; tail: Buffer } | undefined
  const keepTail = (tail: Buffer, piece: Buffer) =>
    Buffer.concat([tail, piece.subarray(-EDGE_BYTES)]).subarray(-EDGE_BYTES)
  const take = (piece: Buffer) => {
    // The newline the line is passed on with counts too.
    if (dropping === undefined && size + piece.length < maxBytes) {
      parts.push(piece)
      size += piece.length
      return
    }
    if (dropping === undefined) {
      dropping = {
        bytes: size,
        head: Buffer.concat([...parts, piece], Math.min(EDGE_BYTES, size + piece.length)),
        tail: Buffer.alloc(0)
      }
      for (const part of parts) dropping.tail = keepTail(dropping.tail, part)
      parts = []
      size = 0
    }
    dropping.bytes += piece.length
    dropping.tail = keepTail(dropping.tail, piece)
  }
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        take(chunk.subarray(start, end))
        if (dropping === undefined) this.push(Buffer.concat([...parts, LINE_END]))
        else onOversized({ bytes: dropping.bytes, id: idOf(dropping.head, dropping.tail) })
        parts = []
        size = 0
        dropping = undefined
        start = end + 1
      }
      if (start < chunk.length) take(chunk.subarray(start))
      done()
    }
  })
}
