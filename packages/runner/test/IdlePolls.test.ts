/**
 * What an idle runtime asks its database, on the kit's virtual clock: the message outbox's dispatcher
 * with its production pause (`maxIdleInterval` 10 s; the kit's own default is an hour) runs one
 * statement per pause when nothing waits (its claim), not two (the claim and the look for the next
 * due message). The other periodic work of the kit is hourly or backs off (the webhook dispatcher).
 */
import { assert, describe, it } from "@effect/vitest"
import { defaultMessagingOptions } from "@voiceagent/runner/Messaging/MessageOutbox"
import * as SqlActivity from "@voiceagent/runner/Sql/SqlActivity"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect } from "effect"

const Kit = TestKit.layer({ runtime: { messaging: { ...defaultMessagingOptions, maxIdleInterval: "10 seconds" } } })

describe("an idle runtime's statements", () => {
  it.layer(Kit, { timeout: 120_000 })((it) => {
    it.effect("the message dispatcher asks once per idle pause", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T00:00:00Z")
        // past start-up and the webhook dispatcher's first doublings
        yield* TestKit.advance("5 minutes")
        const before = SqlActivity.started()
        yield* TestKit.advance("200 seconds")
        const statements = SqlActivity.started() - before
        // 20 pauses of 10 s: 20 claims (40 statements with the look after each); the webhook
        // dispatcher, at its hourly pause by now, adds at most one
        assert.isAtLeast(statements, 19, `statements in 200 idle virtual seconds: ${statements}`)
        assert.isAtMost(statements, 22, `statements in 200 idle virtual seconds: ${statements}`)
      }))
  })
})
