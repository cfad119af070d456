import { describe, expect, it } from "vitest"
import { isSensitiveKey, redactStrings, redactText, redactValue } from "../../src/privacy/index.ts"

const GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"

describe("redactValue", () => {
  it("redacts every string inside nested arrays and objects, keeping keys and other values", () => {
    const input = {
      tool_name: "Bash",
      tool_input: { command: `git push https://x:${GITHUB_TOKEN}@github.com/a/b`, timeout: 120, background: false },
      tool_response: [{ stdout: "ok <private>internal</private> done", lines: [1, 2, null] }],
      GITHUB_TOKEN_COUNT: 3
    }
    const { value, redactions } = redactValue(input)
    expect(value).toEqual({
      tool_name: "Bash",
      tool_input: {
        command: "git push https://x:[secret:github-token]@github.com/a/b",
        timeout: 120,
        background: false
      },
      tool_response: [{ stdout: "ok [private] done", lines: [1, 2, null] }],
      GITHUB_TOKEN_COUNT: 3
    })
    expect(redactions).toBe(2)
  })

  it("masks the whole value under a sensitive key, whatever its shape", () => {
    const input = {
      password: "short",
      apiKey: 12345,
      client_secret: { nested: "anything" },
      Authorization: ["Bearer x"],
      "x-api-key": "k",
      accessToken: "t",
      headers: { cookie: "sid=1" },
      isSecret: true,
      token: null,
      passphrase: ""
    }
    expect(redactValue(input).value).toEqual({
      password: "[secret:credential]",
      apiKey: "[secret:credential]",
      client_secret: "[secret:credential]",
      Authorization: "[secret:credential]",
      "x-api-key": "[secret:credential]",
      accessToken: "[secret:credential]",
      headers: { cookie: "[secret:credential]" },
      isSecret: true,
      token: null,
      passphrase: ""
    })
  })

  it("masks the value of name/value environment entries with a sensitive name", () => {
    const input = { env: [{ name: "DB_PASSWORD", value: "hunter2" }, { Name: "PORT", Value: "3000" }] }
    expect(redactValue(input).value).toEqual({
      env: [{ name: "DB_PASSWORD", value: "[secret:credential]" }, { Name: "PORT", Value: "3000" }]
    })
  })

  it("masks an entry's value whatever the order of its keys, parsed from JSON or not", () => {
    const input = JSON.parse(`{"env": [{"value": "hunter2", "name": "DB_PASSWORD"}, {"Value": "/srv", "Name": "PWD"}]}`)
    const expected = { env: [{ value: "[secret:credential]", name: "DB_PASSWORD" }, { Value: "/srv", Name: "PWD" }] }
    expect(redactValue(input).value).toEqual(expected)
    expect(redactStrings(input)).toEqual(expected)
    expect(redactText(JSON.stringify(input)).text).toBe(JSON.stringify(expected))
  })

  it("keeps PWD holding a path, the shell's working directory, and masks PWD holding anything else", () => {
    const input = {
      env: { PWD: "/home/alice/project", OLDPWD: "/home/alice", pwd: "hunter22" },
      entries: [{ name: "PWD", value: "/srv/app" }, { name: "PWD", value: "s3cretPw9" }]
    }
    const expected = {
      env: { PWD: "/home/alice/project", OLDPWD: "/home/alice", pwd: "[secret:credential]" },
      entries: [{ name: "PWD", value: "/srv/app" }, { name: "PWD", value: "[secret:credential]" }]
    }
    expect(redactValue(input).value).toEqual(expected)
    expect(redactStrings(input)).toEqual(expected)
  })

  it("keeps a scheme under a name ending in auth, and masks any other value there", () => {
    expect(redactValue({ auth: "basic", smtp_auth: "LOGIN", _auth: "dXNlcjpwYXNzd29yZA==", auth2: "x" }).value).toEqual(
      {
        auth: "basic",
        smtp_auth: "LOGIN",
        _auth: "[secret:credential]",
        auth2: "x"
      }
    )
    expect(redactStrings({ auth: "ntlm", basic_auth: "alice:s3cret" })).toEqual({
      auth: "ntlm",
      basic_auth: "[secret:credential]"
    })
  })

  it("recognises sensitive key names by their ending, not by substrings", () => {
    for (
      const key of [
        "password",
        "DB_PASSWORD",
        "passwd",
        "clientSecret",
        "api_key",
        "apiKey",
        "x-api-key",
        "access_token",
        "private_key",
        "Authorization",
        "_auth",
        "set-cookie"
      ]
    ) {
      expect(isSensitiveKey(key), key).toBe(true)
    }
    for (
      const key of [
        "max_tokens",
        "token_count",
        "password_hash",
        "secretName",
        "author",
        "keys",
        "bypass",
        "oauth_provider"
      ]
    ) {
      expect(isSensitiveKey(key), key).toBe(false)
    }
  })

  it("redacts a bare string and passes other primitives through", () => {
    expect(redactValue(`key ${GITHUB_TOKEN}`)).toEqual({ value: "key [secret:github-token]", redactions: 1 })
    for (const primitive of [42, true, null, undefined, 10n]) {
      expect(redactValue(primitive)).toEqual({ value: primitive, redactions: 0 })
    }
  })

  it("never mutates its input", () => {
    const input = { a: [{ password: "p", text: `t ${GITHUB_TOKEN}` }] }
    const snapshot = structuredClone(input)
    const { value } = redactValue(Object.freeze(input))
    expect(input).toEqual(snapshot)
    expect(value).not.toBe(input)
  })

  it("passes non-plain objects through unchanged", () => {
    const date = new Date(0)
    const { value } = redactValue({ at: date })
    expect((value as { at: unknown }).at).toBe(date)
  })

  it("keeps a __proto__ key from JSON as a plain property", () => {
    const input: unknown = JSON.parse("{\"__proto__\": {\"polluted\": \"yes\"}, \"ok\": 1}")
    const value = redactValue(input).value as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(["__proto__", "ok"])
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
  })

  it("handles 200,000 levels of nesting without overflowing the stack", () => {
    let input: unknown = `deep ${GITHUB_TOKEN}`
    for (let depth = 0; depth < 200_000; depth++) input = depth % 2 === 0 ? [input] : { child: input }
    const { value, redactions } = redactValue(input)
    let cursor = value
    while (typeof cursor !== "string") cursor = Array.isArray(cursor) ? cursor[0] : (cursor as { child: unknown }).child
    expect(cursor).toBe("deep [secret:github-token]")
    expect(redactions).toBe(1)
  })

  it("terminates on cyclic input and keeps shared references shared", () => {
    const shared = { text: "plain" }
    const cyclic: Record<string, unknown> = { a: shared, b: shared }
    cyclic["self"] = cyclic
    const value = redactValue(cyclic).value as Record<string, unknown>
    expect(value["self"]).toBe(value)
    expect(value["a"]).toBe(value["b"])
  })

  it("keeps array holes and length", () => {
    // oxlint-disable-next-line no-sparse-arrays -- the hole is what this test is about
    const value = redactValue([1, , 3]).value as Array<unknown>
    expect(value).toHaveLength(3)
    expect(1 in value).toBe(false)
  })
})
