import { assert, describe, it } from "@effect/vitest"
import { DUMMY_HASH, hashPassword, verifyPassword } from "@voiceagent/http/Auth/Passwords"
import { Effect } from "effect"

describe("passwords", () => {
  it.effect("verifies the right password and refuses others", () =>
    Effect.gen(function*() {
      const stored = yield* hashPassword("correct horse battery")
      assert.match(stored, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
      assert.isTrue(yield* verifyPassword("correct horse battery", stored))
      assert.isFalse(yield* verifyPassword("correct horse batterY", stored))
      assert.isFalse(yield* verifyPassword("", stored))
    }))

  it.effect("salts every hash", () =>
    Effect.gen(function*() {
      assert.notStrictEqual(yield* hashPassword("same"), yield* hashPassword("same"))
    }))

  it.effect("normalises Unicode so the same text typed differently matches", () =>
    Effect.gen(function*() {
      const stored = yield* hashPassword("caf\u00e9 au lait")
      assert.isTrue(yield* verifyPassword("cafe\u0301 au lait", stored))
    }))

  it.effect("the dummy hash used for unknown e-mails matches nothing, and garbage is refused", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* verifyPassword("anything", DUMMY_HASH))
      assert.isFalse(yield* verifyPassword("anything", "not-a-hash"))
      assert.isFalse(yield* verifyPassword("anything", "bcrypt$1$2$3$4$5"))
    }))
})
