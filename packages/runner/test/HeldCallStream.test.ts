/**
 * Held calls let their entity go (issue 18): a ringing call keeps no resident `LiveCall` entity, no
 * prepared conversation and no fibers while it waits for its callee; its ring deadline is a wake in
 * the runner's timer wheel. Driven by TestClock through the simulated carrier, whose calls ring for a
 * couple of minutes here: long enough for the entity reaper (`MAX_IDLE_MS`) to take a ringing call's entity.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { type CallSpec, LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, PersonaId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { LocalCalls } from "@voiceagent/runner/Calls/LocalCalls"
import { TimerWheel } from "@voiceagent/runner/Shared/TimerWheel"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as TestRuntime from "@voiceagent/runner/Testing/TestRuntime"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { LocalMedia, type MediaEvent, type MediaSession } from "@voiceagent/runner/Voice/Media"
import { Clock, Effect, Layer, Option, Queue } from "effect"
import * as crypto from "node:crypto"

/**
 * The simulated callee picks up after this long (its number's last digits say how long it talks);
 * the line reports ringing half-way.
 */
const RING_MS = 120_000

/** Past the ringing report, idle long enough for the reaper to have taken the entity (it looks every `MAX_IDLE_MS`). */
const LET_GO_SECONDS = RING_MS / 2 / 1000 + 40

const Runtime = UsersRepo.Default.pipe(
  Layer.provideMerge(TestRuntime.layer({ runtime: { simulator: { ringMillis: RING_MS } } }))
)

const newTenant = Effect.gen(function*() {
  yield* TestRuntime.warmUp
  const users = yield* UsersRepo
  const agents = yield* AgentsRepo
  const { tenant } = yield* users.create({
    email: `h-${crypto.randomUUID()}@example.com`,
    passwordHash: "x",
    companyName: "Co"
  })
  const tenantId = tenant!.id as TenantId
  const persona = Option.getOrThrow(yield* agents.findPersona("4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001" as PersonaId))
  const agent = yield* agents.create(tenantId, persona, "Agent")
  yield* (yield* TenantEntity.client)(tenantId).TopUp({ idempotencyKey: `seed-${tenantId}`, amount: 1000 })
  return { tenantId, agentId: agent.id as AgentId }
})

const spec = (t: { tenantId: TenantId; agentId: AgentId }, toNumber: string, dialTimeoutSeconds: number): CallSpec => ({
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
  dialTimeoutSeconds,
  maxDurationSeconds: 3600,
  concurrencyLimit: 10,
  currency: "USD",
  voicePerMinute: 5,
  billingIncrementSeconds: 6,
  reservationChunkSeconds: 120
})

const start = (s: CallSpec) =>
  Effect.gen(function*() {
    const calls = yield* LiveCallEntity.client
    const sessionId = crypto.randomUUID() as SessionId
    yield* calls(sessionId).Start({ spec: s })
    return { sessionId, call: calls(sessionId) }
  })

const session = (sessionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<any>`SELECT * FROM call_sessions WHERE id = ${sessionId}`.pipe(Effect.map(([row]) => row), Effect.orDie)
  )

const eventTypes = (sessionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ type: string }>`SELECT type FROM call_events WHERE session_id = ${sessionId} ORDER BY at, id`.pipe(
        Effect.map((rows) => rows.map((r) => r.type)),
        Effect.orDie
      )
  )

/** Moves the clock a second at a time, letting the runtime finish what each move started. */
const advance = (seconds: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < seconds; i++) {
      yield* TestKit.advance("1 second")
      yield* TestKit.settle
    }
  })

/**
 * The call rings on, and its entity is gone: no handler for its events or its stream, its ring deadline in the wheel.
 */
const assertLetGo = (sessionId: SessionId, ringDeadline: number) =>
  Effect.gen(function*() {
    const localCalls = yield* LocalCalls
    const media = yield* LocalMedia
    const wheel = yield* TimerWheel
    yield* TestKit.eventually(
      Effect.sync(() => assert.isFalse(localCalls.has(sessionId), "the ringing call's entity still runs"))
    )
    assert.isFalse(media.has(sessionId), "the ringing call's conversation is still registered")
    assert.isUndefined(wheel.deadlineOf(sessionId, "resident"), "the ringing call is still touched")
    assert.strictEqual(wheel.deadlineOf(sessionId, "ring"), ringDeadline)
    assert.strictEqual((yield* session(sessionId)).status, "RINGING")
  })

/** A stream as a carrier's adapter gives it: what the agent plays is kept. */
const fakeStream = (sessionId: SessionId) =>
  Effect.map(Queue.unbounded<MediaEvent>(), (events) => {
    const played: Array<Int16Array> = []
    const media: MediaSession = {
      sessionId,
      streamId: `stream-${sessionId}`,
      events,
      play: (pcm) => Effect.sync(() => void played.push(pcm)),
      mark: () => Effect.void,
      clear: Effect.void,
      close: Effect.void
    }
    return { media, played }
  })

describe("held calls let their entity go while they ring", () => {
  it.layer(Runtime, { timeout: 240_000 })((it) => {
    it.effect("an unanswered call's entity goes once idle, and the dial timeout still ends the call at its time", () =>
      Effect.gen(function*() {
        const t = yield* newTenant
        // "…9002": rings and is never answered
        const { call, sessionId } = yield* start(spec(t, "+14155559002", 150))
        yield* advance(LET_GO_SECONDS)
        const { dialedAt } = yield* session(sessionId)
        yield* assertLetGo(sessionId, dialedAt.getTime() + 150_000)
        // the wake at the ring deadline starts the entity again, which ends the call then, not before
        const elapsed = (yield* Clock.currentTimeMillis) - dialedAt.getTime()
        yield* advance(Math.floor((150_000 - elapsed) / 1000) - 1)
        assert.strictEqual((yield* session(sessionId)).status, "RINGING")
        yield* advance(2)
        const row = yield* TestKit.eventually(Effect.gen(function*() {
          const row = yield* session(sessionId)
          assert.strictEqual(row.status, "ENDED")
          return row
        }))
        assert.deepStrictEqual([row.outcome, row.endReason, row.cost], ["UNANSWERED", "ring_timeout", 0])
        assert.strictEqual(row.endedAt.getTime() - row.dialedAt.getTime(), 150_000)
        assert.deepStrictEqual(yield* call.Status(), { status: "ENDED", outcome: "UNANSWERED" })
        assert.strictEqual((yield* Effect.flatMap(Ledger, (l) => l.balance(t.tenantId))).reserved, 0)
        assert.isUndefined((yield* TimerWheel).deadlineOf(sessionId, "ring"))
      }))

    it.effect(
      "answered after its entity went: the carrier's event starts it again, the stream attaches, the agent speaks",
      () =>
        Effect.gen(function*() {
          const t = yield* newTenant
          // answered after RING_MS, then talks for 20 s
          const { sessionId } = yield* start(spec(t, "+14155550020", 300))
          yield* advance(LET_GO_SECONDS)
          const { dialedAt } = yield* session(sessionId)
          yield* assertLetGo(sessionId, dialedAt.getTime() + 300_000)
          // the answer (a carrier event the entity was not there for: through the cluster, starting it again)
          yield* advance(RING_MS / 1000 - LET_GO_SECONDS + 1)
          const localCalls = yield* LocalCalls
          yield* TestKit.eventually(Effect.gen(function*() {
            assert.strictEqual((yield* session(sessionId)).status, "IN_PROGRESS")
            assert.isTrue(localCalls.has(sessionId))
          }))
          // in memory again, for the conversation: touched, its ring deadline gone
          const wheel = yield* TimerWheel
          assert.isUndefined(wheel.deadlineOf(sessionId, "ring"))
          yield* advance(5)
          yield* TestKit.eventually(Effect.gen(function*() {
            const row = yield* session(sessionId)
            assert.isTrue(row.transcript.some((line: any) => line.speaker === "agent"), "the agent said nothing")
            assert.include(yield* eventTypes(sessionId), "media_connected")
          }))
          assert.isDefined(wheel.deadlineOf(sessionId, "resident"))
          // past the idle time, talking: still resident
          yield* advance(20)
          const row = yield* TestKit.eventually(Effect.gen(function*() {
            const row = yield* session(sessionId)
            assert.strictEqual(row.status, "ENDED")
            return row
          }))
          assert.deepStrictEqual([row.outcome, row.endReason], ["ANSWERED", "completed"])
          assert.strictEqual(row.answeredAt.getTime() - row.dialedAt.getTime(), RING_MS)
          assert.strictEqual(row.durationSeconds, 20)
          const types = yield* eventTypes(sessionId)
          assert.strictEqual(types.filter((type) => type === "dialing").length, 1, "dialled once")
        })
    )

    it.effect(
      "a stream that comes while the entity is gone is attached first, and the entity woken to take it (OpenMedia)",
      () =>
        Effect.gen(function*() {
          const t = yield* newTenant
          const { call, sessionId } = yield* start(spec(t, "+14155559002", 600))
          yield* advance(LET_GO_SECONDS)
          const { dialedAt } = yield* session(sessionId)
          yield* assertLetGo(sessionId, dialedAt.getTime() + 600_000)
          const local = yield* LocalMedia
          const { media, played } = yield* fakeStream(sessionId)
          assert.isTrue(yield* local.attach(media), "the stream was refused")
          assert.isTrue((yield* LocalCalls).has(sessionId))
          assert.isTrue(local.has(sessionId))
          yield* advance(3)
          yield* TestKit.eventually(Effect.sync(() => assert.isAbove(played.length, 0, "the agent did not speak")))
          yield* TestKit.eventually(Effect.gen(function*() {
            assert.include(yield* eventTypes(sessionId), "media_connected")
          }))
          // a stream is attached: the entity stays, ringing or not
          yield* advance(40)
          assert.isTrue((yield* LocalCalls).has(sessionId))
          yield* call.Hangup({ requestId: "done" })
          yield* TestKit.eventually(Effect.gen(function*() {
            assert.strictEqual((yield* session(sessionId)).status, "ENDED")
          }))
          // a call that is over takes no stream
          const late = yield* fakeStream(sessionId)
          yield* advance(45)
          assert.isFalse(yield* local.attach(late.media))
        })
    )
  })
})
