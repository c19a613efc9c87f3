import { assert, describe, it } from "@effect/vitest"
import { CurrentRequestId } from "@voiceagent/domain/ApiError"
import { ApiKeyExpired, InvalidApiKey } from "@voiceagent/domain/Auth"
import { Effect, FiberRef, Schema } from "effect"

describe("ApiError", () => {
  it.effect("encodes the standard body with the request id of the fiber", () =>
    Effect.gen(function*() {
      const body = yield* Schema.encode(ApiKeyExpired.http)(new ApiKeyExpired()).pipe(
        Effect.locally(CurrentRequestId, "req-1")
      )
      assert.deepStrictEqual(body, {
        error: { code: "API_KEY_EXPIRED", message: "API key has expired", requestId: "req-1" }
      })
    }))

  it.effect("decodes the body back into the class", () =>
    Effect.gen(function*() {
      const error = yield* Schema.decodeUnknown(InvalidApiKey.http)({
        error: { code: "INVALID_API_KEY", message: "Invalid API key", requestId: "r" }
      })
      assert.instanceOf(error, InvalidApiKey)
      assert.strictEqual(error.requestId, "r")
      const ref = yield* FiberRef.get(CurrentRequestId)
      assert.strictEqual(ref, "none")
    }))
})
