import { assert, describe, it } from "@effect/vitest"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect } from "effect"

describe("my calling workflow", () => {
  it.layer(TestKit.layer(), { timeout: 120_000 })((it) => {
    it.effect("calls New York at 09:00, redials the busy number, completes", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T12:00:00Z") // Monday 07:00 in New York
        const { tenantId, agentId } = yield* TestKit.tenant({ balance: 10_000 })
        const voiceNumberId = yield* TestKit.voiceNumber(tenantId, "+14155550100")
        const contactListId = yield* TestKit.contactList(tenantId, [
          "+12125550030", // answers, talks 30 s
          "+12125559001" // always busy
        ])
        const campaigns = yield* Campaigns
        const campaign = yield* campaigns.create(tenantId, {
          name: "Renewals",
          agentId,
          voiceNumberId,
          contactListId,
          timezone: "America/New_York",
          callWindowStart: "09:00",
          callWindowEnd: "17:00",
          maxAttempts: 3,
          redialDelayMin: 30
        })
        yield* campaigns.schedule(tenantId, campaign.id, new Date("2026-11-23T14:00:00Z")) // 09:00 EST

        const dials = yield* TestKit.Dials
        yield* TestKit.advanceTo("2026-11-23T13:59:59Z")
        assert.lengthOf(yield* dials.all, 0, "nothing before 09:00")

        yield* TestKit.advanceTo("2026-11-23T14:00:01Z")
        assert.deepStrictEqual((yield* dials.all).map((d) => d.to), ["+12125550030", "+12125559001"])

        // the busy number is tried twice more, 30 minutes after each attempt ends
        yield* TestKit.advance("2 hours")
        const busy = yield* dials.to("+12125559001")
        assert.deepStrictEqual(busy.map((d) => new Date(d.at).toISOString()), [
          "2026-11-23T14:00:01.000Z",
          "2026-11-23T14:30:03.000Z",
          "2026-11-23T15:00:05.000Z"
        ])
        const done = yield* campaigns.get(tenantId, campaign.id)
        assert.deepInclude(done, { status: "COMPLETED", totalContacts: 2, dialedContacts: 2, answeredContacts: 1 })
      }))
  })
})
