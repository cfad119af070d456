/** Small text forms shared by what prints memory and loops: one spelling of a time, one of a listing line. */

/** `2026-11-20 09:00:45Z`: ISO without the noise, always UTC. */
export const formatTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace(/\.\d{3}Z$/, "Z")

/** One line of at most `max` characters (whitespace runs collapsed, an ellipsis where it was cut). */
export const oneLine = (text: string, max = 120) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
