import { assert, describe, it } from "@effect/vitest"
import { Timestamp } from "@voiceagent/domain/Timestamp"
import { Either, Schema } from "effect"

const decode = Schema.decodeUnknownEither(Timestamp)

describe("Timestamp", () => {
  it("takes instants from year 1 to 9999 in UTC, with or without an offset", () => {
    for (
      const text of [
        "0001-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
        "0001-01-01T00:00-01:00",
        "9999-12-31T10:00:00+14:00"
      ]
    ) {
      const decoded = decode(text)
      assert.isTrue(Either.isRight(decoded), text)
    }
  })

  it("refuses the instants PostgreSQL cannot read back: year 0, and offsets that carry a date past either end", () => {
    for (
      const text of [
        "0000-01-01T00:00:00.000Z",
        "0000-12-31T23:59:59.999Z",
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59.999-14:00"
      ]
    ) {
      const decoded = decode(text)
      assert.isTrue(Either.isLeft(decoded), text)
      if (Either.isLeft(decoded)) {
        assert.include(decoded.left.message, "Expected an instant from 0001-01-01T00:00:00.000Z", text)
      }
    }
  })
})
