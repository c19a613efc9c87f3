import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { type CallSpec, LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, ApiKeyId, PersonaId, TenantId, UserId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { ApiKeysRepo } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { MAX_IDLE_MS } from "@voiceagent/runner/Calls/LiveCallLive"
import { LocalCalls } from "@voiceagent/runner/Calls/LocalCalls"
import { TimerWheel } from "@voiceagent/runner/Shared/TimerWheel"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as TestRuntime from "@voiceagent/runner/Testing/TestRuntime"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { EVENT_ID_HEADER, sign, SIGNATURE_HEADER } from "@voiceagent/runner/Webhooks/Webhooks"
import { Deferred, Duration, Effect, Exit, Layer, Option } from "effect"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

const Runtime = Layer.mergeAll(UsersRepo.Default, ApiKeysRepo.Default).pipe(
  Layer.provideMerge(
    TestRuntime.layer({
      runtime: {
        simulator: { ringMillis: 2000 },
        webhooks: { pollInterval: "1 second", maxIdleInterval: "10 seconds", batchSize: 50 }
      }
    })
  )
)

const newTenant = (topUp: number) =>
  Effect.gen(function*() {
    yield* TestRuntime.warmUp
    const users = yield* UsersRepo
    const agents = yield* AgentsRepo
    const { tenant, user } = yield* users.create({
      email: `c-${crypto.randomUUID()}@example.com`,
      passwordHash: "x",
      companyName: "Co"
    })
    const tenantId = tenant!.id as TenantId
    const persona = Option.getOrThrow(yield* agents.findPersona("4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001" as PersonaId))
    const agent = yield* agents.create(tenantId, persona, "Agent")
    if (topUp > 0) {
      yield* (yield* TenantEntity.client)(tenantId).TopUp({ idempotencyKey: `seed-${tenantId}`, amount: topUp })
    }
    return { tenantId, userId: user.id as UserId, agentId: agent.id as AgentId }
  })

const spec = (
  t: { tenantId: TenantId; agentId: AgentId },
  toNumber: string,
  overrides: Partial<CallSpec> = {}
): CallSpec => ({
  tenantId: t.tenantId,
  jobId: "job",
  agentId: t.agentId,
  voiceNumberId: crypto.randomUUID() as VoiceNumberId,
  provider: "PROVIDER_A",
  fromNumber: "+14155550100",
  toNumber,
  customerId: null,
  campaignId: null,
  campaignAttemptId: null,
  metadata: {},
  dialTimeoutSeconds: 30,
  maxDurationSeconds: 3600,
  concurrencyLimit: 10,
  currency: "USD",
  voicePerMinute: 5,
  billingIncrementSeconds: 6,
  reservationChunkSeconds: 120,
  ...overrides
})

const start = (s: CallSpec) =>
  Effect.gen(function*() {
    const calls = yield* LiveCallEntity.client
    const sessionId = crypto.randomUUID() as SessionId
    const reply = yield* calls(sessionId).Start({ spec: s })
    return { sessionId, reply, call: calls(sessionId) }
  })

const session = (sessionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<any>`SELECT * FROM call_sessions WHERE id = ${sessionId}`.pipe(Effect.map(([row]) => row), Effect.orDie)
  )

const wallet = (tenantId: TenantId) => Effect.flatMap(Ledger, (l) => l.balance(tenantId))

/**
 * Lets the runtime finish what a clock move started before the next one: waits (real time) until no
 * SQL statement is executing and the pending timers are unchanged over a few event-loop turns.
 */
const settle = TestKit.settle

const eventually = TestKit.eventually

/** Waits for `event` in real time; dies naming it after `millis` (the TestClock would never time it out). */
const awaitReal = <A>(event: Effect.Effect<A>, millis: number, what: string) =>
  Effect.raceFirst(
    event,
    Effect.async<never>((resume) => {
      const timer = setTimeout(() => resume(Effect.dieMessage(`waited ${millis} ms of real time for ${what}`)), millis)
      return Effect.sync(() => clearTimeout(timer))
    })
  )

const advance = (seconds: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < seconds; i++) {
      yield* TestKit.advance("1 second")
      yield* settle
    }
  })

describe("live calls, driven by TestClock", () => {
  it.layer(Runtime, { timeout: 180_000 })((it) => {
    it.effect("busy, failed and refused numbers end with their outcome and cost nothing", () =>
      Effect.gen(function*() {
        const t = yield* newTenant(1000)
        const busy = yield* start(spec(t, "+14155559001"))
        const failed = yield* start(spec(t, "+14155559003"))
        const refused = yield* start(spec(t, "+14155559004"))
        yield* advance(3)
        for (
          const [call, outcome, reason] of [
            [busy, "BUSY", "busy"],
            [failed, "FAILED", "carrier_failed"],
            [refused, "FAILED", "dial_failed"]
          ] as const
        ) {
          yield* eventually(Effect.gen(function*() {
            const row = yield* session(call.sessionId)
            assert.deepStrictEqual([row.status, row.outcome, row.endReason, row.cost], ["ENDED", outcome, reason, 0])
          }))
        }
        assert.deepStrictEqual(
          yield* wallet(t.tenantId),
          { currency: "USD", balance: 1000, reserved: 0, available: 1000 } as any
        )
      }))

    it.effect("an unanswered call ends at its ring timeout, not before", () =>
      Effect.gen(function*() {
        const t = yield* newTenant(1000)
        const { call, sessionId } = yield* start(spec(t, "+14155559002", { dialTimeoutSeconds: 20 }))
        yield* advance(19)
        assert.strictEqual((yield* call.Status()).status, "RINGING")
        yield* advance(2)
        assert.deepStrictEqual(yield* call.Status(), { status: "ENDED", outcome: "UNANSWERED" })
        const row = yield* eventually(Effect.gen(function*() {
          const row = yield* session(sessionId)
          assert.strictEqual(row.status, "ENDED")
          return row
        }))
        assert.deepStrictEqual([row.endReason, row.cost], ["ring_timeout", 0])
        assert.strictEqual(row.endedAt.getTime() - row.dialedAt.getTime(), 20_000)
        assert.strictEqual((yield* wallet(t.tenantId)).reserved, 0)
      }))

    it.effect(
      "a held call waits on the runner's timer wheel, lets its entity go while it rings, and leaves no timer when it " +
        "ends",
      () =>
        Effect.gen(function*() {
          const wheel = yield* TimerWheel
          const localCalls = yield* LocalCalls
          const t = yield* newTenant(1000)
          const { call, sessionId } = yield* start(spec(t, "+14155559002", { dialTimeoutSeconds: 1200 }))
          yield* advance(3)
          assert.strictEqual((yield* call.Status()).status, "RINGING")
          const row = yield* session(sessionId)
          // the ring deadline is an entry of the wheel, at the dial time plus the dial timeout
          assert.strictEqual(wheel.deadlineOf(sessionId, "ring"), row.dialedAt.getTime() + 1_200_000)
          // a ringing call is not kept resident: idle for MAX_IDLE_MS (the reaper looks as often), its entity goes
          yield* TestKit.advance(Duration.millis(3 * MAX_IDLE_MS))
          yield* eventually(
            Effect.sync(() => assert.isFalse(localCalls.has(sessionId), "the ringing call's entity still runs"))
          )
          assert.isUndefined(wheel.deadlineOf(sessionId, "resident"))
          // what it leaves is its wake at the ring deadline
          assert.strictEqual(wheel.deadlineOf(sessionId, "ring"), row.dialedAt.getTime() + 1_200_000)
          // a request starts it again, from its row
          assert.strictEqual((yield* call.Status()).status, "RINGING")
          yield* call.Hangup({ requestId: "stop" })
          yield* eventually(Effect.sync(() => {
            assert.isUndefined(wheel.deadlineOf(sessionId, "ring"))
            assert.isUndefined(wheel.deadlineOf(sessionId, "resident"))
          }))
          assert.deepStrictEqual(yield* call.Status(), { status: "ENDED", outcome: "CANCELED" })
        })
    )

    it.effect("a long call is hung up at its maximum duration and billed for it", () =>
      Effect.gen(function*() {
        const t = yield* newTenant(1000)
        const { call, sessionId } = yield* start(spec(t, "+14155550999", { maxDurationSeconds: 60 }))
        yield* advance(2 + 59)
        assert.strictEqual((yield* call.Status()).status, "IN_PROGRESS")
        yield* advance(2)
        const row = yield* eventually(Effect.gen(function*() {
          const row = yield* session(sessionId)
          assert.strictEqual(row.status, "ENDED")
          return row
        }))
        assert.deepStrictEqual([row.outcome, row.endReason, row.durationSeconds, row.billedSeconds, row.cost], [
          "ANSWERED",
          "max_duration",
          60,
          60,
          5
        ])
        assert.strictEqual((yield* wallet(t.tenantId)).balance, 995)
      }))

    it.effect(
      "the reservation is extended while the call lasts, and the call ends when the wallet cannot cover more",
      () =>
        Effect.gen(function*() {
          // enough for a 240 s call: 10 per 120 s chunk; the call wants 500 s
          const rich = yield* newTenant(1000)
          const poor = yield* newTenant(20)
          const long = yield* start(spec(rich, "+14155550500"))
          const short = yield* start(spec(poor, "+14155550500"))
          yield* advance(2 + 110)
          yield* eventually(Effect.gen(function*() {
            assert.strictEqual((yield* wallet(rich.tenantId)).reserved, 20, "extended before the first chunk ran out")
            assert.strictEqual((yield* wallet(poor.tenantId)).reserved, 20)
          }))
          yield* advance(120)
          yield* eventually(Effect.gen(function*() {
            assert.strictEqual((yield* wallet(rich.tenantId)).reserved, 30)
            assert.strictEqual((yield* wallet(poor.tenantId)).reserved, 20, "no more to hold")
          }))
          yield* advance(20)
          const cut = yield* eventually(Effect.gen(function*() {
            const row = yield* session(short.sessionId)
            assert.strictEqual(row.status, "ENDED")
            return row
          }))
          assert.deepStrictEqual([cut.status, cut.outcome, cut.endReason, cut.durationSeconds, cut.cost], [
            "ENDED",
            "ANSWERED",
            "funds_exhausted",
            240,
            20
          ])
          assert.deepStrictEqual(
            yield* wallet(poor.tenantId),
            { currency: "USD", balance: 0, reserved: 0, available: 0 } as any
          )
          yield* advance(270)
          const full = yield* eventually(Effect.gen(function*() {
            const row = yield* session(long.sessionId)
            assert.strictEqual(row.status, "ENDED")
            return row
          }))
          assert.deepStrictEqual([full.outcome, full.durationSeconds, full.billedSeconds, full.cost], [
            "ANSWERED",
            500,
            504,
            42
          ])
          assert.deepStrictEqual(
            yield* wallet(rich.tenantId),
            { currency: "USD", balance: 958, reserved: 0, available: 958 } as any
          )
        })
    )

    it.effect("hang-up: before the answer the call is canceled and free; after it, billed for what was said", () =>
      Effect.gen(function*() {
        const t = yield* newTenant(1000)
        const ringing = yield* start(spec(t, "+14155550300"))
        const talking = yield* start(spec(t, "+14155550300"))
        yield* advance(1)
        assert.deepStrictEqual(yield* ringing.call.Hangup({ requestId: "r1" }), {
          status: "ENDED",
          outcome: "CANCELED"
        })
        yield* advance(1 + 13)
        assert.deepStrictEqual(yield* talking.call.Hangup({ requestId: "r2" }), {
          status: "ENDED",
          outcome: "ANSWERED"
        })
        // the same request again is answered from storage; another one changes nothing
        assert.deepStrictEqual(yield* talking.call.Hangup({ requestId: "r2" }), {
          status: "ENDED",
          outcome: "ANSWERED"
        })
        assert.deepStrictEqual(yield* talking.call.Hangup({ requestId: "r3" }), {
          status: "ENDED",
          outcome: "ANSWERED"
        })
        const a = yield* session(ringing.sessionId)
        const b = yield* session(talking.sessionId)
        assert.deepStrictEqual([a.endReason, a.cost], ["hangup_requested", 0])
        // answered about 2 s in, hung up 15 s in: some 13 s of talk (the exact second depends on scheduling)
        const talked = Math.ceil((b.endedAt.getTime() - b.answeredAt.getTime()) / 1000)
        assert.isAtLeast(talked, 12)
        assert.isAtMost(talked, 13)
        assert.deepStrictEqual([b.endReason, b.durationSeconds, b.billedSeconds, b.cost], [
          "hangup_requested",
          talked,
          Math.ceil(talked / 6) * 6,
          Math.ceil((Math.ceil(talked / 6) * 6 * 5) / 60)
        ])
        assert.strictEqual((yield* wallet(t.tenantId)).balance, 1000 - b.cost)
        assert.isAtLeast(b.transcript.length, 1)
        assert.isTrue(
          b.transcript.every((line: any) => Date.parse(line.at) <= b.endedAt.getTime()),
          "only what was said before the end"
        )
      }))

    it.effect("a late or duplicated carrier event is ignored", () =>
      Effect.gen(function*() {
        const t = yield* newTenant(1000)
        const { call, sessionId } = yield* start(spec(t, "+14155550010"))
        yield* advance(2 + 10)
        const ended = yield* eventually(Effect.gen(function*() {
          const row = yield* session(sessionId)
          assert.strictEqual(row.status, "ENDED")
          return row
        }))
        const again = yield* call.ProviderEvent({
          event: { eventId: "late-ringing", kind: "ringing", at: 0, providerCallId: null }
        })
        assert.deepStrictEqual(again, { status: "ENDED", outcome: "ANSWERED" })
        const completedTwice = yield* call.ProviderEvent({
          event: { eventId: "dup", kind: "completed", at: 1, providerCallId: null }
        })
        assert.deepStrictEqual(completedTwice, { status: "ENDED", outcome: "ANSWERED" })
        const after = yield* session(sessionId)
        assert.deepStrictEqual([after.endedAt.getTime(), after.cost], [ended.endedAt.getTime(), ended.cost])
        assert.strictEqual((yield* wallet(t.tenantId)).balance, 999)
      }))

    it.effect("refuses a call the wallet cannot cover, or one above the concurrency limit, writing no session", () =>
      Effect.gen(function*() {
        const broke = yield* newTenant(9)
        const refused = yield* Effect.flip(start(spec(broke, "+14155550100")))
        assert.strictEqual(refused._tag, "InsufficientFunds")
        const sql = yield* SqlClient.SqlClient
        const [count] = yield* sql<
          { n: number }
        >`SELECT count(*) AS n FROM call_sessions WHERE tenant_id = ${broke.tenantId}`
        assert.strictEqual(count!.n, 0)

        const busyTenant = yield* newTenant(1000)
        yield* start(spec(busyTenant, "+14155559002", { concurrencyLimit: 2 }))
        yield* start(spec(busyTenant, "+14155559002", { concurrencyLimit: 2 }))
        const third = yield* Effect.flip(start(spec(busyTenant, "+14155559002", { concurrencyLimit: 2 })))
        assert.strictEqual(third._tag, "ConcurrentCallLimit")
        yield* advance(31)
        const fourth = yield* start(spec(busyTenant, "+14155559002", { concurrencyLimit: 2 }))
        assert.strictEqual(fourth.reply.status, "QUEUED", "a slot frees when a call ends")
        yield* advance(31)
      }))

    it.scoped("a call's end sends a signed call-result webhook at once", () =>
      Effect.gen(function*() {
        const t = yield* newTenant(1000)
        const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = []
        const arrived = yield* Deferred.make<void>()
        const server = yield* Effect.acquireRelease(
          Effect.async<http.Server>((resume) => {
            const s = http.createServer((req, res) => {
              let body = ""
              req.on("data", (c) => (body += c)).on("end", () => {
                received.push({ headers: req.headers, body })
                Deferred.unsafeDone(arrived, Exit.void)
                res.writeHead(204).end()
              })
            })
            s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
          }),
          (s) => Effect.async<void>((resume) => void s.close(() => resume(Effect.void)))
        )
        const keys = yield* ApiKeysRepo
        const secret = "whsec_test_secret"
        yield* keys.insert({
          id: crypto.randomUUID() as ApiKeyId,
          userId: t.userId,
          name: "hooks",
          prefix: "aok_x",
          keyHash: crypto.randomBytes(32),
          signingSecret: secret,
          webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
          agentId: null,
          expiresAt: null
        })
        const { sessionId } = yield* start(spec(t, "+14155550005"))
        // the call ends 7 s in; the first attempt follows at once (the retry schedule is tested in Webhooks.test.ts)
        for (let i = 0; i < 12 && received.length === 0; i++) yield* advance(1)
        // the delivery is real HTTP, which the clock does not see: wait for it to arrive
        yield* awaitReal(Deferred.await(arrived), 30_000, "the call-result webhook at the receiver")
        assert.strictEqual(received.length, 1)

        const first = received[0]!
        const payload = JSON.parse(first.body)
        assert.strictEqual(payload.type, "call.ended")
        assert.strictEqual(payload.data.sessionId, sessionId)
        assert.deepInclude(payload.data, {
          outcome: "ANSWERED",
          durationSeconds: 5,
          billedSeconds: 6,
          cost: 1,
          toNumber: "+14155550005"
        })
        assert.strictEqual(first.headers[EVENT_ID_HEADER], payload.id)
        const signature = String(first.headers[SIGNATURE_HEADER])
        const [, timestamp] = /^t=(\d+),v1=[0-9a-f]{64}$/.exec(signature)!
        assert.strictEqual(signature, sign(secret, Number(timestamp), first.body))
      }))
  })
})
