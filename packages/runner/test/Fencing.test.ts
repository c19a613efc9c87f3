import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { type CallSpec, LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect } from "effect"
import * as crypto from "node:crypto"

// An instance of a call's entity can outlive its shard: its runner lost the shard while the
// instance waited (for the Tenant entity, say), and the runner that took the shard over started
// the call again. The newer instance takes the next owner epoch; the older one must write nothing.

const spec = (t: { tenantId: TenantId; agentId: AgentId }, voiceNumberId: string, toNumber: string): CallSpec => ({
  tenantId: t.tenantId,
  jobId: "job",
  agentId: t.agentId,
  voiceNumberId: voiceNumberId as VoiceNumberId,
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
  voicePerMinute: 60,
  billingIncrementSeconds: 1,
  reservationChunkSeconds: 120
})

describe("one instance of a call at a time", () => {
  it.layer(TestKit.layer(), { timeout: 120_000 })((it) => {
    it.effect(
      "an instance that lost its call to a newer one writes nothing; the newer one finishes it by the carrier's record",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-06-01T12:00:00Z")
          const sql = yield* SqlClient.SqlClient
          const t = yield* TestKit.tenant({ balance: 10_000 })
          const number = yield* TestKit.voiceNumber(t.tenantId)
          const sessionId = crypto.randomUUID() as SessionId
          const calls = yield* LiveCallEntity.client
          // answered after the 2 s ring, talks 42 s
          yield* calls(sessionId).Start({ spec: spec(t, number, "+14155550042") })
          yield* TestKit.advance("5 seconds")
          const row = sql<
            { status: string; durationSeconds: number; cost: number; ended: number; reservation: string }
          >`
            SELECT s.status, s.duration_seconds, s.cost::int AS cost,
                   (SELECT count(*)::int FROM call_events e WHERE e.session_id = s.id AND e.type = 'ended') AS ended,
                   (SELECT r.status FROM reservations r WHERE r.id = s.id::text) AS reservation
            FROM call_sessions s WHERE s.id = ${sessionId}
          `.pipe(Effect.map(([r]) => r!), Effect.orDie)
          assert.strictEqual((yield* row).status, "IN_PROGRESS")

          // a newer instance took the call (as one started by the runner that took the shard would)
          yield* sql`UPDATE call_sessions SET owner_epoch = owner_epoch + 1 WHERE id = ${sessionId}`
          // the carrier reports the end to the old instance: it may neither settle nor end the call
          yield* TestKit.advance("60 seconds")
          assert.deepStrictEqual(yield* row, {
            status: "IN_PROGRESS",
            durationSeconds: 0,
            cost: 0,
            ended: 0,
            reservation: "open"
          })

          // the old instance stepped down and is stopped once idle; the next message (a supervisor's
          // round) starts a new one, which owns the call and ends it with the carrier's times: 42 s
          // talked, not the 7 minutes until it was noticed
          yield* TestKit.advance("6 minutes")
          yield* calls(sessionId).Status()
          yield* TestKit.advance("1 second")
          assert.deepStrictEqual(yield* row, {
            status: "ENDED",
            durationSeconds: 42,
            cost: 42,
            ended: 1,
            reservation: "settled"
          })
        })
    )

    it.effect(
      "a call taken over after its ring deadline passed is settled by the carrier's record, not timed out",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-06-02T12:00:00Z")
          const sql = yield* SqlClient.SqlClient
          const t = yield* TestKit.tenant({ balance: 10_000 })
          const number = yield* TestKit.voiceNumber(t.tenantId)
          const sessionId = crypto.randomUUID() as SessionId
          const calls = yield* LiveCallEntity.client
          // answered after the 2 s ring, talks 42 s; the ring deadline is 30 s after the dial
          yield* calls(sessionId).Start({ spec: spec(t, number, "+14155550042") })
          yield* TestKit.advance("1 second")
          // the instance loses the call while it rings: the answer and the end reach a stale instance
          yield* sql`UPDATE call_sessions SET owner_epoch = owner_epoch + 1 WHERE id = ${sessionId}`
          yield* TestKit.advance("20 seconds")
          const [ringing] = yield* sql<{ status: string }>`SELECT status FROM call_sessions WHERE id = ${sessionId}`
          assert.notStrictEqual(ringing!.status, "ENDED")
          // a new instance takes it past the ring deadline (the stale one, idle, is let go; the carrier's
          // next event, or this Status, starts the call's entity again): the carrier answered and the
          // callee talked 42 s, so the call is ANSWERED and billed 42 s, not ended unanswered
          yield* TestKit.advance("6 minutes")
          yield* calls(sessionId).Status()
          yield* TestKit.advance("1 second")
          const [ended] = yield* sql<{ status: string; outcome: string; durationSeconds: number; cost: number }>`
            SELECT status, outcome, duration_seconds, cost::int AS cost FROM call_sessions WHERE id = ${sessionId}
          `
          assert.deepStrictEqual(ended, { status: "ENDED", outcome: "ANSWERED", durationSeconds: 42, cost: 42 })
        })
    )
  })
})
