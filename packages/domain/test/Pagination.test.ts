import { assert, describe, it } from "@effect/vitest"
import { CAMPAIGN_PAGE_SIZE, makePage, offsetOf, PageQuery } from "@voiceagent/domain/Pagination"
import { Effect, Either, Schema } from "effect"

const decode = (query: Record<string, unknown>, defaultSize?: number) =>
  Schema.decodeUnknownEither(PageQuery(defaultSize))(query)

describe("Pagination", () => {
  it("defaults to page 1 of 20, or 15 for campaign lists", () => {
    assert.deepStrictEqual(decode({}), Either.right({ page: 1, pageSize: 20 }))
    assert.deepStrictEqual(decode({}, CAMPAIGN_PAGE_SIZE), Either.right({ page: 1, pageSize: 15 }))
  })

  it("accepts decimal integers within bounds", () => {
    assert.deepStrictEqual(decode({ page: "3", pageSize: "100" }), Either.right({ page: 3, pageSize: 100 }))
    assert.deepStrictEqual(decode({ page: "1", pageSize: "1" }), Either.right({ page: 1, pageSize: 1 }))
  })

  it("refuses out-of-range and non-numeric values", () => {
    for (
      const query of [
        { pageSize: "101" },
        { pageSize: "0" },
        { page: "0" },
        { page: "-1" },
        { page: "abc" },
        { pageSize: "1.5" },
        { pageSize: "1e2" },
        { pageSize: " 5" },
        { pageSize: "" },
        { page: "0x10" },
        { page: ["1", "2"] }
      ]
    ) {
      assert.isTrue(Either.isLeft(decode(query)), JSON.stringify(query))
    }
  })

  it.effect("names the rule in the message", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Schema.decodeUnknown(PageQuery())({ pageSize: "500" }))
      assert.include(error.message, "pageSize must be an integer between 1 and 100")
    }))

  it("builds the envelope with totalPages rounded up", () => {
    assert.deepStrictEqual(makePage(["a", "b"], 5, { page: 1, pageSize: 2 }), {
      items: ["a", "b"],
      total: 5,
      page: 1,
      pageSize: 2,
      totalPages: 3
    })
    assert.strictEqual(makePage([], 0, { page: 1, pageSize: 20 }).totalPages, 0)
    assert.strictEqual(offsetOf({ page: 3, pageSize: 25 }), 50)
  })
})
