import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect, Layer } from "effect"
import { createKey, get, signup } from "./Http.js"

// The platform runs on the TestClock here: expiry is decided by Effect's Clock, so time is moved
// forward instead of waited for (with the testing kit's walk on its virtual clock, which is quick
// over the runtime's housekeeping timers). The clock starts at the Unix epoch.
describe("expiry, driven by TestClock", () => {
  layer(TestPlatform.layer({ jwtTtl: "1 hour" }).pipe(Layer.provideMerge(TestKit.virtualClock)), { timeout: 120_000 })(
    (it) => {
      it.effect("an API key stops working at its expiry with 401 'API key has expired'", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const { key } = yield* createKey(core, account.token, {
            name: "short-lived",
            expiresAt: "1970-01-01T00:30:00.000Z"
          })
          assert.strictEqual((yield* get(`${core}/profile`, { token: key })).status, 200)

          yield* TestKit.advance("29 minutes")
          assert.strictEqual((yield* get(`${core}/profile`, { token: key })).status, 200)

          yield* TestKit.advance("1 minute")
          const expired = yield* get(`${core}/profile`, { token: key })
          assert.strictEqual(expired.status, 401)
          assert.deepInclude(expired.body.error, { code: "API_KEY_EXPIRED", message: "API key has expired" })
        }))

      it.effect("a session token stops working after its lifetime", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          assert.strictEqual((yield* get(`${core}/profile`, { token: account.token })).status, 200)
          yield* TestKit.advance("59 minutes")
          assert.strictEqual((yield* get(`${core}/profile`, { token: account.token })).status, 200)
          yield* TestKit.advance("2 minutes")
          const expired = yield* get(`${core}/profile`, { token: account.token })
          assert.strictEqual(expired.status, 401)
          assert.strictEqual(expired.body.error.code, "SESSION_EXPIRED")
        }))
    }
  )
})
