import { assert, describe, it } from "@effect/vitest"
import {
  apiKeyDigest,
  displayPrefix,
  generateApiKey,
  generateSigningSecret,
  hashApiKey,
  isWellFormedApiKey,
  KEY_LENGTH
} from "@voiceagent/http/Auth/ApiKeyFormat"

describe("API key format", () => {
  it("is aok_ + 30 base62 characters + a 6-character checksum", () => {
    const key = generateApiKey()
    assert.strictEqual(key.length, KEY_LENGTH)
    assert.match(key, /^aok_[0-9A-Za-z]{36}$/)
    assert.isTrue(isWellFormedApiKey(key))
    // 30 base62 characters carry 30 × log2(62) ≈ 178.6 bits
    assert.isAbove(30 * Math.log2(62), 128)
  })

  it("never repeats, and uses the whole alphabet", () => {
    const keys = Array.from({ length: 2000 }, generateApiKey)
    assert.strictEqual(new Set(keys).size, keys.length)
    const alphabet = new Set(keys.flatMap((k) => [...k.slice(4, 34)]))
    assert.strictEqual(alphabet.size, 62)
  })

  it("detects any single-character change offline through the checksum", () => {
    const key = generateApiKey()
    for (let i = 4; i < key.length; i++) {
      const replacement = key[i] === "a" ? "b" : "a"
      const altered = key.slice(0, i) + replacement + key.slice(i + 1)
      assert.isFalse(isWellFormedApiKey(altered), `position ${i}`)
    }
    assert.isFalse(isWellFormedApiKey(`Bearer ${key}`))
    assert.isFalse(isWellFormedApiKey(key.slice(0, -1)))
    assert.isFalse(isWellFormedApiKey(key.replace("aok_", "aok-")))
  })

  it("stores a 32-byte SHA-256, the same for the same key", () => {
    const key = generateApiKey()
    assert.strictEqual(hashApiKey(key).length, 32)
    assert.isTrue(hashApiKey(key).equals(hashApiKey(key)))
    assert.isFalse(hashApiKey(key).equals(hashApiKey(generateApiKey())))
    assert.strictEqual(apiKeyDigest(key), hashApiKey(key).toString("base64"))
  })

  it("shows only a short prefix and makes distinct signing secrets", () => {
    const key = generateApiKey()
    assert.strictEqual(displayPrefix(key), key.slice(0, 12))
    assert.match(generateSigningSecret(), /^whsec_[A-Za-z0-9_-]{43}$/)
    assert.notStrictEqual(generateSigningSecret(), generateSigningSecret())
  })
})
