import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@voiceagent/domain/Ids"
import { SessionTokens } from "@voiceagent/http/Auth/SessionTokens"
import { Effect, Either, Redacted, TestClock } from "effect"

const userId = "0190f7a0-0000-7000-8000-000000000001" as UserId
const Tokens = SessionTokens.layer({ secret: Redacted.make("s".repeat(32)), ttl: "1 hour" })
const OtherSecret = SessionTokens.layer({ secret: Redacted.make("t".repeat(32)), ttl: "1 hour" })

describe("session tokens", () => {
  it.effect("round-trips the user id until the token expires", () =>
    Effect.gen(function*() {
      const tokens = yield* SessionTokens
      yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00Z"))
      const { expiresAt, token } = yield* tokens.issue(userId)
      assert.strictEqual(expiresAt.toISOString(), "2026-01-01T01:00:00.000Z")
      assert.deepStrictEqual(yield* tokens.verify(token), Either.right(userId))
      yield* TestClock.adjust("59 minutes")
      assert.deepStrictEqual(yield* tokens.verify(token), Either.right(userId))
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* tokens.verify(token), Either.left("expired"))
    }).pipe(Effect.provide(Tokens)))

  it.effect("refuses tokens signed with another secret, altered, or not tokens at all", () =>
    Effect.gen(function*() {
      const foreign = yield* Effect.flatMap(SessionTokens, (t) => t.issue(userId)).pipe(Effect.provide(OtherSecret))
      const tokens = yield* SessionTokens
      assert.deepStrictEqual(yield* tokens.verify(foreign.token), Either.left("invalid"))
      const own = yield* tokens.issue(userId)
      const [h, p, s] = own.token.split(".")
      const payload = JSON.parse(Buffer.from(p!, "base64url").toString())
      const forged = Buffer.from(JSON.stringify({ ...payload, sub: "someone-else" })).toString("base64url")
      assert.deepStrictEqual(yield* tokens.verify(`${h}.${forged}.${s}`), Either.left("invalid"))
      const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")
      assert.deepStrictEqual(yield* tokens.verify(`${none}.${p}.`), Either.left("invalid"))
      assert.deepStrictEqual(yield* tokens.verify("a.b.c"), Either.left("invalid"))
    }).pipe(Effect.provide(Tokens)))
})
