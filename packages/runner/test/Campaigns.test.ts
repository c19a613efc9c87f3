/**
 * Voice campaigns under the TestClock, through the testing kit: scheduling, call windows (time
 * zones, weekdays, DST), redials, pause/resume/abort, deletion rules, the wallet, progress,
 * concurrency and the do-not-call list.
 *
 * The simulated carrier decides by the destination's last digits (…9001 busy, …9002 never answered,
 * …9003 carrier failure, …9004 refused; otherwise answered after the 2 s ring and talks for the last
 * three digits in seconds). Every test uses phone numbers of its own (`phone(block, i, tail)`), so
 * the kit's `Dials` are unambiguous, and a tenant of its own (so a voice number, a pacer and a
 * wallet of its own).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { CampaignId, CreateCampaignRequest } from "@voiceagent/domain/Campaigns"
import type { ContactListId, TenantId } from "@voiceagent/domain/Ids"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import { ContactsRepo } from "@voiceagent/runner/Contacts/ContactsRepo"
import { campaignsDialing } from "@voiceagent/runner/Observability/PlatformMetrics"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import { Clock, Effect, Metric } from "effect"

const SECOND = 1000
const MINUTE = 60 * SECOND

const iso = (ms: number | Date) => new Date(ms).toISOString()

/** `+1 646 <block> <i> <tail>`: a number of test `block`; `tail` (4 digits) picks the carrier's behaviour. */
const phone = (block: number, i: number, tail: string) => `+1646${String(block).padStart(2, "0")}${i}${tail}`

/** Open at every instant of a test that does not cross midnight UTC. */
const ALWAYS = {
  timezone: "UTC",
  callWindowStart: "00:00",
  callWindowEnd: "23:59",
  callDays: [1, 2, 3, 4, 5, 6, 7]
} as const

const now = Clock.currentTimeMillis

/** A tenant (own wallet), an agent, a voice number (own pacer) and a list of `numbers`. */
const setup = (numbers: ReadonlyArray<string>, options: { readonly balance?: number } = {}) =>
  Effect.gen(function*() {
    const { agentId, tenantId } = yield* TestKit.tenant({ balance: options.balance ?? 10_000 })
    const voiceNumberId = yield* TestKit.voiceNumber(tenantId)
    const contactListId = yield* TestKit.contactList(tenantId, numbers)
    return { tenantId, agentId, voiceNumberId, contactListId }
  })

type Fixture = Effect.Effect.Success<ReturnType<typeof setup>>
type Settings = Omit<CreateCampaignRequest, "name" | "agentId" | "voiceNumberId" | "contactListId">

const create = (fx: Fixture, settings: Settings = ALWAYS, name = "Campaign") =>
  TestKit.campaign(fx.tenantId, {
    name,
    agentId: fx.agentId,
    voiceNumberId: fx.voiceNumberId,
    contactListId: fx.contactListId,
    ...settings
  })

/** When the carrier accepted dials to `number`, as ISO instants. */
const dialsTo = (number: string) =>
  Effect.flatMap(TestKit.Dials, (dials) => dials.to(number)).pipe(Effect.map((ds) => ds.map((d) => iso(d.at))))

/** The dials to any of `numbers`, in order, as `[number, ISO instant]`. */
const dialsAmong = (numbers: ReadonlyArray<string>) =>
  Effect.flatMap(TestKit.Dials, (dials) => dials.all).pipe(
    Effect.map((ds) => ds.filter((d) => numbers.includes(d.to)).map((d) => [d.to, iso(d.at)] as const))
  )

const get = (tenantId: TenantId, id: CampaignId) => Effect.flatMap(Campaigns, (c) => c.get(tenantId, id))

const progress = (tenantId: TenantId, id: CampaignId) => Effect.flatMap(Campaigns, (c) => c.progress(tenantId, id))

/** The attempts as `[phone, attempt number, status, outcome]`, in the order listed. */
const attemptRows = (tenantId: TenantId, id: CampaignId) =>
  Effect.map(
    TestKit.attempts(tenantId, id),
    (rows) => rows.map((a) => [a.phoneNumber, a.attemptNumber, a.status, a.outcome] as const)
  )

/** The error's tag (the effect must fail). */
const failureTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e) => e._tag)

const sql = SqlClient.SqlClient

/** Adds contacts to an existing list. */
const addContacts = (tenantId: TenantId, listId: ContactListId, numbers: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const contacts = yield* ContactsRepo
    const db = yield* sql
    yield* contacts.insertMany(
      { tenantId, listId },
      numbers.map((phoneNumber) => ({ phoneNumber, name: null, email: null, metadata: {} }))
    ).pipe(db.withTransaction, Effect.orDie)
  })

/** The largest number of attempts whose calls overlap ([dialedAt, endedAt)). */
const maxOverlap = (attempts: ReadonlyArray<{ readonly dialedAt: Date | null; readonly endedAt: Date | null }>) => {
  const edges = attempts.flatMap((a) => [[a.dialedAt!.getTime(), 1], [a.endedAt!.getTime(), -1]] as const)
  // at one instant, an end comes before a start: the slot is free again
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  let open = 0
  let max = 0
  for (const [, delta] of edges) {
    open += delta
    max = Math.max(max, open)
  }
  return max
}

// Each layer is named (its own describe): two unnamed `it.layer(TestKit.layer())` in one describe are
// both built before the first test, and the second fails ("Singleton 'webhook-dispatcher' is already
// registered").
describe("campaigns under the TestClock", () => {
  // -------------------------------------------------------------------------------------------
  // Sunday 2026-11-01, 01:00 EDT: US daylight time ends at 06:00Z (02:00 EDT -> 01:00 EST). New
  // York and Kolkata windows first, then the campaign lifecycle with an always-open UTC window
  // from about 18:30Z on.
  // -------------------------------------------------------------------------------------------
  it.layer(TestKit.layer(), { timeout: 300_000 })("from Sunday 2026-11-01, 01:00 EDT", (it) => {
    it.effect(
      "New York: a campaign started outside its window dials at the next opening, 09:00 EST after the fall-back " +
        "(14:00Z, not 13:00Z)",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-11-01T05:00:00Z")
          const campaigns = yield* Campaigns
          const numbers = [phone(1, 0, "0010"), phone(1, 1, "0020")]
          const later = [phone(1, 2, "0010")]
          const fx = yield* setup(numbers)
          const fx2 = yield* setup(later)
          const window = {
            timezone: "America/New_York",
            callWindowStart: "09:00",
            callWindowEnd: "17:00",
            callDays: [1, 2, 3, 4, 5, 6, 7]
          }
          const now1 = yield* create(fx, window)
          const at0700 = yield* create(fx2, window)

          yield* campaigns.schedule(fx.tenantId, now1.id, null)
          // scheduled for 07:00 EST, still outside the window: started then, dialing at 09:00
          const scheduled = yield* campaigns.schedule(fx2.tenantId, at0700.id, new Date("2026-11-01T12:00:00Z"))
          assert.strictEqual(iso(scheduled.scheduledAt), "2026-11-01T12:00:00.000Z")
          yield* TestKit.advance(0)

          const waiting = yield* progress(fx.tenantId, now1.id)
          assert.deepStrictEqual(
            [
              waiting.status,
              waiting.totalContacts,
              waiting.callWindowOpen,
              waiting.nextWindowOpensAt && iso(waiting.nextWindowOpensAt)
            ],
            ["RUNNING", 2, false, "2026-11-01T14:00:00.000Z"]
          )
          const notYet = yield* progress(fx2.tenantId, at0700.id)
          assert.deepStrictEqual([notYet.status, notYet.totalContacts], ["SCHEDULED", 0])

          yield* TestKit.advanceTo("2026-11-01T12:00:00Z")
          const started = yield* get(fx2.tenantId, at0700.id)
          assert.deepStrictEqual([started.status, started.totalContacts, started.startedAt && iso(started.startedAt)], [
            "RUNNING",
            1,
            "2026-11-01T12:00:00.000Z"
          ])

          yield* TestKit.advanceTo("2026-11-01T13:59:59.999Z")
          assert.deepStrictEqual(
            yield* dialsAmong([...numbers, ...later]),
            [],
            "09:00 EDT (13:00Z) is not 09:00 on this day"
          )

          yield* TestKit.advanceTo("2026-11-01T14:00:40Z")
          assert.deepStrictEqual(yield* dialsAmong(numbers), [
            [numbers[0]!, "2026-11-01T14:00:00.000Z"],
            [numbers[1]!, "2026-11-01T14:00:01.000Z"]
          ])
          assert.deepStrictEqual(yield* dialsTo(later[0]!), ["2026-11-01T14:00:00.000Z"])
          const done = yield* get(fx.tenantId, now1.id)
          // the second call: dialed 14:00:01, answered 2 s later, 20 s of talk
          assert.deepStrictEqual([done.status, done.completedAt && iso(done.completedAt)], [
            "COMPLETED",
            "2026-11-01T14:00:23.000Z"
          ])
        }),
      120_000
    )

    it.effect(
      "Asia/Kolkata (UTC+05:30): windows open and close on the half hour, and weekdays are local",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          // 21:00-22:00 IST every day = 15:30Z-16:30Z
          const evening = [phone(2, 0, "0010"), phone(2, 1, "9001")]
          // 00:00-01:00 IST on Mondays only: Monday 00:00 IST is Sunday 18:30Z
          const monday = [phone(2, 2, "0010")]
          const fx = yield* setup(evening)
          const fx2 = yield* setup(monday)
          const eveningCampaign = yield* create(fx, {
            timezone: "Asia/Kolkata",
            callWindowStart: "21:00",
            callWindowEnd: "22:00",
            callDays: [1, 2, 3, 4, 5, 6, 7],
            maxAttempts: 2,
            redialDelayMin: 60
          })
          const mondayCampaign = yield* create(fx2, {
            timezone: "Asia/Kolkata",
            callWindowStart: "00:00",
            callWindowEnd: "01:00",
            callDays: [1]
          })
          assert.isTrue((yield* now) < Date.parse("2026-11-01T15:00:00Z"))
          yield* campaigns.schedule(fx.tenantId, eveningCampaign.id, null)
          yield* campaigns.schedule(fx2.tenantId, mondayCampaign.id, null)
          yield* TestKit.advance(0)
          const p1 = yield* progress(fx.tenantId, eveningCampaign.id)
          const p2 = yield* progress(fx2.tenantId, mondayCampaign.id)
          assert.deepStrictEqual(p1.nextWindowOpensAt && iso(p1.nextWindowOpensAt), "2026-11-01T15:30:00.000Z")
          assert.deepStrictEqual(p2.nextWindowOpensAt && iso(p2.nextWindowOpensAt), "2026-11-01T18:30:00.000Z")

          yield* TestKit.advanceTo("2026-11-01T15:29:59.999Z")
          assert.deepStrictEqual(yield* dialsAmong([...evening, ...monday]), [])
          yield* TestKit.advanceTo("2026-11-01T18:29:59.999Z")
          // the busy number ends at 15:30:03Z; its redial (16:30:03Z) falls after the 16:30Z close: the next evening
          assert.deepStrictEqual(yield* dialsAmong(evening), [
            [evening[0]!, "2026-11-01T15:30:00.000Z"],
            [evening[1]!, "2026-11-01T15:30:01.000Z"]
          ])
          const p3 = yield* progress(fx.tenantId, eveningCampaign.id)
          assert.deepStrictEqual(
            [
              p3.status,
              p3.callWindowOpen,
              p3.nextWindowOpensAt && iso(p3.nextWindowOpensAt),
              p3.contacts.pending,
              p3.contacts.answered
            ],
            ["RUNNING", false, "2026-11-02T15:30:00.000Z", 1, 1]
          )
          assert.deepStrictEqual(yield* dialsTo(monday[0]!), [], "Sunday in UTC and in Kolkata until 18:30Z")

          yield* TestKit.advanceTo("2026-11-01T18:30:15Z")
          assert.deepStrictEqual(yield* dialsTo(monday[0]!), ["2026-11-01T18:30:00.000Z"])
          assert.strictEqual((yield* get(fx2.tenantId, mondayCampaign.id)).status, "COMPLETED")
          // the evening campaign still waits for Monday evening
          yield* campaigns.abort(fx.tenantId, eveningCampaign.id)
        }),
      60_000
    )

    // From here on the window is always open (UTC, all day), and the clock is past 18:30Z.

    it.effect(
      "schedule(at) dials exactly at `at`; the list is snapshotted then (totalContacts), not before or after",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const numbers = [phone(3, 0, "0010"), phone(3, 1, "0020")]
          const addedBeforeStart = phone(3, 2, "0030")
          const addedAfterStart = phone(3, 3, "0040")
          const fx = yield* setup(numbers)
          const c = yield* create(fx)
          assert.deepStrictEqual([c.status, c.totalContacts, c.scheduledAt, c.startedAt], ["DRAFT", 0, null, null])
          const t0 = yield* now
          const start = t0 + 10 * MINUTE
          const scheduled = yield* campaigns.schedule(fx.tenantId, c.id, new Date(start))
          assert.deepStrictEqual([scheduled.status, iso(scheduled.scheduledAt)], ["SCHEDULED", iso(start)])

          yield* TestKit.advanceTo(start - 1)
          const before = yield* get(fx.tenantId, c.id)
          assert.deepStrictEqual([before.status, before.totalContacts, before.startedAt], ["SCHEDULED", 0, null])
          assert.deepStrictEqual(yield* dialsAmong([...numbers, addedBeforeStart]), [])
          // a contact added while the campaign is only scheduled is in the snapshot
          yield* addContacts(fx.tenantId, fx.contactListId, [addedBeforeStart])

          yield* TestKit.advanceTo(start)
          const started = yield* get(fx.tenantId, c.id)
          assert.deepStrictEqual([started.status, started.totalContacts, started.startedAt && iso(started.startedAt)], [
            "RUNNING",
            3,
            iso(start)
          ])
          assert.deepStrictEqual(yield* dialsTo(numbers[0]!), [iso(start)])
          // one added once dialing has started is not
          yield* addContacts(fx.tenantId, fx.contactListId, [addedAfterStart])

          yield* TestKit.advanceTo(start + 2 * MINUTE)
          assert.deepStrictEqual(yield* dialsAmong([...numbers, addedBeforeStart, addedAfterStart]), [
            [numbers[0]!, iso(start)],
            [numbers[1]!, iso(start + SECOND)],
            [addedBeforeStart, iso(start + 2 * SECOND)]
          ])
          const done = yield* get(fx.tenantId, c.id)
          // the last call: dialed at +2 s, answered at +4 s, 30 s of talk
          assert.deepStrictEqual([done.status, done.totalContacts, done.completedAt && iso(done.completedAt)], [
            "COMPLETED",
            3,
            iso(start + 34 * SECOND)
          ])
        })
    )

    it.effect("rescheduling a SCHEDULED campaign moves its start, earlier or later", () =>
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const earlier = [phone(4, 0, "0005")]
        const later = [phone(4, 1, "0005")]
        const fxEarlier = yield* setup(earlier)
        const fxLater = yield* setup(later)
        const a = yield* create(fxEarlier)
        const b = yield* create(fxLater)
        const t0 = yield* now
        yield* campaigns.schedule(fxEarlier.tenantId, a.id, new Date(t0 + 30 * MINUTE))
        yield* campaigns.schedule(fxLater.tenantId, b.id, new Date(t0 + 10 * MINUTE))
        yield* TestKit.advance(MINUTE)
        const moved = yield* campaigns.schedule(fxEarlier.tenantId, a.id, new Date(t0 + 5 * MINUTE))
        const postponed = yield* campaigns.schedule(fxLater.tenantId, b.id, new Date(t0 + 20 * MINUTE))
        assert.deepStrictEqual([iso(moved.scheduledAt), iso(postponed.scheduledAt)], [
          iso(t0 + 5 * MINUTE),
          iso(t0 + 20 * MINUTE)
        ])

        yield* TestKit.advanceTo(t0 + 31 * MINUTE)
        assert.deepStrictEqual(yield* dialsTo(earlier[0]!), [iso(t0 + 5 * MINUTE)])
        assert.deepStrictEqual(yield* dialsTo(later[0]!), [iso(t0 + 20 * MINUTE)])
        const [ra, rb] = [yield* get(fxEarlier.tenantId, a.id), yield* get(fxLater.tenantId, b.id)]
        assert.deepStrictEqual([ra.status, ra.startedAt && iso(ra.startedAt)], ["COMPLETED", iso(t0 + 5 * MINUTE)])
        assert.deepStrictEqual([rb.status, rb.startedAt && iso(rb.startedAt)], ["COMPLETED", iso(t0 + 20 * MINUTE)])
      }))

    it.effect("schedule(null) and schedule(<past>) inside the window dial at once", () =>
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const first = [phone(5, 0, "0005"), phone(5, 1, "0005")]
        const second = [phone(5, 2, "0005")]
        const fx = yield* setup(first)
        const fx2 = yield* setup(second)
        const a = yield* create(fx)
        const b = yield* create(fx2)
        const t0 = yield* now
        const sa = yield* campaigns.schedule(fx.tenantId, a.id, null)
        const sb = yield* campaigns.schedule(fx2.tenantId, b.id, new Date(t0 - 3 * 3_600_000))
        assert.deepStrictEqual([iso(sa.scheduledAt), iso(sb.scheduledAt)], [iso(t0), iso(t0)], "a past time means now")
        yield* TestKit.advance(0)
        assert.deepStrictEqual(yield* dialsTo(first[0]!), [iso(t0)])
        assert.deepStrictEqual(yield* dialsTo(second[0]!), [iso(t0)])
        yield* TestKit.advance(20 * SECOND)
        assert.deepStrictEqual(yield* dialsTo(first[1]!), [iso(t0 + SECOND)])
        for (const [tenantId, id] of [[fx.tenantId, a.id], [fx2.tenantId, b.id]] as const) {
          const c = yield* get(tenantId, id)
          assert.deepStrictEqual([c.status, c.startedAt && iso(c.startedAt)], ["COMPLETED", iso(t0)])
        }
      }))

    it.effect(
      "redials unanswered, busy and failed contacts after redialDelayMin until maxAttempts; an answer is final",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const [noAnswer, busy, failed, refused, answered] = [
            phone(6, 0, "9002"),
            phone(6, 1, "9001"),
            phone(6, 2, "9003"),
            phone(6, 3, "9004"),
            phone(6, 4, "0005")
          ] as const
          const fx = yield* setup([noAnswer, busy, failed, refused, answered])
          const c = yield* create(fx, { ...ALWAYS, dialTimeout: 10, maxAttempts: 3, redialDelayMin: 5 })
          const t0 = yield* now
          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* TestKit.advance(12 * MINUTE)
          const at = (seconds: number) => iso(t0 + seconds * SECOND)

          // first round, one dial a second; the ends: no answer +10 (timeout), busy +3, failed +4,
          // refused +3 (at its dial), answered +11. Redials 300 s after each end, one dial a second.
          assert.deepStrictEqual(yield* dialsTo(noAnswer), [at(0), at(310), at(620)])
          assert.deepStrictEqual(yield* dialsTo(busy), [at(1), at(303), at(605)])
          assert.deepStrictEqual(yield* dialsTo(failed), [at(2), at(305), at(607)])
          assert.deepStrictEqual(yield* dialsTo(refused), [], "the carrier refused it: never dialed")
          assert.deepStrictEqual(yield* dialsTo(answered), [at(4)])

          const attempts = yield* TestKit.attempts(fx.tenantId, c.id)
          const of = (number: string) => attempts.filter((a) => a.phoneNumber === number)
          const summary = (number: string) => of(number).map((a) => [a.attemptNumber, a.status, a.outcome])
          assert.deepStrictEqual(summary(noAnswer), [[1, "ENDED", "UNANSWERED"], [2, "ENDED", "UNANSWERED"], [
            3,
            "ENDED",
            "UNANSWERED"
          ]])
          assert.deepStrictEqual(summary(busy), [[1, "ENDED", "BUSY"], [2, "ENDED", "BUSY"], [3, "ENDED", "BUSY"]])
          assert.deepStrictEqual(summary(failed), [[1, "ENDED", "FAILED"], [2, "ENDED", "FAILED"], [
            3,
            "ENDED",
            "FAILED"
          ]])
          assert.deepStrictEqual(summary(refused), [[1, "ENDED", "FAILED"], [2, "ENDED", "FAILED"], [
            3,
            "ENDED",
            "FAILED"
          ]])
          assert.deepStrictEqual(summary(answered), [[1, "ENDED", "ANSWERED"]])
          // an unanswered call rings for dialTimeout (10 s)
          for (const a of of(noAnswer)) assert.strictEqual(a.endedAt!.getTime() - a.dialedAt!.getTime(), 10 * SECOND)
          // each redial is at least redialDelayMin after the previous attempt's end
          for (const number of [noAnswer, busy, failed, refused]) {
            const rows = of(number)
            for (let i = 1; i < rows.length; i++) {
              assert.isAtLeast(rows[i]!.dialedAt!.getTime() - rows[i - 1]!.endedAt!.getTime(), 5 * MINUTE)
            }
          }
          assert.deepStrictEqual(of(refused).map((a) => iso(a.dialedAt!)), [at(3), at(304), at(604)])

          const done = yield* get(fx.tenantId, c.id)
          assert.deepStrictEqual(
            [
              done.status,
              done.totalContacts,
              done.dialedContacts,
              done.answeredContacts,
              done.completedAt && iso(done.completedAt)
            ],
            ["COMPLETED", 5, 5, 1, at(630)],
            "contacts are counted, not attempts"
          )
          const p = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual(p.contacts, {
            pending: 0,
            inProgress: 0,
            answered: 1,
            exhausted: 4,
            skipped: 0,
            cancelled: 0,
            awaitingLocalHours: 0
          })
          assert.deepStrictEqual(p.attempts, {
            total: 13,
            inProgress: 0,
            answered: 1,
            unanswered: 3,
            busy: 3,
            failed: 6,
            canceled: 0
          })
          assert.strictEqual(p.answerRate, 1 / 5)
        })
    )

    it.effect(
      "pause stops new dials while calls in progress finish; resume carries on; pause is refused outside RUNNING",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const numbers = [0, 1, 2, 3, 4].map((i) => phone(7, i, "0030"))
          const fx = yield* setup(numbers)
          const c = yield* create(fx)
          assert.strictEqual(yield* failureTag(campaigns.pause(fx.tenantId, c.id)), "CampaignStateConflict", "DRAFT")
          assert.strictEqual(yield* failureTag(campaigns.resume(fx.tenantId, c.id)), "CampaignStateConflict", "DRAFT")
          const t0 = yield* now
          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* TestKit.advance(1500)
          assert.strictEqual(yield* failureTag(campaigns.resume(fx.tenantId, c.id)), "CampaignStateConflict", "RUNNING")
          const paused = yield* campaigns.pause(fx.tenantId, c.id)
          assert.deepStrictEqual([paused.status, paused.statusReason], ["PAUSED", "PAUSED_BY_USER"])
          assert.strictEqual(yield* failureTag(campaigns.pause(fx.tenantId, c.id)), "CampaignStateConflict", "PAUSED")

          yield* TestKit.advance(5 * MINUTE)
          assert.deepStrictEqual(yield* dialsAmong(numbers), [[numbers[0]!, iso(t0)], [numbers[1]!, iso(t0 + SECOND)]])
          // the two calls were not cut: each talked its 30 s
          const calls = yield* TestKit.attempts(fx.tenantId, c.id)
          assert.deepStrictEqual(calls.map((a) => [a.outcome, iso(a.endedAt!)]), [
            ["ANSWERED", iso(t0 + 32 * SECOND)],
            ["ANSWERED", iso(t0 + 33 * SECOND)]
          ])
          const p = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual(
            [p.status, p.statusReason, p.contacts.pending, p.contacts.answered, p.nextWindowOpensAt],
            [
              "PAUSED",
              "PAUSED_BY_USER",
              3,
              2,
              null
            ]
          )

          const t1 = yield* now
          const resumed = yield* campaigns.resume(fx.tenantId, c.id)
          assert.deepStrictEqual([resumed.status, resumed.statusReason], ["RUNNING", null])
          yield* TestKit.advance(MINUTE)
          assert.deepStrictEqual((yield* dialsAmong(numbers)).slice(2), [
            [numbers[2]!, iso(t1)],
            [numbers[3]!, iso(t1 + SECOND)],
            [numbers[4]!, iso(t1 + 2 * SECOND)]
          ])
          const done = yield* get(fx.tenantId, c.id)
          assert.deepStrictEqual([
            done.status,
            done.dialedContacts,
            done.answeredContacts,
            done.completedAt && iso(done.completedAt)
          ], [
            "COMPLETED",
            5,
            5,
            iso(t1 + 34 * SECOND)
          ])
          assert.strictEqual(
            yield* failureTag(campaigns.pause(fx.tenantId, c.id)),
            "CampaignStateConflict",
            "COMPLETED"
          )
        })
    )

    it.effect(
      "abort from SCHEDULED, RUNNING and PAUSED: FAILED with ABORTED, and pending contacts are never dialed",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const scheduledNumbers = [phone(8, 0, "0005")]
          const runningNumbers = [phone(8, 1, "9001"), phone(8, 2, "0010"), phone(8, 3, "0010"), phone(8, 4, "0010")]
          const pausedNumbers = [phone(8, 5, "0010"), phone(8, 6, "0010")]
          const fxS = yield* setup(scheduledNumbers)
          const fxR = yield* setup(runningNumbers)
          const fxP = yield* setup(pausedNumbers)
          const s = yield* create(fxS)
          const r = yield* create(fxR, { ...ALWAYS, maxAttempts: 3, redialDelayMin: 1 })
          const p = yield* create(fxP, { ...ALWAYS, maxAttempts: 2, redialDelayMin: 1 })
          assert.strictEqual(yield* failureTag(campaigns.abort(fxS.tenantId, s.id)), "CampaignStateConflict", "DRAFT")
          const t0 = yield* now

          yield* campaigns.schedule(fxS.tenantId, s.id, new Date(t0 + 2 * MINUTE))
          yield* campaigns.schedule(fxR.tenantId, r.id, null)
          yield* campaigns.schedule(fxP.tenantId, p.id, new Date(t0 + MINUTE))
          yield* TestKit.advance(1500)
          const abortedScheduled = yield* campaigns.abort(fxS.tenantId, s.id)
          const abortedRunning = yield* campaigns.abort(fxR.tenantId, r.id)
          assert.deepStrictEqual([abortedScheduled.status, abortedScheduled.statusReason], ["FAILED", "ABORTED"])
          assert.deepStrictEqual([abortedRunning.status, abortedRunning.statusReason], ["FAILED", "ABORTED"])

          yield* TestKit.advanceTo(t0 + MINUTE + 500)
          yield* campaigns.pause(fxP.tenantId, p.id)
          const abortedPaused = yield* campaigns.abort(fxP.tenantId, p.id)
          assert.deepStrictEqual([abortedPaused.status, abortedPaused.statusReason], ["FAILED", "ABORTED"])
          for (const [tenantId, id] of [[fxS.tenantId, s.id], [fxR.tenantId, r.id], [fxP.tenantId, p.id]] as const) {
            assert.strictEqual(yield* failureTag(campaigns.resume(tenantId, id)), "CampaignStateConflict")
            assert.strictEqual(yield* failureTag(campaigns.abort(tenantId, id)), "CampaignStateConflict")
          }

          yield* TestKit.advance(10 * MINUTE)
          assert.deepStrictEqual(yield* dialsAmong(scheduledNumbers), [], "its time came after the abort")
          // dialed before the abort: the busy one (not redialed) and the first answered one
          assert.deepStrictEqual(yield* dialsAmong(runningNumbers), [[runningNumbers[0]!, iso(t0)], [
            runningNumbers[1]!,
            iso(t0 + SECOND)
          ]])
          assert.deepStrictEqual(yield* dialsAmong(pausedNumbers), [[pausedNumbers[0]!, iso(t0 + MINUTE)]])

          const sAfter = yield* get(fxS.tenantId, s.id)
          assert.deepStrictEqual([sAfter.status, sAfter.statusReason, sAfter.totalContacts, sAfter.startedAt], [
            "FAILED",
            "ABORTED",
            0,
            null
          ])
          const rProgress = yield* progress(fxR.tenantId, r.id)
          assert.deepStrictEqual([rProgress.status, rProgress.statusReason], ["FAILED", "ABORTED"])
          // the call in progress at the abort was answered; the busy one is not redialed; two never dialed
          assert.deepStrictEqual(rProgress.contacts, {
            pending: 0,
            inProgress: 0,
            answered: 1,
            exhausted: 0,
            skipped: 0,
            cancelled: 3,
            awaitingLocalHours: 0
          })
          assert.deepStrictEqual(yield* attemptRows(fxR.tenantId, r.id), [
            [runningNumbers[0]!, 1, "ENDED", "BUSY"],
            [runningNumbers[1]!, 1, "ENDED", "ANSWERED"]
          ])
          const pProgress = yield* progress(fxP.tenantId, p.id)
          assert.deepStrictEqual([
            pProgress.status,
            pProgress.dialedContacts,
            pProgress.contacts.cancelled,
            pProgress.contacts.answered
          ], [
            "FAILED",
            1,
            1,
            1
          ])
        })
    )

    it.effect(
      "delete: DRAFT, COMPLETED and FAILED campaigns go (with their attempts); SCHEDULED, RUNNING and PAUSED ones " +
        "are refused",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const db = yield* sql
          const numbers = [phone(9, 0, "0060"), phone(9, 1, "0060")]
          const fx = yield* setup(numbers)
          const rowsOf = (id: CampaignId) =>
            Effect.orDie(db<{ attempts: number; contacts: number }>`
            SELECT (SELECT count(*)::int FROM campaign_attempts WHERE campaign_id = ${id}) AS attempts,
                   (SELECT count(*)::int FROM campaign_contacts WHERE campaign_id = ${id}) AS contacts
          `).pipe(Effect.map(([row]) => [row!.attempts, row!.contacts]))
          const expectGone = (id: CampaignId) =>
            Effect.gen(function*() {
              assert.strictEqual(yield* failureTag(campaigns.get(fx.tenantId, id)), "CampaignNotFound")
              assert.strictEqual(
                yield* failureTag(campaigns.attempts(fx.tenantId, id, { page: 1, pageSize: 10 })),
                "CampaignNotFound"
              )
              assert.strictEqual(yield* failureTag(campaigns.remove(fx.tenantId, id)), "CampaignNotFound")
              assert.deepStrictEqual(yield* rowsOf(id), [0, 0])
            })

          const draft = yield* create(fx, ALWAYS, "draft")
          yield* campaigns.remove(fx.tenantId, draft.id)
          yield* expectGone(draft.id)

          const c = yield* create(fx, ALWAYS, "lifecycle")
          const t0 = yield* now
          yield* campaigns.schedule(fx.tenantId, c.id, new Date(t0 + MINUTE))
          assert.strictEqual(yield* failureTag(campaigns.remove(fx.tenantId, c.id)), "CampaignActive", "SCHEDULED")
          yield* TestKit.advanceTo(t0 + MINUTE + 500)
          assert.strictEqual((yield* get(fx.tenantId, c.id)).status, "RUNNING")
          assert.strictEqual(yield* failureTag(campaigns.remove(fx.tenantId, c.id)), "CampaignActive", "RUNNING")
          yield* campaigns.pause(fx.tenantId, c.id)
          assert.strictEqual(yield* failureTag(campaigns.remove(fx.tenantId, c.id)), "CampaignActive", "PAUSED")
          yield* campaigns.resume(fx.tenantId, c.id)
          yield* TestKit.advance(2 * MINUTE)
          assert.strictEqual((yield* get(fx.tenantId, c.id)).status, "COMPLETED")
          assert.deepStrictEqual(yield* rowsOf(c.id), [2, 2])
          yield* campaigns.remove(fx.tenantId, c.id)
          yield* expectGone(c.id)

          const aborted = yield* create(fx, ALWAYS, "aborted")
          yield* campaigns.schedule(fx.tenantId, aborted.id, new Date((yield* now) + MINUTE))
          yield* campaigns.abort(fx.tenantId, aborted.id)
          yield* campaigns.remove(fx.tenantId, aborted.id)
          yield* expectGone(aborted.id)
          assert.deepStrictEqual((yield* campaigns.list(fx.tenantId, undefined, { page: 1, pageSize: 10 })).total, 0)
        })
    )

    it.effect(
      "an empty wallet pauses the campaign (INSUFFICIENT_FUNDS); after a top-up, resume completes it, and the wallet " +
        "is charged exactly the calls' costs",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const db = yield* sql
          // each call: one 120 s chunk (10) reserved; 60 s of talk costs 5
          const numbers = [phone(10, 0, "0060"), phone(10, 1, "0060"), phone(10, 2, "0060")]
          const fx = yield* setup(numbers, { balance: 12 })
          const c = yield* create(fx)
          const t0 = yield* now
          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* TestKit.advance(1500)
          const paused = yield* get(fx.tenantId, c.id)
          assert.deepStrictEqual([paused.status, paused.statusReason, iso(paused.updatedAt)], [
            "PAUSED",
            "INSUFFICIENT_FUNDS",
            iso(t0 + SECOND)
          ])

          yield* TestKit.advance(10 * MINUTE)
          assert.deepStrictEqual(yield* dialsAmong(numbers), [[numbers[0]!, iso(t0)]], "no dial while paused")
          assert.deepStrictEqual(
            yield* attemptRows(fx.tenantId, c.id),
            [[numbers[0]!, 1, "ENDED", "ANSWERED"]],
            "the refused dial left no attempt"
          )
          assert.strictEqual((yield* get(fx.tenantId, c.id)).status, "PAUSED")
          assert.deepStrictEqual(
            yield* TestKit.balance(fx.tenantId),
            { currency: "USD", balance: 7, reserved: 0, available: 7 } as any
          )

          yield* TestKit.topUp(fx.tenantId, 20)
          const t1 = yield* now
          yield* campaigns.resume(fx.tenantId, c.id)
          yield* TestKit.advance(2 * MINUTE)
          assert.deepStrictEqual(yield* dialsAmong(numbers), [
            [numbers[0]!, iso(t0)],
            [numbers[1]!, iso(t1)],
            [numbers[2]!, iso(t1 + SECOND)]
          ])
          const done = yield* get(fx.tenantId, c.id)
          assert.deepStrictEqual([done.status, done.statusReason, done.dialedContacts, done.answeredContacts], [
            "COMPLETED",
            null,
            3,
            3
          ])
          const [charged] = yield* Effect.orDie(db<{ total: number; calls: number }>`
          SELECT coalesce(sum(cost), 0)::int AS total, count(*)::int AS calls FROM call_sessions
            WHERE campaign_id = ${c.id}
        `)
          assert.deepStrictEqual([charged!.calls, charged!.total], [3, 15])
          assert.deepStrictEqual(
            yield* TestKit.balance(fx.tenantId),
            { currency: "USD", balance: 12 + 20 - 15, reserved: 0, available: 17 } as any
          )
        })
    )

    it.effect(
      "progress: contacts by state, attempts by outcome, answer rate, the next window and the next redial",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const [first, busy, second] = [phone(11, 0, "0010"), phone(11, 1, "9001"), phone(11, 2, "0020")] as const
          const fx = yield* setup([first, busy, second])
          // a UTC window that opens at the next full hour (today, before midnight)
          const t0 = yield* now
          const opens = Math.ceil((t0 + 1) / 3_600_000) * 3_600_000
          assert.isBelow(new Date(opens).getUTCHours(), 23)
          const hhmm = (ms: number) => iso(ms).slice(11, 16)
          const c = yield* create(fx, {
            timezone: "UTC",
            callWindowStart: hhmm(opens),
            callWindowEnd: hhmm(opens + 3_600_000),
            callDays: [1, 2, 3, 4, 5, 6, 7],
            maxAttempts: 2,
            redialDelayMin: 5
          })
          const draft = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([
            draft.status,
            draft.totalContacts,
            draft.attempts.total,
            draft.answerRate,
            draft.nextWindowOpensAt
          ], [
            "DRAFT",
            0,
            0,
            null,
            null
          ])
          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* TestKit.advance(0)
          const waiting = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual(
            [
              waiting.status,
              waiting.callWindowOpen,
              waiting.nextWindowOpensAt && iso(waiting.nextWindowOpensAt),
              waiting.totalContacts
            ],
            ["RUNNING", false, iso(opens), 3]
          )
          assert.deepStrictEqual(waiting.contacts, {
            pending: 3,
            inProgress: 0,
            answered: 0,
            exhausted: 0,
            skipped: 0,
            cancelled: 0,
            awaitingLocalHours: 0
          })
          assert.deepStrictEqual([waiting.attempts.total, waiting.dialedContacts, waiting.answerRate], [0, 0, null])

          // +1.5 s: two calls ringing
          yield* TestKit.advanceTo(opens + 1500)
          const ringing = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([
            ringing.callWindowOpen,
            ringing.nextWindowOpensAt,
            ringing.dialedContacts,
            ringing.answerRate
          ], [true, null, 2, 0])
          assert.deepStrictEqual(ringing.contacts, {
            pending: 1,
            inProgress: 2,
            answered: 0,
            exhausted: 0,
            skipped: 0,
            cancelled: 0,
            awaitingLocalHours: 0
          })
          assert.deepStrictEqual(ringing.attempts, {
            total: 2,
            inProgress: 2,
            answered: 0,
            unanswered: 0,
            busy: 0,
            failed: 0,
            canceled: 0
          })

          // +30 s: both answered calls over (ended +12 s and +24 s), the busy one (+3 s) due again at +303 s
          yield* TestKit.advanceTo(opens + 30 * SECOND)
          const between = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual(between.contacts, {
            pending: 1,
            inProgress: 0,
            answered: 2,
            exhausted: 0,
            skipped: 0,
            cancelled: 0,
            awaitingLocalHours: 0
          })
          assert.deepStrictEqual(between.attempts, {
            total: 3,
            inProgress: 0,
            answered: 2,
            unanswered: 0,
            busy: 1,
            failed: 0,
            canceled: 0
          })
          assert.deepStrictEqual(
            [between.status, between.dialedContacts, between.answeredContacts, between.answerRate],
            [
              "RUNNING",
              3,
              2,
              2 / 3
            ]
          )
          assert.deepStrictEqual(between.nextAttemptAt && iso(between.nextAttemptAt), iso(opens + 303 * SECOND))

          yield* TestKit.advanceTo(opens + 6 * MINUTE)
          const done = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([
            done.status,
            done.totalContacts,
            done.dialedContacts,
            done.answeredContacts,
            done.answerRate
          ], [
            "COMPLETED",
            3,
            3,
            2,
            2 / 3
          ])
          assert.deepStrictEqual(done.contacts, {
            pending: 0,
            inProgress: 0,
            answered: 2,
            exhausted: 1,
            skipped: 0,
            cancelled: 0,
            awaitingLocalHours: 0
          })
          assert.deepStrictEqual(done.attempts, {
            total: 4,
            inProgress: 0,
            answered: 2,
            unanswered: 0,
            busy: 2,
            failed: 0,
            canceled: 0
          })
          assert.deepStrictEqual([done.nextWindowOpensAt, done.nextAttemptAt], [null, null])
          assert.deepStrictEqual(iso((yield* get(fx.tenantId, c.id)).completedAt!), iso(opens + 305 * SECOND))
        })
    )

    it.effect("maxConcurrentCalls 2: never more than two calls at once, the next dial when a call ends", () =>
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const numbers = [0, 1, 2, 3, 4].map((i) => phone(12, i, "0060"))
        const fx = yield* setup(numbers)
        const c = yield* create(fx, { ...ALWAYS, maxConcurrentCalls: 2 })
        const t0 = yield* now
        yield* campaigns.schedule(fx.tenantId, c.id, null)
        yield* TestKit.advance(4 * MINUTE)
        // each call lasts 62 s (2 s ring, 60 s talk)
        assert.deepStrictEqual(
          (yield* dialsAmong(numbers)).map(([, at]) => at),
          [0, 1, 62, 63, 124].map((s) => iso(t0 + s * SECOND))
        )
        const attempts = yield* TestKit.attempts(fx.tenantId, c.id)
        assert.strictEqual(attempts.length, 5)
        assert.strictEqual(maxOverlap(attempts), 2)
        const done = yield* get(fx.tenantId, c.id)
        assert.deepStrictEqual([done.status, done.completedAt && iso(done.completedAt)], [
          "COMPLETED",
          iso(t0 + 186 * SECOND)
        ])
      }))

    it.effect(
      "do-not-call: a number listed before the start is skipped (attempt SKIPPED) and never dialed; one listed later " +
        "is skipped at its redial; a removed one is dialed",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const [a, blocked, c3, busy] = [
            phone(13, 0, "0010"),
            phone(13, 1, "0010"),
            phone(13, 2, "0010"),
            phone(13, 3, "9001")
          ] as const
          const fx = yield* setup([a, blocked, c3, busy])
          const entry = yield* campaigns.addDnc(fx.tenantId, blocked, "asked not to be called")
          assert.deepStrictEqual([entry.phoneNumber, entry.reason], [blocked, "asked not to be called"])
          const c = yield* create(fx, { ...ALWAYS, maxAttempts: 2, redialDelayMin: 5 })
          const t0 = yield* now
          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* TestKit.advance(MINUTE)
          assert.deepStrictEqual(yield* dialsAmong([a, blocked, c3, busy]), [[a, iso(t0)], [c3, iso(t0 + SECOND)], [
            busy,
            iso(t0 + 2 * SECOND)
          ]])
          // the busy number asks not to be called before its redial
          yield* campaigns.addDnc(fx.tenantId, busy, null)
          yield* TestKit.advance(10 * MINUTE)
          assert.deepStrictEqual(yield* dialsTo(busy), [iso(t0 + 2 * SECOND)])

          const attempts = yield* TestKit.attempts(fx.tenantId, c.id)
          const skipped = attempts.find((x) => x.phoneNumber === blocked)!
          assert.deepStrictEqual(
            [
              skipped.attemptNumber,
              skipped.status,
              skipped.skipReason,
              skipped.outcome,
              skipped.sessionId,
              skipped.dialedAt
            ],
            [1, "SKIPPED", "DO_NOT_CALL", null, null, null]
          )
          assert.deepStrictEqual(
            attempts.filter((x) => x.phoneNumber === busy).map((
              x
            ) => [x.attemptNumber, x.status, x.outcome, x.skipReason]),
            [
              [1, "ENDED", "BUSY", null],
              [2, "SKIPPED", null, "DO_NOT_CALL"]
            ]
          )
          // listed in the order they happened: the skip was recorded with the snapshot, before the first dial
          assert.deepStrictEqual(attempts.map((x) => [x.phoneNumber, x.attemptNumber, iso(x.claimedAt)]), [
            [blocked, 1, iso(t0)],
            [a, 1, iso(t0)],
            [c3, 1, iso(t0 + SECOND)],
            [busy, 1, iso(t0 + 2 * SECOND)],
            [busy, 2, iso(t0 + 304 * SECOND)]
          ])
          const p = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([p.status, p.totalContacts, p.dialedContacts, p.answeredContacts], [
            "COMPLETED",
            4,
            3,
            2
          ])
          assert.deepStrictEqual(p.contacts, {
            pending: 0,
            inProgress: 0,
            answered: 2,
            exhausted: 0,
            skipped: 2,
            cancelled: 0,
            awaitingLocalHours: 0
          })

          // off the list again: a new campaign dials it
          assert.isTrue(yield* campaigns.removeDnc(fx.tenantId, blocked))
          assert.isFalse(yield* campaigns.removeDnc(fx.tenantId, blocked))
          const again = yield* create(fx, ALWAYS, "again")
          const t1 = yield* now
          yield* campaigns.schedule(fx.tenantId, again.id, null)
          yield* TestKit.advance(MINUTE)
          assert.deepStrictEqual(yield* dialsTo(blocked), [iso(t1 + SECOND)])
          assert.deepStrictEqual(yield* dialsTo(busy), [iso(t0 + 2 * SECOND)], "still listed")
        })
    )

    it.effect(
      "an agent deactivated mid-campaign fails it (AGENT_INACTIVE) when its call ends; nothing more is dialed",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const db = yield* sql
          const numbers = [phone(14, 0, "0030"), phone(14, 1, "0030"), phone(14, 2, "0030")]
          const fx = yield* setup(numbers)
          const c = yield* create(fx, { ...ALWAYS, maxConcurrentCalls: 1 })
          const t0 = yield* now
          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* TestKit.advance(5 * SECOND)
          yield* Effect.orDie(db`UPDATE agents SET is_active = false WHERE id = ${fx.agentId}`)
          yield* TestKit.advance(5 * MINUTE)
          assert.deepStrictEqual(yield* dialsAmong(numbers), [[numbers[0]!, iso(t0)]])
          const failed = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([failed.status, failed.statusReason], ["FAILED", "AGENT_INACTIVE"])
          assert.deepStrictEqual(failed.contacts, {
            pending: 0,
            inProgress: 0,
            answered: 1,
            exhausted: 0,
            skipped: 0,
            cancelled: 2,
            awaitingLocalHours: 0
          })
          assert.strictEqual(
            iso((yield* get(fx.tenantId, c.id)).updatedAt),
            iso(t0 + 32 * SECOND),
            "when the call ended"
          )
        })
    )

    it.effect("an agent deactivated between two paced dials: the next dial is not placed", () =>
      Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const db = yield* sql
        const numbers = [phone(15, 0, "0030"), phone(15, 1, "0030"), phone(15, 2, "0030")]
        const fx = yield* setup(numbers)
        const c = yield* create(fx)
        const t0 = yield* now
        yield* campaigns.schedule(fx.tenantId, c.id, null)
        yield* TestKit.advance(500)
        yield* Effect.orDie(db`UPDATE agents SET is_active = false WHERE id = ${fx.agentId}`)
        yield* TestKit.advance(2 * MINUTE)
        assert.deepStrictEqual(yield* dialsAmong(numbers), [[numbers[0]!, iso(t0)]])
        const failed = yield* get(fx.tenantId, c.id)
        assert.deepStrictEqual([failed.status, failed.statusReason, iso(failed.updatedAt)], [
          "FAILED",
          "AGENT_INACTIVE",
          iso(t0 + SECOND)
        ])
        // and a campaign cannot be created with the inactive agent
        const refused = campaigns.create(fx.tenantId, {
          name: "other",
          agentId: fx.agentId,
          voiceNumberId: fx.voiceNumberId,
          contactListId: fx.contactListId,
          ...ALWAYS
        })
        assert.strictEqual(yield* failureTag(refused), "AgentInactive")
      }))

    it.effect(
      "a voice number removed mid-campaign fails it (VOICE_NUMBER_REMOVED) at the next dial or call end; nothing " +
        "more is dialed from it",
      () =>
        Effect.gen(function*() {
          const campaigns = yield* Campaigns
          const numbersRepo = yield* VoiceNumbersRepo
          // removed while two calls are up: the campaign fails when the busy one ends (+3 s)
          const numbers = [phone(16, 0, "0030"), phone(16, 1, "9001"), phone(16, 2, "0030")]
          const fx = yield* setup(numbers)
          const c = yield* create(fx, { ...ALWAYS, maxConcurrentCalls: 2, maxAttempts: 2, redialDelayMin: 5 })
          // removed between two paced dials: the next one (+1 s) is not placed
          const paced = [phone(16, 3, "0030"), phone(16, 4, "0030"), phone(16, 5, "0030")]
          const fxPaced = yield* setup(paced)
          const d = yield* create(fxPaced)
          const t0 = yield* now
          yield* campaigns.schedule(fx.tenantId, c.id, null)
          yield* campaigns.schedule(fxPaced.tenantId, d.id, null)
          yield* TestKit.advance(500)
          assert.isTrue(yield* numbersRepo.remove(fxPaced.tenantId, fxPaced.voiceNumberId))
          yield* TestKit.advance(1000)
          assert.isTrue(yield* numbersRepo.remove(fx.tenantId, fx.voiceNumberId))
          yield* TestKit.advance(10 * MINUTE)

          // the two calls placed before the removal finish; the third contact and the busy one's redial never happen
          assert.deepStrictEqual(yield* dialsAmong(numbers), [[numbers[0]!, iso(t0)], [numbers[1]!, iso(t0 + SECOND)]])
          const failed = yield* progress(fx.tenantId, c.id)
          assert.deepStrictEqual([failed.status, failed.statusReason], ["FAILED", "VOICE_NUMBER_REMOVED"])
          assert.deepStrictEqual(failed.contacts, {
            pending: 0,
            inProgress: 0,
            answered: 1,
            exhausted: 0,
            skipped: 0,
            cancelled: 2,
            awaitingLocalHours: 0
          })
          assert.deepStrictEqual(failed.attempts, {
            total: 2,
            inProgress: 0,
            answered: 1,
            unanswered: 0,
            busy: 1,
            failed: 0,
            canceled: 0
          })
          assert.strictEqual(
            iso((yield* get(fx.tenantId, c.id)).updatedAt),
            iso(t0 + 3 * SECOND),
            "when the busy call ended"
          )

          assert.deepStrictEqual(yield* dialsAmong(paced), [[paced[0]!, iso(t0)]])
          const failedPaced = yield* get(fxPaced.tenantId, d.id)
          assert.deepStrictEqual([failedPaced.status, failedPaced.statusReason, iso(failedPaced.updatedAt)], [
            "FAILED",
            "VOICE_NUMBER_REMOVED",
            iso(t0 + SECOND)
          ])
        })
    )
  })

  // -------------------------------------------------------------------------------------------
  // Saturday 2026-03-07, 23:30 EST (04:30Z on the 8th). US daylight time starts Sunday 07:00Z
  // (02:00 EST -> 03:00 EDT): 09:00 New York is 14:00Z on Saturday, 13:00Z from Sunday on.
  // -------------------------------------------------------------------------------------------
  it.layer(TestKit.layer(), { timeout: 300_000 })("from Saturday 2026-03-07, 23:30 EST", (it) => {
    it.effect(
      "spring-forward: scheduled on Saturday evening, an every-day campaign dials Sunday 09:00 EDT (13:00Z), a " +
        "weekday one Monday 09:00 EDT; the window closes at 10:00 EDT",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-03-08T04:30:00Z")
          const campaigns = yield* Campaigns
          const daily = [phone(20, 0, "0010"), phone(20, 1, "9001")]
          const weekdays = [phone(20, 2, "0010")]
          const fxDaily = yield* setup(daily)
          const fxWeekdays = yield* setup(weekdays)
          const window = { timezone: "America/New_York", callWindowStart: "09:00", callWindowEnd: "10:00" }
          const everyDay = yield* create(fxDaily, {
            ...window,
            callDays: [1, 2, 3, 4, 5, 6, 7],
            maxAttempts: 2,
            redialDelayMin: 60
          })
          const mondayToFriday = yield* create(fxWeekdays, { ...window, callDays: [1, 2, 3, 4, 5] })
          yield* campaigns.schedule(fxDaily.tenantId, everyDay.id, null)
          yield* campaigns.schedule(fxWeekdays.tenantId, mondayToFriday.id, null)
          yield* TestKit.advance(0)
          const p1 = yield* progress(fxDaily.tenantId, everyDay.id)
          const p2 = yield* progress(fxWeekdays.tenantId, mondayToFriday.id)
          assert.deepStrictEqual(p1.nextWindowOpensAt && iso(p1.nextWindowOpensAt), "2026-03-08T13:00:00.000Z")
          assert.deepStrictEqual(p2.nextWindowOpensAt && iso(p2.nextWindowOpensAt), "2026-03-09T13:00:00.000Z")

          yield* TestKit.advanceTo("2026-03-08T12:59:59.999Z")
          assert.deepStrictEqual(yield* dialsAmong([...daily, ...weekdays]), [])
          yield* TestKit.advanceTo("2026-03-08T13:00:30Z")
          assert.deepStrictEqual(yield* dialsAmong(daily), [
            [daily[0]!, "2026-03-08T13:00:00.000Z"],
            [daily[1]!, "2026-03-08T13:00:01.000Z"]
          ])
          // the busy number ended 13:00:03Z; its redial (14:00:03Z) is after the 10:00 EDT close (14:00Z)
          yield* TestKit.advanceTo("2026-03-09T12:59:59.999Z")
          assert.deepStrictEqual(
            yield* dialsTo(daily[1]!),
            ["2026-03-08T13:00:01.000Z"],
            "not redialed after 10:00 EDT"
          )
          assert.deepStrictEqual(yield* dialsTo(weekdays[0]!), [], "not on Sunday")
          const sunday = yield* progress(fxDaily.tenantId, everyDay.id)
          assert.deepStrictEqual([sunday.status, sunday.nextWindowOpensAt && iso(sunday.nextWindowOpensAt)], [
            "RUNNING",
            "2026-03-09T13:00:00.000Z"
          ])

          yield* TestKit.advanceTo("2026-03-09T13:01:00Z")
          assert.deepStrictEqual(yield* dialsTo(daily[1]!), ["2026-03-08T13:00:01.000Z", "2026-03-09T13:00:00.000Z"])
          assert.deepStrictEqual(yield* dialsTo(weekdays[0]!), ["2026-03-09T13:00:00.000Z"])
          const [a, b] = [yield* get(fxDaily.tenantId, everyDay.id), yield* get(fxWeekdays.tenantId, mondayToFriday.id)]
          assert.deepStrictEqual([a.status, a.completedAt && iso(a.completedAt)], [
            "COMPLETED",
            "2026-03-09T13:00:02.000Z"
          ])
          assert.deepStrictEqual([b.status, b.completedAt && iso(b.completedAt)], [
            "COMPLETED",
            "2026-03-09T13:00:12.000Z"
          ])
        }),
      180_000
    )
  })
  // -------------------------------------------------------------------------------------------
  // The dial loop's life, on a runtime of its own (the gauge counts every loop of the process).
  // -------------------------------------------------------------------------------------------
  it.layer(TestKit.layer(), { timeout: 300_000 })("the dial loop", (it) => {
    it.effect(
      "one loop while SCHEDULED or RUNNING, none while PAUSED or after COMPLETED; a pause and resume in one instant " +
        "keep the one loop",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-11-02T12:00:00Z")
          const campaigns = yield* Campaigns
          const loops = Effect.map(Metric.value(campaignsDialing), (state) => state.value)
          const base = yield* loops
          const numbers = [0, 1, 2, 3, 4].map((i) => phone(30, i, "0010"))
          const fx = yield* setup(numbers)
          const c = yield* create(fx)
          assert.strictEqual((yield* loops) - base, 0, "DRAFT")
          yield* campaigns.schedule(fx.tenantId, c.id, new Date("2026-11-02T13:00:00Z"))
          yield* TestKit.advance(0)
          assert.strictEqual((yield* loops) - base, 1, "SCHEDULED")

          yield* TestKit.advanceTo("2026-11-02T13:00:01.500Z")
          assert.strictEqual((yield* loops) - base, 1, "RUNNING")
          yield* campaigns.pause(fx.tenantId, c.id)
          yield* TestKit.advance(5 * SECOND)
          assert.strictEqual((yield* loops) - base, 0, "PAUSED")

          const t1 = yield* now
          yield* campaigns.resume(fx.tenantId, c.id)
          yield* campaigns.pause(fx.tenantId, c.id)
          yield* campaigns.resume(fx.tenantId, c.id)
          yield* TestKit.advance(0)
          assert.strictEqual((yield* loops) - base, 1, "RUNNING again, one loop")
          yield* campaigns.pause(fx.tenantId, c.id)
          yield* campaigns.resume(fx.tenantId, c.id)
          yield* TestKit.advance(MINUTE)
          assert.strictEqual((yield* loops) - base, 0, "COMPLETED")
          // every contact dialed once, at the number's pace; the three after the resume from its instant on
          // (a pass that took its slot of the pace as a pause came may leave that slot unused)
          const dials = yield* dialsAmong(numbers)
          assert.deepStrictEqual(dials.map(([to]) => to), numbers)
          const at = dials.map(([, instant]) => Date.parse(instant))
          assert.deepStrictEqual(at.slice(0, 2).map(iso), ["2026-11-02T13:00:00.000Z", "2026-11-02T13:00:01.000Z"])
          assert.isAtLeast(at[2]!, t1)
          assert.isAtMost(at[2]!, t1 + 2 * SECOND)
          for (let i = 3; i < at.length; i++) assert.strictEqual(at[i]! - at[i - 1]!, SECOND)
          const done = yield* get(fx.tenantId, c.id)
          assert.deepStrictEqual([done.status, done.dialedContacts], ["COMPLETED", 5])
        })
    )
  })
})
