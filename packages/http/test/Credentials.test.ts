import { assert, describe, it } from "@effect/vitest"
import { parseAuthorization } from "@voiceagent/http/Auth/Credentials"

describe("parseAuthorization", () => {
  const key = "aok_abcdefghijklmnopqrstuvwxyz0123456789"
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"

  it("reports a missing or empty header", () => {
    assert.deepStrictEqual(parseAuthorization(undefined), { _tag: "Missing" })
    assert.deepStrictEqual(parseAuthorization(""), { _tag: "Missing" })
    assert.deepStrictEqual(parseAuthorization("   "), { _tag: "Missing" })
  })

  it("reports other schemes and a scheme without a credential as malformed", () => {
    for (const header of ["Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", "Token abc", key, "Bearerabc"]) {
      assert.deepStrictEqual(parseAuthorization(header), { _tag: "Malformed" }, header)
    }
  })

  it("reads API keys and session tokens, with the scheme in any case", () => {
    assert.deepStrictEqual(parseAuthorization(`Bearer ${key}`), { _tag: "ApiKey", key })
    assert.deepStrictEqual(parseAuthorization(`bearer ${key}`), { _tag: "ApiKey", key })
    assert.deepStrictEqual(parseAuthorization(`BEARER  ${key} `), { _tag: "ApiKey", key })
    assert.deepStrictEqual(parseAuthorization(`Bearer ${jwt}`), { _tag: "Session", token: jwt })
  })

  it("keeps a pasted 'Bearer' inside the credential so it fails as an unknown key", () => {
    assert.deepStrictEqual(parseAuthorization(`Bearer Bearer ${key}`), { _tag: "ApiKey", key: `Bearer ${key}` })
  })

  it("treats any other opaque credential as an attempted API key", () => {
    assert.deepStrictEqual(parseAuthorization("Bearer sk-something"), { _tag: "ApiKey", key: "sk-something" })
  })
})
