/**
 * Recipient-local calling hours under the TestClock: a campaign dials each contact only inside its
 * own local hours (08:00-21:00 unless set otherwise), derived from the number, across the US
 * spring-forward; contacts outside them wait for their next opening while the others dial.
 *
 * The simulated carrier decides by the destination's last digits: `…9002` rings and is never
 * answered (the call ends at its 30 s ring timeout), `…0010` is answered and talks 10 s.
 */
import { assert, describe, it } from "@effect/vitest"
import { localParts } from "@voiceagent/domain/CallWindow"
import type { CampaignId, CreateCampaignRequest } from "@voiceagent/domain/Campaigns"
import type { TenantId } from "@voiceagent/domain/Ids"
import { timeZonesOf } from "@voiceagent/domain/RecipientHours"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import { campaignDials } from "@voiceagent/runner/Observability/PlatformMetrics"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect, Metric } from "effect"

const iso = (ms: number | Date) => new Date(ms).toISOString()
const SECOND = 1000

/** The campaign's own window: open all the time the tests look at. */
const ALWAYS = {
  timezone: "UTC",
  callWindowStart: "00:00",
  callWindowEnd: "23:59",
  callDays: [1, 2, 3, 4, 5, 6, 7]
} as const

const setup = (numbers: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { agentId, tenantId } = yield* TestKit.tenant({ balance: 10_000 })
    const voiceNumberId = yield* TestKit.voiceNumber(tenantId)
    const contactListId = yield* TestKit.contactList(tenantId, numbers)
    return { tenantId, agentId, voiceNumberId, contactListId }
  })

type Settings = Omit<CreateCampaignRequest, "name" | "agentId" | "voiceNumberId" | "contactListId">

const create = (fx: Effect.Effect.Success<ReturnType<typeof setup>>, settings: Settings) =>
  TestKit.campaign(fx.tenantId, {
    name: "Local hours",
    agentId: fx.agentId,
    voiceNumberId: fx.voiceNumberId,
    contactListId: fx.contactListId,
    ...settings
  })

const progress = (tenantId: TenantId, id: CampaignId) => Effect.flatMap(Campaigns, (c) => c.progress(tenantId, id))

/** Dials to `numbers`, as ISO instants per number. */
const dialsOf = (numbers: ReadonlyArray<string>) =>
  Effect.flatMap(TestKit.Dials, (dials) => dials.all).pipe(
    Effect.map((all) => new Map(numbers.map((n) => [n, all.filter((d) => d.to === n).map((d) => d.at)])))
  )

const held = Metric.value(Metric.tagged(campaignDials, "result", "held_local_hours")).pipe(Effect.map((s) => s.count))

/** Whether the wall clock reads within [start, end) in every zone the number may be in. */
const insideLocalHours = (phone: string, at: number, start = 8 * 60, end = 21 * 60) =>
  timeZonesOf(phone).every((zone) => {
    const p = localParts(zone, at)
    const minute = p.hour * 60 + p.minute
    return minute >= start && minute < end
  })

describe("recipient-local calling hours under the TestClock", () => {
  it.layer(TestKit.layer(), { timeout: 300_000 })("from Saturday 2026-03-07, 07:00 EST", (it) => {
    it.effect(
      "contacts in seven US zones and two ambiguous areas are each dialed inside their own 08:00-21:00, before and " +
        "after the spring-forward; none twice; the campaign completes",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-03-07T12:00:00Z")
          const campaigns = yield* Campaigns
          const n = {
            eastern: "+12125559002",
            central: "+13125550010",
            mountain: "+13035550010",
            arizona: "+16025559002",
            pacific: "+12135559002",
            idaho: "+12082400010",
            alaska: "+19075559002",
            hawaii: "+18085559002",
            tollFree: "+18005550010"
          }
          assert.deepStrictEqual(
            Object.fromEntries(
              Object.entries(n).map((
                [k, p]
              ) => [k, timeZonesOf(p).length > 2 ? `${timeZonesOf(p).length} zones` : timeZonesOf(p).join(" & ")])
            ),
            {
              eastern: "America/New_York",
              central: "America/Chicago",
              mountain: "America/Denver",
              arizona: "America/Phoenix",
              pacific: "America/Los_Angeles",
              idaho: "America/Boise & America/Los_Angeles",
              alaska: "America/Adak & America/Anchorage",
              hawaii: "Pacific/Honolulu",
              tollFree: "42 zones"
            },
            "the zones each number may be in"
          )
          const numbers = Object.values(n)
          const fx = yield* setup(numbers)
          // a redial 14 h after an unanswered call falls at 22:00 local: outside the hours, held until the next morning
          const c = yield* create(fx, {
            ...ALWAYS,
            maxAttempts: 2,
            redialDelayMin: 14 * 60,
            recipientCallingHours: { enabled: true }
          })
          assert.deepStrictEqual(c.recipientCallingHours, { enabled: true, start: "08:00", end: "21:00" })
          const heldBefore = yield* held

          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* TestKit.advance(0)
          const waiting = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual(
            [
              waiting.status,
              waiting.callWindowOpen,
              waiting.contacts.pending,
              waiting.contacts.awaitingLocalHours,
              waiting.attempts.total
            ],
            ["RUNNING", true, 9, 9, 0],
            "everyone is outside their hours at 07:00 EST: held, not attempted"
          )
          assert.strictEqual(
            waiting.nextAttemptAt && iso(waiting.nextAttemptAt),
            "2026-03-07T13:00:00.000Z",
            "08:00 EST"
          )

          yield* TestKit.advanceTo("2026-03-07T12:59:59.999Z")
          assert.deepStrictEqual([...(yield* dialsOf(numbers)).values()].flat(), [], "nothing before 08:00 in New York")

          // Sunday 10:00Z: the first round is over; the unanswered are held for Sunday morning
          yield* TestKit.advanceTo("2026-03-08T10:00:00Z")
          const overnight = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([
            overnight.contacts.pending,
            overnight.contacts.awaitingLocalHours,
            overnight.attempts.total
          ], [5, 5, 9])
          assert.strictEqual(
            overnight.nextAttemptAt && iso(overnight.nextAttemptAt),
            "2026-03-08T12:00:00.000Z",
            "08:00 EDT, no longer 13:00Z"
          )

          yield* TestKit.advanceTo("2026-03-08T19:00:00Z")
          const dials = yield* dialsOf(numbers)
          const expected: Record<keyof typeof n, ReadonlyArray<string>> = {
            eastern: ["2026-03-07T13:00:00Z", "2026-03-08T12:00:00Z"], // 08:00 EST, then 08:00 EDT
            central: ["2026-03-07T14:00:00Z"],
            mountain: ["2026-03-07T15:00:00Z"],
            arizona: ["2026-03-07T15:00:00Z", "2026-03-08T15:00:00Z"], // MST all year: the same instant
            pacific: ["2026-03-07T16:00:00Z", "2026-03-08T15:00:00Z"], // 08:00 PST, then 08:00 PDT
            idaho: ["2026-03-07T16:00:00Z"], // Los Angeles opens last
            alaska: ["2026-03-07T18:00:00Z", "2026-03-08T17:00:00Z"], // Adak opens last: 08:00 HST, then 08:00 HDT
            hawaii: ["2026-03-07T18:00:00Z", "2026-03-08T18:00:00Z"],
            tollFree: ["2026-03-07T22:00:00Z"] // 08:00 in Guam, 18:30 in St. John's
          }
          for (const [key, phone] of Object.entries(n) as Array<[keyof typeof n, string]>) {
            const at = dials.get(phone)!
            const want = expected[key].map(Date.parse)
            assert.strictEqual(at.length, want.length, `${key} dialed ${at.map(iso).join(", ")}`)
            // two contacts opening at one instant share the number's one dial a second
            at.forEach((t, i) =>
              assert.isTrue(
                t >= want[i]! && t < want[i]! + 3 * SECOND,
                `${key} #${i + 1} at ${iso(t)}, expected ${iso(want[i]!)}`
              )
            )
            for (const t of at) assert.isTrue(insideLocalHours(phone, t), `${key} at ${iso(t)} inside its local hours`)
          }

          const done = yield* progress(fx.tenantId, c.id)
          assert.strictEqual(done.status, "COMPLETED")
          assert.deepStrictEqual(done.contacts, {
            pending: 0,
            inProgress: 0,
            answered: 4,
            exhausted: 5,
            skipped: 0,
            cancelled: 0,
            awaitingLocalHours: 0
          })
          const attempts = yield* TestKit.attempts(fx.tenantId, c.id)
          assert.deepStrictEqual(attempts.length, 14, "a hold is not an attempt")
          assert.isTrue(attempts.every((a) => a.status === "ENDED"))
          // nine held at the start, five redials held overnight: each once, not once per look
          assert.strictEqual((yield* held) - heldBefore, 14)
        }),
      240_000
    )

    it.effect(
      "on top of the campaign's window: the first overlap of both; a contact whose hours never meet the window is " +
        "skipped (NO_CALLING_HOURS) and the campaign completes",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const n = { eastern: "+12125560010", pacific: "+12135560010", hawaii: "+18085560010" }
          const numbers = Object.values(n)
          const fx = yield* setup(numbers)
          // 09:00-14:00 New York every day, and 10:00-20:00 at the contact: Hawaii's 10:00 is 16:00 EDT
          const c = yield* create(fx, {
            timezone: "America/New_York",
            callWindowStart: "09:00",
            callWindowEnd: "14:00",
            callDays: [1, 2, 3, 4, 5, 6, 7],
            recipientCallingHours: { enabled: true, start: "10:00", end: "20:00" }
          })
          yield* campaigns.schedule(fx.tenantId, c.id, null) // Sunday 15:00 EDT: the window is closed
          yield* TestKit.advanceTo("2026-03-09T18:00:00Z")
          const dials = yield* dialsOf(numbers)
          assert.deepStrictEqual(
            dials.get(n.eastern)!.map(iso),
            ["2026-03-09T14:00:00.000Z"],
            "10:00 EDT, an hour into the window"
          )
          assert.deepStrictEqual(dials.get(n.pacific)!.map(iso), ["2026-03-09T17:00:00.000Z"], "10:00 PDT = 13:00 EDT")
          assert.deepStrictEqual(dials.get(n.hawaii), [])
          const attempts = yield* TestKit.attempts(fx.tenantId, c.id)
          assert.deepStrictEqual(
            attempts.filter((a) => a.phoneNumber === n.hawaii).map((a) => [a.status, a.skipReason, a.sessionId]),
            [[
              "SKIPPED",
              "NO_CALLING_HOURS",
              null
            ]]
          )
          const done = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([done.status, done.contacts.answered, done.contacts.skipped], ["COMPLETED", 2, 1])
        }),
      120_000
    )
  })
})
