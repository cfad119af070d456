/**
 * Property-style: seeded random documents (coding-session text, random JSON nesting) with one planted
 * secret must never leak the secret's sensitive part; the same documents without it come back unchanged.
 */
import { describe, expect, it } from "vitest"
import { redactText, redactValue, SECRET_RULES } from "../../src/privacy/index.ts"
import { CLEAN_CORPUS } from "./corpus.ts"

type Random = () => number

/** A small seeded generator, so a failing seed can be replayed. */
const generator = (seed: number): Random => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
const between = (random: Random, low: number, high: number): number => low + Math.floor(random() * (high - low + 1))

const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const ALNUM = UPPER_DIGITS + "abcdefghijklmnopqrstuvwxyz"
const BASE64URL = ALNUM + "-_"
/**
 * Password characters a bare value may hold: no whitespace, quotes, backtick, `&` or backslash (they end or
 * escape a value).
 */
const PASSWORD = ALNUM + "!#$%()*+,-./:;<=>?@[]^_{|}~"
const chars = (random: Random, alphabet: string, length: number): string =>
  Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("")
/** Starts with a letter or digit and holds at least one digit, as real tokens do. */
const token = (random: Random, alphabet: string, length: number): string =>
  pick(random, [...ALNUM]) + chars(random, alphabet, length - 2) + pick(random, [..."0123456789"])

interface Planted {
  readonly text: string
  /** What must never appear in the output. */
  readonly sensitive: string
  /** Also planted as a JSON entry `{ key: value }`, when the secret is a named credential. */
  readonly entry?: readonly [string, string]
}

/** One planter per rule kind: a realistic secret in one of the shapes that rule covers. */
const PLANTERS: Record<string, (random: Random) => Planted> = {
  "private-key": (random) => {
    const lines = Array.from({ length: 3 }, () => chars(random, ALNUM + "+/", 64))
    const kind = pick(random, ["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "])
    return {
      text: `-----BEGIN ${kind}PRIVATE KEY-----\n${lines.join("\n")}\n-----END ${kind}PRIVATE KEY-----`,
      sensitive: lines[1]!
    }
  },
  "anthropic-key": (random) => whole(`sk-ant-api03-${token(random, BASE64URL, 80)}`),
  "openai-key": (random) => whole(pick(random, ["sk-", "sk-proj-"]) + token(random, BASE64URL, 48)),
  "github-token": (random) =>
    whole(
      random() < 0.5
        ? pick(random, ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + chars(random, ALNUM, 36)
        : `github_pat_${chars(random, ALNUM, 22)}_${chars(random, ALNUM, 59)}`
    ),
  "gitlab-token": (random) => whole(`glpat-${chars(random, BASE64URL, 20)}`),
  "slack-token": (random) =>
    whole(`xox${pick(random, [..."abposr"])}-${chars(random, "0123456789", 11)}-${chars(random, ALNUM, 24)}`),
  "slack-webhook": (random) => {
    const secret = chars(random, ALNUM, 24)
    return {
      text: `https://hooks.slack.com/services/T${chars(random, UPPER_DIGITS, 8)}/B${
        chars(random, UPPER_DIGITS, 8)
      }/${secret}`,
      sensitive: secret
    }
  },
  "stripe-key": (random) => whole(pick(random, ["sk_live_", "rk_live_", "sk_test_"]) + chars(random, ALNUM, 24)),
  "google-api-key": (random) => whole(`AIza${chars(random, BASE64URL, 35)}`),
  "npm-token": (random) => whole(`npm_${chars(random, ALNUM, 36)}`),
  "google-oauth-token": (random) => whole(`ya29.${token(random, BASE64URL, between(random, 40, 120))}`),
  "sendgrid-key": (random) => whole(`SG.${chars(random, BASE64URL, 22)}.${chars(random, BASE64URL, 43)}`),
  "aws-access-key": (random) => whole(pick(random, ["AKIA", "ASIA"]) + chars(random, UPPER_DIGITS, 16)),
  jwt: (random) =>
    whole(`eyJ${chars(random, BASE64URL, 20)}.eyJ${chars(random, BASE64URL, 40)}.${chars(random, BASE64URL, 43)}`),
  "url-password": (random) => {
    const password = token(random, ALNUM + "!$*_~-", between(random, 12, 24))
    const scheme = pick(random, ["postgres", "mysql", "redis", "https", "amqp", "mongodb+srv"])
    const user = pick(random, ["", "admin", "app_user", "deploy"])
    return {
      text: `${scheme}://${user}:${password}@db-${chars(random, ALNUM, 6)}.example.com:5432/app?sslmode=require`,
      sensitive: password
    }
  },
  authorization: (random) => {
    const credential = token(random, ALNUM + "._-", between(random, 20, 40))
    const header = `${pick(random, ["Authorization", "authorization"])}: ${
      pick(random, ["Bearer ", "Basic ", "token ", ""])
    }${credential}`
    return {
      text: pick(random, [
        header,
        `curl -H "${header}" https://api.example.com/v1`,
        `{"${header.replace(": ", "\": \"")}"}`
      ]),
      sensitive: credential
    }
  },
  "bearer-token": (random) => {
    const credential = token(random, ALNUM + "._-", between(random, 20, 40))
    return { text: `sent Bearer ${credential} upstream`, sensitive: credential }
  },
  "aws-secret-key": (random) => {
    const secret = chars(random, ALNUM + "/+", 40)
    return {
      text: pick(random, [
        `aws_secret_access_key = ${secret}`,
        `AWS_SECRET_ACCESS_KEY=${secret}`,
        `"SecretAccessKey": "${secret}"`
      ]),
      sensitive: secret
    }
  },
  "vendor-token": (random) =>
    whole(
      pick(random, [
        `gsk_${chars(random, ALNUM, 52)}`,
        `r8_${chars(random, ALNUM, 37)}`,
        `xai-${chars(random, ALNUM, 80)}`,
        `GOCSPX-${chars(random, BASE64URL, 28)}`,
        `whsec_${chars(random, ALNUM, 32)}`
      ])
    ),
  "url-signature": (random) => {
    const signature = chars(random, "0123456789abcdef", 64)
    const provider = pick(random, ["Amz", "Goog"])
    return {
      text: `https://b.example.com/o?X-${provider}-Expires=3600&X-${provider}-Signature=${signature}`,
      sensitive: signature
    }
  },
  "azure-sas": (random) => {
    // HMAC-SHA256 in base64, URL-encoded as a SAS carries it.
    const signature = chars(random, ALNUM, 20) + pick(random, ["%2B", "%2F", "+", "/"]) + chars(random, ALNUM, 22)
      + "%3D"
    const text = pick(random, [
      `https://acct.blob.core.windows.net/c/f.txt?sv=2021-08-06&sr=b&sp=r&sig=${signature}`,
      `BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&sp=rl&sig=${signature}`,
      `SharedAccessSignature sr=https%3A%2F%2Fns.servicebus.windows.net%2Fq&sig=${signature}&se=1700000000&skn=Root`
    ])
    return { text, sensitive: signature }
  },
  credential: (random) => {
    const name = pick(random, [
      "password",
      "DB_PASSWORD",
      "passwd",
      "apiKey",
      "API_KEY",
      "client_secret",
      "access_token",
      "auth_token",
      "private_key",
      "SECRET",
      "x-api-key",
      "PGPASSWORD"
    ])
    const flag = pick(random, ["password", "api-key", "token", "client-secret"])
    const value = token(random, PASSWORD, between(random, 12, 24))
    const text = pick(random, [
      `${name}=${value}`,
      `export ${name}="${value}"`,
      `"${name}": ${JSON.stringify(value)}`,
      `{'${name}': '${value}'}`,
      `\n${name}: ${value}\n`,
      `\n  - ${name}: ${value}\n`,
      `login({ ${name}: "${value}" })`,
      `cli --${flag} ${value} --verbose`,
      `cli --${flag}=${value}`,
      `const ${name}: string = '${value}'`,
      `- name: ${name.toUpperCase()}\n  value: ${value}`,
      // Env entries read whole: a block scalar, another key between, the value first, Terraform, Helm.
      `\n- name: ${name.toUpperCase()}\n  value: |\n    ${value}\n`,
      `\n- value: '${value}'\n  type: plain\n  name: ${name.toUpperCase()}\n`,
      `{"name": "${name.toUpperCase()}", "type": "plain", "value": ${JSON.stringify(value)}}`,
      `env {\n  value = "${value}"\n  name  = "${name.toUpperCase()}"\n}`,
      `helm install app . --set env[0].name=${name.toUpperCase()},env[0].value=${value.replaceAll(",", "\\,")}`
    ])
    return { text, sensitive: value, entry: [name, value] }
  }
}

function whole(secret: string): Planted {
  return { text: secret, sensitive: secret }
}

/** Random coding-session text around the planted part, with separators a real transcript would have. */
function surround(random: Random, middle: string): string {
  const context = () => (random() < 0.2 ? "" : pick(random, CLEAN_CORPUS))
  return context() + pick(random, [" ", "\n", "\n\n", " (", "\t", ": "]) + middle +
    pick(random, [" ", "\n", ") ", ". ", ", "]) + context()
}

/** Buries a leaf a few levels deep in arrays and objects, next to unrelated clean text. */
function nest(random: Random, leaf: unknown): unknown {
  let value = leaf
  for (let depth = between(random, 0, 6); depth > 0; depth--) {
    const sibling = pick(random, CLEAN_CORPUS)
    value = random() < 0.4
      ? [sibling, value, between(random, 0, 1000)]
      : {
        [pick(random, ["tool_input", "tool_response", "content", "stdout", "items", "message", "data"])]: value,
        text: sibling,
        ok: random() < 0.5
      }
  }
  return value
}

/** Every string in a value, so a leak is found wherever the filter left it. */
function allStrings(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => v) ?? ""
}

const KINDS = Object.keys(PLANTERS)
const DOCUMENTS = 500

describe("planted secrets never leak", () => {
  it("has a planter for every rule kind", () => {
    expect(new Set(KINDS)).toEqual(new Set(SECRET_RULES.map((rule) => rule.kind)))
  })

  it.each([1, 7, 42, 2024, 31337])(`in ${DOCUMENTS} random documents (seed %i)`, (seed) => {
    const random = generator(seed)
    for (let index = 0; index < DOCUMENTS; index++) {
      const kind = pick(random, KINDS)
      const planted = PLANTERS[kind]!(random)
      const text = surround(random, planted.text)
      const leaf = planted.entry !== undefined && random() < 0.3
        ? { [planted.entry[0]]: planted.entry[1], note: text }
        : text
      const document = nest(random, leaf)
      const context = `seed ${seed}, document ${index}, kind ${kind}`

      const fromText = redactText(text)
      expect(fromText.text, context).not.toContain(planted.sensitive)
      expect(fromText.redactions, context).toBeGreaterThan(0)
      const fromValue = redactValue(document)
      // The planted values hold no quote or backslash, so JSON text contains them verbatim if they leak.
      expect(allStrings(fromValue.value), context).not.toContain(planted.sensitive)
    }
  })
})

describe("text without secrets comes back unchanged", () => {
  it.each(CLEAN_CORPUS.map((text, index) => [index, text] as const))("corpus piece %i", (_, text) => {
    expect(redactText(text)).toEqual({ text, redactions: 0 })
  })

  it(`in ${DOCUMENTS} random nested documents`, () => {
    const random = generator(99)
    for (let index = 0; index < DOCUMENTS; index++) {
      const text = Array.from({ length: between(random, 1, 4) }, () => pick(random, CLEAN_CORPUS)).join(
        pick(random, ["\n", " ", "\n\n"])
      )
      const document = nest(random, text)
      expect(redactValue(document), `document ${index}`).toEqual({ value: document, redactions: 0 })
    }
  })
})
