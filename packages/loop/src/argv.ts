/**
 * Splits a command line the user wrote (`claude -p --model "x y"`) into argv, so it runs without a
 * shell: quotes group, a backslash escapes, nothing is expanded or substituted. Memory content is
 * never spliced into it; the prompt is passed as one separate argument.
 */
export const splitCommand = (line: string): ReadonlyArray<string> => {
  const args: Array<string> = []
  let current = ""
  let started = false
  let quote: "\"" | "'" | undefined
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else if (ch === "\\" && quote === "\"" && i + 1 < line.length) current += line[++i]
      else current += ch
    } else if (ch === "\"" || ch === "'") {
      quote = ch
      started = true
    } else if (ch === "\\" && i + 1 < line.length) {
      current += line[++i]
      started = true
    } else if (/\s/.test(ch)) {
      if (started) args.push(current)
      current = ""
      started = false
    } else {
      current += ch
      started = true
    }
  }
  if (quote !== undefined) throw new Error(`unclosed ${quote} in ${JSON.stringify(line)}`)
  if (started) args.push(current)
  return args
}
