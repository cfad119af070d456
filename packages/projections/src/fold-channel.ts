/**
 * A one-way, bounded, blocking channel between a worker thread and the thread that owns the database.
 *
 * The reader runs inside a synchronous better-sqlite3 transaction, so it cannot await a message event:
 * it takes messages with `receiveMessageOnPort` and, when none is there, sleeps on a shared counter of
 * posted messages (`Atomics.wait`). The writer stops while `MAX_IN_FLIGHT` messages are unread, so a
 * fast writer never piles the log up in memory.
 */
import type { MessagePort } from "node:worker_threads"

/**
 * Loaded on first use: every hook loads this module (with the projection runner), and loading
 * node:worker_threads would cost each of them about 2 ms.
 */
export const workerThreads = () => process.getBuiltinModule("node:worker_threads")

const POSTED = 0
const TAKEN = 1

/** Messages the writer may be ahead by. */
export const MAX_IN_FLIGHT = 8

/** The counters both sides share: messages posted, messages taken. */
export const newChannelSignal = (): Int32Array =>
  new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT))

/** Writer side: posts `message`, first waiting while the reader is `MAX_IN_FLIGHT` behind. */
export const send = (port: MessagePort, signal: Int32Array, message: unknown): void => {
  for (;;) {
    const taken = Atomics.load(signal, TAKEN)
    if (Atomics.load(signal, POSTED) - taken < MAX_IN_FLIGHT) break
    Atomics.wait(signal, TAKEN, taken)
  }
  // Posted before it is counted: a reader that sees the count always finds the message.
  port.postMessage(message)
  Atomics.add(signal, POSTED, 1)
  Atomics.notify(signal, POSTED)
}

/** Reader side: the next message, waiting for it; `undefined` when none came for `stallMs`. */
export const receive = (port: MessagePort, signal: Int32Array, stallMs: number): unknown => {
  const deadline = Date.now() + stallMs
  for (;;) {
    const posted = Atomics.load(signal, POSTED)
    const received = workerThreads().receiveMessageOnPort(port)
    if (received !== undefined) {
      Atomics.add(signal, TAKEN, 1)
      Atomics.notify(signal, TAKEN)
      return received.message
    }
    const left = deadline - Date.now()
    if (left <= 0) return undefined
    // Returns at once if a message was posted since `posted` was read.
    Atomics.wait(signal, POSTED, posted, left)
  }
}
