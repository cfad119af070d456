/**
 * Keeps only the last `capacity` bytes of a stream: a test suite can print gigabytes, and the harness needs the
 * end (the summary and the failures), never the whole thing in memory.
 */
export class TailBuffer {
  private chunks: Array<Buffer> = []
  private held = 0
  private seen = 0
  readonly capacity: number

  constructor(capacity: number) {
    this.capacity = capacity
  }

  append(chunk: Buffer): void {
    this.seen += chunk.length
    // A chunk bigger than the whole window only contributes its end, copied so the rest can be collected.
    const kept = chunk.length > this.capacity ? Buffer.from(chunk.subarray(chunk.length - this.capacity)) : chunk
    this.chunks.push(kept)
    this.held += kept.length
    this.dropOverflow()
  }

  /** Bytes currently held: never more than `capacity`. */
  get byteLength(): number {
    return this.held
  }

  /** Bytes appended over the buffer's life. */
  get totalBytes(): number {
    return this.seen
  }

  /** The held bytes as UTF-8; a character cut at the window's start decodes as U+FFFD. */
  toString(): string {
    return Buffer.concat(this.chunks, this.held).toString("utf8")
  }

  private dropOverflow(): void {
    while (this.held > this.capacity) {
      const first = this.chunks[0]
      if (first === undefined) return
      const excess = this.held - this.capacity
      if (first.length <= excess) {
        this.chunks.shift()
        this.held -= first.length
      } else {
        this.chunks[0] = first.subarray(excess)
        this.held -= excess
      }
    }
  }
}
