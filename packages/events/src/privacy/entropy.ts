/** Bits per character of `text`: how unpredictable its characters are (`aaaa` 0, random base64 about 6). */
export const shannonEntropy = (text: string): number => {
  if (text.length === 0) return 0
  const counts = new Map<string, number>()
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1)
  let bits = 0
  for (const count of counts.values()) {
    const p = count / text.length
    bits -= p * Math.log2(p)
  }
  return bits
}
