import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { type CallSpec, LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, PersonaId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { LocalCalls } from "@voiceagent/runner/Calls/LocalCalls"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as TestRuntime from "@voiceagent/runner/Testing/TestRuntime"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Effect, Exit, Layer, Option, Scope } from "effect"
import * as crypto from "node:crypto"

const Runtime = UsersRepo.Default.pipe(
  Layer.provideMerge(TestRuntime.layer({ runtime: { simulator: { ringMillis: 2000 } } }))
)

const setup = Effect.gen(function*() {
  yield* TestRuntime.warmUp
  const users = yield* UsersRepo
  const agents = yield* AgentsRepo
  const { tenant } = yield* users.create({
    email: `rt-${crypto.randomUUID()}@example.com`,
    passwordHash: "x",
    companyName: "Co"
  })
  const tenantId = tenant!.id as TenantId
  const persona = Option.getOrThrow(yield* agents.findPersona("4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001" as PersonaId))
  const agent = yield* agents.create(tenantId, persona, "Agent")
  return { tenantId, agentId: agent.id as AgentId }
})

const specFor = (tenantId: TenantId, agentId: AgentId, toNumber: string): CallSpec => ({
  tenantId,
  jobId: "job",
  agentId,
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
  reservationChunkSeconds: 120
})

describe("runtime on the embedded cluster", () => {
  it.layer(Runtime, { timeout: 120_000 })((it) => {
    it.effect("an answered call goes through the machine and is settled once", () =>
      Effect.gen(function*() {
        const { agentId, tenantId } = yield* setup
        const tenants = yield* TenantEntity.client
        yield* tenants(tenantId).TopUp({ idempotencyKey: "t1", amount: 1000 })
        const calls = yield* LiveCallEntity.client
        const sessionId = crypto.randomUUID() as SessionId
        const started = yield* calls(sessionId).Start({ spec: specFor(tenantId, agentId, "+14155550042") })
        assert.strictEqual(started.status, "QUEUED")
        const ledger = yield* Ledger
        assert.deepStrictEqual((yield* ledger.balance(tenantId)).reserved, 10)
        // the kit's walk: what a timer starts (its SQL included) finishes before the clock moves on
        // (`TestClock.adjust` does not wait for it: under load the answer was read before it was written)
        yield* TestKit.advance("2 seconds")
        assert.strictEqual((yield* calls(sessionId).Status()).status, "IN_PROGRESS")
        yield* TestKit.advance("42 seconds")
        const ended = yield* calls(sessionId).Status()
        assert.deepStrictEqual(ended, { status: "ENDED", outcome: "ANSWERED" })
        const wallet = yield* ledger.balance(tenantId)
        // 42 s → 42 s billed (6 s increments) → ceil(42 × 5 / 60) = 4
        assert.deepStrictEqual([wallet.balance, wallet.reserved], [996, 0])
        const sql = yield* SqlClient.SqlClient
        const [session] = yield* sql<any>`SELECT * FROM call_sessions WHERE id = ${sessionId}`
        assert.deepStrictEqual([session.durationSeconds, session.billedSeconds, session.cost], [42, 42, 4])
        assert.isAbove(session.transcript.length, 1)
        // the simulated carrier's events went to the entity in-process, Start is volatile, and the
        // entity stays resident by its own volatile touches (no persisted keep-alive): the call stored
        // no cluster message; the tenant's reservation and settlement (volatile too) stored none
        const messages = yield* sql<
          { tag: string }
        >`SELECT tag FROM cluster_messages WHERE entity_id = ${sessionId} ORDER BY id`
        assert.deepStrictEqual(messages.map((m) => m.tag), [])
        const tenantMessages = yield* sql<
          { tag: string }
        >`SELECT tag FROM cluster_messages WHERE entity_id = ${tenantId} ORDER BY id`
        assert.deepStrictEqual(tenantMessages.map((m) => m.tag), ["TopUp"])
        const [events] = yield* sql<{ types: Array<string> }>`
          SELECT array_agg(type ORDER BY at, id) AS types FROM call_events WHERE session_id = ${sessionId}
        `
        // the conversation's media line opened with the answer and stopped when the callee hung up
        assert.deepStrictEqual(events!.types, [
          "queued",
          "dialing",
          "ringing",
          "answered",
          "media_connected",
          "media_stopped",
          "ended"
        ])
      }))

    it.effect("LocalCalls: delivers to a registered entity while its scope lasts, and says when it cannot", () =>
      Effect.gen(function*() {
        const local = yield* LocalCalls
        const sessionId = crypto.randomUUID() as SessionId
        const event = { eventId: "e1", kind: "ringing" as const, at: 0, providerCallId: null }
        assert.isFalse(yield* local.deliver(sessionId, event))
        const seen: Array<string> = []
        const scope = yield* Scope.make()
        yield* local.register(sessionId, (e) => Effect.sync(() => seen.push(e.eventId))).pipe(Scope.extend(scope))
        assert.isTrue(yield* local.deliver(sessionId, event))
        assert.deepStrictEqual(seen, ["e1"])
        yield* Scope.close(scope, Exit.void)
        assert.isFalse(yield* local.deliver(sessionId, { ...event, eventId: "e2" }))
        assert.deepStrictEqual(seen, ["e1"])
      }))
  })
})
