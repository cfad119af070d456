/**
 * Every answer of a memory tool fits a token budget (`memory.tool_result_tokens`) and says how to get
 * more. An answer is a header, items (shown in the order given, kept in order of importance), and a
 * closing line; items that do not fit are left out and counted, and the closing line names the call that
 * gets them. Pure.
 */
import { estimateTokens } from "@ralph-mem/projections"

export interface AnswerItem {
  readonly text: string
  /** The memories this item shows (what the call's record says it returned). */
  readonly ids: ReadonlyArray<string>
  /** Which items are kept first when not all fit (lower first; default: the item's place in the list). */
  readonly priority?: number
}

export interface Answer {
  readonly text: string
  /** The ids of the memories shown, in order. */
  readonly returned: ReadonlyArray<string>
  readonly tokens: number
}

export interface Left {
  readonly omitted: number
  readonly clipped: boolean
}

export interface AnswerParts {
  readonly header: string
  readonly items: ReadonlyArray<AnswerItem>
  /**
   * The closing line, given how many items were left out and whether the one shown was cut to fit: the
   * next call to make, or how to get the rest.
   */
  readonly more: (left: Left) => string | undefined
}

/**
 * The longest head and tail of `text` (head first, where the command and the error are) that fit
 * `tokens`, with a marker that says how much was cut.
 */
const clipToTokens = (
  text: string,
  tokens: number,
  marker = (cut: number) => `\n… [${cut} characters cut] …\n`
): string => {
  if (estimateTokens(text) <= tokens) return text
  let keep = Math.max(0, Math.min(text.length - 1, tokens * 4))
  for (;;) {
    const head = Math.floor(keep * 0.6)
    const clipped = `${text.slice(0, head)}${marker(text.length - keep)}${text.slice(text.length - (keep - head))}`
    if (keep === 0 || estimateTokens(clipped) <= tokens) return clipped
    keep = Math.floor(keep * 0.8)
  }
}

const join = (lines: ReadonlyArray<string | undefined>) =>
  lines.filter((l): l is string => l !== undefined && l !== "").join("\n")

export const fitAnswer = ({ header, items, more }: AnswerParts, budget: number): Answer => {
  const byImportance = items
    .map((item, place) => ({ item, place }))
    .sort((a, b) => (a.item.priority ?? a.place) - (b.item.priority ?? b.place))
  const kept = new Map<number, AnswerItem>()
  // What the closing line can cost at most: it is the longest with every item left out.
  const reserve = estimateTokens(more({ omitted: items.length, clipped: true }) ?? "") + 1
  let used = estimateTokens(header) + reserve
  for (const { item, place } of byImportance) {
    const cost = estimateTokens(item.text) + 1
    if (used + cost > budget) break
    kept.set(place, item)
    used += cost
  }
  // Not even the most important item fits: it is shown cut, rather than nothing.
  const first = byImportance[0]
  const clipped = kept.size === 0 && first !== undefined
  if (clipped) {
    kept.set(first.place, { ...first.item, text: clipToTokens(first.item.text, Math.max(1, budget - used - 1)) })
  }
  const shown = [...kept].sort(([a], [b]) => a - b).map(([, item]) => item)
  const text = join([header, ...shown.map((i) => i.text), more({ omitted: items.length - shown.length, clipped })])
  return { text, returned: [...new Set(shown.flatMap((i) => i.ids))], tokens: estimateTokens(text) }
}

/** An answer with nothing to list: a sentence, cut to the budget if it must be. */
export const plainAnswer = (text: string, budget: number): Answer => {
  const fitted = clipToTokens(text, budget)
  return { text: fitted, returned: [], tokens: estimateTokens(fitted) }
}
