import { describe, expect, it } from "vitest"
import { redactText } from "../../src/privacy/index.ts"

const b64 = (text: string): string => Buffer.from(text).toString("base64")

/** What `kubectl get secret db -o yaml` prints: the values are base64, their keys any name. */
const SECRET_YAML = [
  "apiVersion: v1",
  "data:",
  `  DATABASE_URL: ${b64("postgres://app:K8sUrlPw-71@db/app")}`,
  `  admin: ${b64("K8sAdminPw-72")}`,
  `  tls.key: ${b64("K8sTlsKey-73")}`,
  "kind: Secret",
  "metadata:",
  "  name: db",
  "type: Opaque"
].join("\n")

const PLANTED = ["K8sUrlPw-71", "K8sAdminPw-72", "K8sTlsKey-73"].map(b64)

describe("a Kubernetes Secret", () => {
  it("has every value of its data masked, its keys kept", () => {
    const { text } = redactText(SECRET_YAML)
    for (const value of PLANTED) expect(text).not.toContain(value)
    expect(text).toContain("  DATABASE_URL: [secret:kubernetes-secret]\n  admin: [secret:kubernetes-secret]\n")
    expect(text).toContain("kind: Secret\nmetadata:\n  name: db\ntype: Opaque")
  })

  it("in a list (kubectl get secrets -o yaml), with CRLF line ends", () => {
    const list = `apiVersion: v1\nitems:\n- ${SECRET_YAML.replaceAll("\n", "\n  ")}\nkind: List\n`.replaceAll(
      "\n",
      "\r\n"
    )
    const { text } = redactText(list)
    for (const value of PLANTED) expect(text).not.toContain(value)
    expect(text).toContain("    admin: [secret:kubernetes-secret]\r\n")
  })

  it("has its stringData masked, block scalars too", () => {
    const manifest = [
      "apiVersion: v1",
      "kind: Secret",
      "metadata:",
      "  name: app",
      "stringData:",
      "  admin: K8sPlainPw-74",
      "  config.yaml: |",
      "    db:",
      "      user: app",
      "      pass: K8sBlockPw-75",
      "type: Opaque"
    ].join("\n")
    const { text } = redactText(manifest)
    expect(text).not.toContain("K8sPlainPw-74")
    expect(text).not.toContain("K8sBlockPw-75")
    expect(text).toContain("  config.yaml: |\n    [secret:kubernetes-secret]\n")
    expect(text).toContain("type: Opaque")
  })

  it("as JSON (kubectl get secret -o json), and in the last-applied annotation that repeats it escaped", () => {
    const json = JSON.stringify(
      {
        apiVersion: "v1",
        data: { DATABASE_URL: PLANTED[0], admin: PLANTED[1] },
        kind: "Secret",
        metadata: {
          annotations: {
            "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({
              kind: "Secret",
              stringData: { admin: "K8sAnnotPw-76", "tls.key": "K8sAnnotKey-77" }
            })
          }
        }
      },
      null,
      2
    )
    const { text } = redactText(json)
    for (const secret of [PLANTED[0]!, PLANTED[1]!, "K8sAnnotPw-76", "K8sAnnotKey-77"]) {
      expect(text).not.toContain(secret)
    }
    expect(text).toContain(`"DATABASE_URL": "[secret:kubernetes-secret]"`)
    expect(text).toContain(String.raw`\"admin\":\"[secret:kubernetes-secret]\"`)
  })

  it("escaped twice: that annotation inside another JSON string (a tool's output as JSON)", () => {
    const annotated = JSON.stringify({
      metadata: {
        annotations: {
          "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({
            kind: "Secret",
            data: { admin: PLANTED[1] },
            stringData: { "tls.key": "K8sNestedKey-78" }
          })
        }
      }
    })
    const { text } = redactText(JSON.stringify({ stdout: annotated }))
    expect(text).not.toContain(PLANTED[1])
    expect(text).not.toContain("K8sNestedKey-78")
    // Masked up to the value's closing quote, escaped as deeply as its opening one.
    expect(text).toContain(String.raw`\\\"admin\\\":\\\"[secret:kubernetes-secret]\\\"}`)
    expect(text).toContain(String.raw`\\\"tls.key\\\":\\\"[secret:kubernetes-secret]\\\"}`)
  })

  it("escaped four and five times: that annotation quoted as a string three or four times more", () => {
    const annotation = JSON.stringify({
      kind: "Secret",
      data: { admin: PLANTED[1] },
      stringData: { pw: "K8sDeepPw-79" }
    })
    for (const [times, backslashes] of [[3, 15], [4, 31]] as const) {
      let text = JSON.stringify({ metadata: { annotations: { last: annotation } } })
      for (let i = 0; i < times; i++) text = JSON.stringify(text)
      const redacted = redactText(text).text
      expect(redacted).not.toContain(PLANTED[1])
      expect(redacted).not.toContain("K8sDeepPw-79")
      const quote = "\\".repeat(backslashes) + "\""
      expect(redacted).toContain(`${quote}admin${quote}:${quote}[secret:kubernetes-secret]${quote}}`)
    }
  })

  /** A Secret whose first value holds a `}` (JSON as plain text, a brace in a password) before others. */
  const BRACED = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "app" },
    stringData: {
      "config.json": JSON.stringify({ db: { user: "app", host: "K8sBraceHost-81" } }),
      odd: "K8sBrace}Pw-82\\",
      admin: "K8sAfterBrace-83",
      "tls.crt": "K8sAfterBrace-84"
    },
    type: "Opaque"
  }
  const BRACED_VALUES = ["K8sBraceHost-81", "K8sBrace}Pw-82", "K8sAfterBrace-83", "K8sAfterBrace-84"]

  it("as JSON, read to the } that closes its map: a } inside a value does not end it", () => {
    const { text } = redactText(JSON.stringify(BRACED, null, 2))
    for (const secret of BRACED_VALUES) expect(text).not.toContain(secret)
    expect(text).toContain(`"config.json": "[secret:kubernetes-secret]",\n    "odd": "[secret:kubernetes-secret]",`)
    expect(text).toContain(`"tls.crt": "[secret:kubernetes-secret]"\n  },\n  "type": "Opaque"`)
  })

  it("escaped once and twice, in the last-applied annotation: a } inside a value does not end its map", () => {
    const annotated = JSON.stringify({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify(BRACED) } }
    })
    for (const [text, quote] of [[annotated, "\\\""], [JSON.stringify({ stdout: annotated }), "\\\\\\\""]] as const) {
      const redacted = redactText(text).text
      for (const secret of BRACED_VALUES) expect(redacted).not.toContain(secret)
      const entry = (key: string) => `${quote}${key}${quote}:${quote}[secret:kubernetes-secret]${quote}`
      expect(redacted).toContain(`{${entry("config.json")},${entry("odd")},${entry("admin")},${entry("tls.crt")}}`)
      expect(redacted).toContain(`${quote}type${quote}:${quote}Opaque${quote}`)
    }
  })

  it("indented, then quoted as a string: its line breaks and indentation escaped", () => {
    const { text } = redactText(JSON.stringify({ log: JSON.stringify(BRACED, null, 2) }))
    for (const secret of BRACED_VALUES) expect(text).not.toContain(secret)
    expect(text).toContain(String.raw`\n    \"admin\": \"[secret:kubernetes-secret]\",\n`)
    expect(text).toContain(String.raw`\n  },\n  \"type\": \"Opaque\"\n}`)
  })

  it("escaped, read no further than the string that holds it, closed or not", () => {
    const cut = String.raw`{"log": "{\"kind\":\"Secret\",\"data\":{\"a\":\"K8sCutPw-88\"", "next": "kept }"}`
    expect(redactText(cut).text).toBe(
      String.raw`{"log": "{\"kind\":\"Secret\",\"data\":{\"a\":\"[secret:kubernetes-secret]\"", "next": "kept }"}`
    )
  })

  it.each([
    ["a ConfigMap", "apiVersion: v1\ndata:\n  LOG_LEVEL: debug\nkind: ConfigMap"],
    ["another kind named like it", "kind: SecretProviderClass\nspec:\n  data:\n    objectName: db-url"],
    ["a JSON API response", `{"data": {"id": "e3b0c44298fc1c149afbf4c8996fb924", "kind": "Release"}}`],
    ["prose", "the Secret kind holds data: base64 values"]
  ])("leaves %s alone", (_, text) => {
    expect(redactText(text)).toEqual({ text, redactions: 0 })
  })
})
