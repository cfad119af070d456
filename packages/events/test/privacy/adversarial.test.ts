/**
 * Hostile inputs of ~5 MB: every rule must stay linear. The bound leaves room for a linear pass on a
 * loaded 2-core machine (CI runs this beside other suites), where it is ten times slower than on a quiet
 * one, and is still hours short of what a rule that backtracks (quadratic or worse) takes on 5 MB: load
 * cannot fail it and a backtracking rule cannot pass.
 */
import { describe, expect, it } from "vitest"
import { redactText, redactValue } from "../../src/privacy/index.ts"

const LINEAR_MS = 60_000

const FIVE_MB = 5_000_000
const fill = (unit: string): string => unit.repeat(Math.floor(FIVE_MB / unit.length))

const ADVERSARIAL: ReadonlyArray<readonly [string, string]> = [
  ["one letter", fill("a")],
  ["opening tags", fill("<private>")],
  ["closing tags", fill("</private>")],
  ["an opening tag's unterminated attributes", "<private " + fill("x")],
  ["opening tags with an unclosed quote", fill("<private a=\"")],
  ["opening tags quoting a <", fill("<private \"<\"")],
  ["one unclosed quote in an opening tag", "<private '" + fill(">")],
  ["stray closing tags after text", "<private>a</private>" + fill("a </private> ")],
  ["spaces after <", "<" + fill(" ")],
  ["openai prefixes", fill("sk-")],
  ["anthropic prefixes", fill("sk-ant-")],
  ["newlines", fill("\n")],
  ["dashed words", fill("a-")],
  ["dotted identifiers", fill("a.")],
  ["backslashes", fill("\\")],
  ["quotes", fill("\"")],
  ["jwt prefixes", fill("eyJ")],
  ["jwt-like segments", fill("eyJaaaaaaaaaa.")],
  ["PEM headers", fill("-----BEGIN RSA PRIVATE KEY-----")],
  ["base64 lines before a PEM footer", fill("MIIEowIBAAKCAQEA\n") + "-----END PRIVATE KEY"],
  ["base64 lines with a blank between", fill("Zr5TtYw2qPl \n")],
  ["key body prefixes", fill("MIIEowIBA")],
  ["base64 PEM prefixes", fill("LS0tLS1CRUdJTi")],
  ["a base64 PEM prefix and long lines", "LS0tLS1CRUdJTi" + fill("a\naaaaaaaaaaaaaaaaa")],
  ["dashes", fill("-")],
  ["URL prefixes", fill("a://b:")],
  ["a long URL scheme", fill("a+") + "://"],
  ["AKIA prefixes", fill("AKIA")],
  ["Bearer words", fill("Bearer ")],
  ["Bearer and a long token without digits", "Bearer " + fill("a")],
  ["header labels", fill("authorization: ")],
  ["assignments", fill("password=")],
  ["colon labels", fill("password:")],
  ["unclosed quoted values", fill("password: \"")],
  ["one unclosed quoted value", "password: \"" + fill("a")],
  ["JSON keys", fill("\"password\":")],
  ["escaped JSON keys", fill("\\\"password\\\":\\\"")],
  ["CLI flags", fill("--token ")],
  ["type annotations", fill("password: string =")],
  ["YAML lines", fill("password: x\n")],
  ["env entries", fill("name: DB_PASSWORD\n")],
  ["YAML block headers", fill("password: |\n \n")],
  ["URL passwords without an @", fill("a://b:c/")],
  ["getenv calls", fill("getenv(\"pw\", ")],
  [".pgpass fields", fill("h:5432:d:u")],
  ["continued assignments", fill("pwd=\\\n")],
  ["Korean names with a particle", fill("비밀번호는 ")],
  ["prose qualifiers", fill("password for the x ")],
  ["URL-encoded names", fill("%22token%22%3A%22")],
  ["one long YAML block", "password: >-\n" + fill("  a\n\n")],
  ["SharedAccessSignature names", fill("SharedAccessSignature ")],
  ["one long SharedAccessSignature value", "SharedAccessSignature=sv=" + fill("&amp;")],
  ["SAS signature parameters", fill("&sig=a%2")],
  ["escaped SAS signature parameters", fill("\\u0026sig=")],
  ["one long SAS signature", "?sig=" + fill("%2B")]
]

describe("adversarial input", () => {
  it.each(ADVERSARIAL)("redacts 5 MB of %s in linear time", (_, input) => {
    const started = performance.now()
    redactText(input)
    expect(performance.now() - started).toBeLessThan(LINEAR_MS)
  })

  it("redacts random 1 MB mixes of rule fragments in linear time", () => {
    const fragments = [
      "password",
      "token",
      "api_key",
      "_",
      ":",
      "=",
      "\"",
      "'",
      "\\",
      "sk-",
      "sk-ant-",
      "</",
      ">",
      "<",
      " ",
      "\t",
      "\n"
    ]
      .concat([
        "a",
        "1",
        "://",
        "@",
        "eyJ",
        ".",
        "PRIVATE KEY-----",
        "-----END ",
        "Bearer ",
        "authorization",
        "--",
        "-",
        "name:",
        "value:",
        "AKIA",
        "ghp_",
        "/",
        "string"
      ])
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
    for (let run = 0; run < 20; run++) {
      // A few fragments per run, so the same structure repeats the way an attack would repeat it.
      const alphabet = Array.from(
        { length: 2 + Math.floor(random() * 5) },
        () => fragments[Math.floor(random() * fragments.length)]!
      )
      let input = ""
      while (input.length < 1_000_000) input += alphabet[Math.floor(random() * alphabet.length)]
      const started = performance.now()
      redactText(input)
      expect(performance.now() - started, JSON.stringify(alphabet)).toBeLessThan(LINEAR_MS)
    }
  }, 20 * LINEAR_MS)

  it("fails safe on a flood of unclosed tags: nothing after the first one survives", () => {
    expect(redactText("visible " + fill("<private>") + "hidden").text).toBe("visible [private]")
  })

  it("redacts a 5 MB value spread over 100,000 strings in linear time", () => {
    const input = Array.from(
      { length: 100_000 },
      (_, i) => ({ i, line: `line ${i} of ordinary output, 50 chars long`, password: "p" })
    )
    const started = performance.now()
    const { redactions } = redactValue(input)
    expect(performance.now() - started).toBeLessThan(LINEAR_MS)
    expect(redactions).toBe(100_000)
  })
})
