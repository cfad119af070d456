/** The four budget shares split one context window, so together they may not exceed it. */
import type { SettingValues } from "./layer.ts"
import { shareKeys } from "./schema.ts"

// Float sums like 0.1 + 0.2 land a hair above their decimal value.
const tolerance = 1e-9

const sharesOf = (values: SettingValues): ReadonlyArray<number> => shareKeys.map((key) => values.get(key) as number)

export const shareSum = (values: SettingValues): number => sharesOf(values).reduce((total, share) => total + share, 0)

/** The problem (without its source) when the shares sum to more than 1, else undefined. */
export const shareSumProblem = (values: SettingValues): string | undefined => {
  const shares = sharesOf(values)
  const sum = shareSum(values)
  if (sum <= 1 + tolerance) return undefined
  return `${shareKeys.join(" + ")} must be at most 1, got ${Number(sum.toFixed(6))} (${shares.join(" + ")})`
}
