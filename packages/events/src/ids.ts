/**
 * Event ids: ULIDs (26 Crockford base-32 characters, 48-bit millisecond time then 80 random bits),
 * monotonic within a millisecond so ids sort in the order they were made.
 *
 * Written here rather than taken from the `ulid` package, whose Node build loads `node:crypto` when
 * imported: 2-3 ms added to every hook process. Ids need to be unique and ordered, not secret, so
 * Math.random's 52 bits per draw are enough entropy.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

const encodeTime = (ms: number): string => {
  let out = ""
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) out = ALPHABET[t % 32]! + out
  return out
}

/** Returns a generator of monotonic ULIDs: within one millisecond, each id increments the last. */
export const monotonicUlid = () => {
  let lastTime = -1
  const random: Array<number> = new Array(16).fill(0)
  return (now: number = Date.now()): string => {
    if (now <= lastTime) {
      // Same (or an earlier, clock-skewed) millisecond: increment the random part, keeping order.
      let i = 15
      while (i >= 0 && random[i] === 31) random[i--] = 0
      if (i < 0) throw new Error("ULID random part overflowed within one millisecond")
      random[i]!++
    } else {
      lastTime = now
      for (let i = 0; i < 16; i++) random[i] = Math.floor(Math.random() * 32)
    }
    return encodeTime(lastTime) + random.map((d) => ALPHABET[d]).join("")
  }
}
