/**
 * A 53-bit string digest (two FNV-1a passes): exact in a JavaScript number and an SQLite integer, and
 * collisions among a project's commands or a user's memory folders are out of reach. Not node:crypto:
 * loading it costs every hook that would.
 */
export const digest53 = (text: string): number => {
  let low = 0x811c9dc5
  let high = 0x050c5d1f
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    low = Math.imul(low ^ c, 0x01000193)
    high = Math.imul(high ^ c, 0x01000193)
  }
  return (high >>> 11) * 0x1_0000_0000 + (low >>> 0)
}
