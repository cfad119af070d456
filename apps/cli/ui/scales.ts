/**
 * The x span of a chart whose points all share one x (a memory's first day, a loop's first iteration): a day or
 * an iteration either side of it. uPlot pads a single time by a day counted in milliseconds, which on a scale
 * of seconds stretches one day over three years. Undefined when the points span a range of their own.
 */
export const singleXRange = (
  x: ReadonlyArray<number>,
  kind: "time" | "index"
): [number, number] | undefined => {
  if (x.length === 0 || x.some((value) => value !== x[0])) return undefined
  const pad = kind === "time" ? 86_400 : 1
  return [x[0]! - pad, x[0]! + pad]
}
