/**
 * The batched wallet, as a property: calls reserved with their session in one statement (a call's own
 * start, k = 1), ended with a cost, and settled by flushes that settle every ENDED call of the tenant
 * at once; every delivery duplicated or not, in a random order, many at once; flushes sent through
 * the Tenant entity and, concurrently, straight to the ledger (a second owner, the supervisor). After
 * each run: the wallet never went below zero, equals its ledger, every ended call is charged exactly
 * once what it cost (never more than was held for it), no charge is lost, and once every call has
 * ended and been flushed nothing stays reserved. Seeded (`FC_SEED` to vary it), on PGlite and
 * PostgreSQL (`DATABASE_URL`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import type { CallSpec, SessionId } from "@voiceagent/domain/Calls"
import type { TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import type { CallEndedEvent } from "@voiceagent/runner/CallRecords/CallEnded"
import { CallSessionsRepo } from "@voiceagent/runner/CallRecords/CallSessionsRepo"
import { CallJournal } from "@voiceagent/runner/Calls/CallJournal"
import * as TestRuntime from "@voiceagent/runner/Testing/TestRuntime"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Effect, Layer, Runtime as Runtime_ } from "effect"
import * as fc from "fast-check"
import * as crypto from "node:crypto"
import { v7 as uuidv7 } from "uuid"
import { newTenant } from "./WalletLock.js"

const Runtime = UsersRepo.Default.pipe(Layer.provideMerge(TestRuntime.layer()))

const SEED = Number(process.env.FC_SEED ?? 20261125)

const specOf = (tenantId: TenantId, limit: number | null): CallSpec => ({
  tenantId,
  jobId: `job_${uuidv7()}`,
  agentId: crypto.randomUUID(),
  direction: "OUTGOING",
  voiceNumberId: crypto.randomUUID(),
  provider: "PROVIDER_A",
  fromNumber: "+14155550100",
  toNumber: "+16465550100",
  customerId: null,
  campaignId: null,
  campaignAttemptId: null,
  metadata: {},
  dialTimeoutSeconds: 30,
  maxDurationSeconds: 600,
  concurrencyLimit: limit,
  currency: "USD",
  voicePerMinute: 60,
  billingIncrementSeconds: 1,
  reservationChunkSeconds: 60
} as unknown as CallSpec)

const endedEvent = (spec: CallSpec, sessionId: SessionId, at: number, cost: number): CallEndedEvent => ({
  sessionId,
  tenantId: spec.tenantId,
  agentId: spec.agentId,
  campaignId: null,
  campaignAttemptId: null,
  customerId: null,
  direction: "OUTGOING",
  fromNumber: spec.fromNumber,
  toNumber: spec.toNumber,
  outcome: "ANSWERED",
  endReason: "completed",
  startedAt: new Date(at - 1000),
  answeredAt: new Date(at - 500),
  endedAt: new Date(at),
  durationSeconds: 1,
  billedSeconds: 1,
  cost,
  currency: spec.currency,
  transcript: [],
  metadata: {}
})

type Op =
  | { readonly _tag: "Reserve"; readonly call: number }
  | { readonly _tag: "End"; readonly call: number }
  | { readonly _tag: "FlushEntity" }
  | { readonly _tag: "FlushLedger" }

const scenario = fc.record({
  topUp: fc.integer({ min: 0, max: 3_000 }),
  amount: fc.integer({ min: 1, max: 120 }),
  limit: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }),
  costs: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 40 }),
  flushes: fc.integer({ min: 1, max: 12 }),
  // which deliveries come twice, and the order they all come in (sort keys), in waves run at once
  duplicate: fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
  order: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 400, maxLength: 400 }),
  wave: fc.integer({ min: 1, max: 16 })
})

describe(`batched wallet (${TestRuntime.backendName()})`, () => {
  layer(Runtime, { timeout: 600_000, excludeTestServices: true })((it) => {
    it.effect(
      "reserves with their sessions, ends and settlement flushes, duplicated, reordered and concurrent: never below " +
        "zero, every charge once, none lost, nothing left reserved",
      () =>
        Effect.gen(function*() {
          const runtime = yield* Effect.runtime<
            SqlClient.SqlClient | Ledger | CallSessionsRepo | CallJournal | UsersRepo
          >()
          const tenantsClient = yield* TenantEntity.client
          const runs: Array<string> = []

          const run = (input: typeof scenario extends fc.Arbitrary<infer T> ? T : never) =>
            Effect.gen(function*() {
              const sql = yield* SqlClient.SqlClient
              const ledger = yield* Ledger
              const sessions = yield* CallSessionsRepo
              const journal = yield* CallJournal
              const tenantId = yield* newTenant
              const tenant = tenantsClient(tenantId)
              if (input.topUp > 0) yield* ledger.topUp(tenantId, "funds", input.topUp)
              const calls = input.costs.map((cost) => ({ id: uuidv7() as SessionId, cost }))
              const spec = specOf(tenantId, input.limit)
              const reserved = new Set<string>()

              const ops: Array<Op> = [
                ...calls.map((_, call) => ({ _tag: "Reserve", call }) as const),
                ...calls.map((_, call) => ({ _tag: "End", call }) as const),
                ...Array.from(
                  { length: input.flushes },
                  (_, i) => ({ _tag: i % 2 === 0 ? "FlushEntity" : "FlushLedger" }) as const
                )
              ]
              const delivered = [
                ...ops,
                ...ops.filter((_, i) => input.duplicate[i % input.duplicate.length])
              ]
                .map((op, i) => ({ op, key: input.order[i % input.order.length]! + i * 1e-9 }))
                .sort((a, b) => a.key - b.key)
                .map((d) => d.op)

              const apply = (op: Op) =>
                Effect.gen(function*() {
                  switch (op._tag) {
                    case "Reserve": {
                      const call = calls[op.call]!
                      const result = yield* Effect.either(sessions.insertReserved(call.id, spec, 60, Date.now(), {
                        amount: input.amount,
                        concurrencyLimit: input.limit
                      }))
                      if (result._tag === "Right") reserved.add(call.id)
                      return
                    }
                    case "End": {
                      const call = calls[op.call]!
                      // the entity's end, through the runner's journal: the cost never above what was held (one chunk
                      // here)
                      const at = Date.now()
                      const cost = Math.min(call.cost, input.amount)
                      yield* journal.end({
                        sessionId: call.id,
                        epoch: 1,
                        state: {
                          status: "ENDED",
                          outcome: "ANSWERED",
                          reason: "completed",
                          dialedAt: at - 1000,
                          ringingAt: null,
                          answeredAt: at - 500,
                          endedAt: at
                        },
                        startedAt: at - 1000,
                        durationSeconds: 1,
                        billedSeconds: 1,
                        cost,
                        transcript: [],
                        providerCallId: null,
                        event: endedEvent(spec, call.id, at, cost)
                      })
                      return
                    }
                    case "FlushEntity":
                      return yield* Effect.asVoid(tenant.SettleEnded())
                    case "FlushLedger":
                      return yield* Effect.asVoid(ledger.settleEnded(tenantId))
                  }
                })

              for (let i = 0; i < delivered.length; i += input.wave) {
                yield* Effect.all(delivered.slice(i, i + input.wave).map(apply), {
                  concurrency: "unbounded",
                  discard: true
                })
                const [w] = yield* sql<{ balance: number; reserved: number; openCalls: number }>`
                  SELECT balance, reserved, open_calls FROM wallets WHERE tenant_id = ${tenantId}
                `
                if (w !== undefined) {
                  assert.isAtLeast(Number(w.balance), 0, "the balance never below zero")
                  assert.isAtLeast(Number(w.balance) - Number(w.reserved), 0, "nor the available funds")
                  if (input.limit !== null) {
                    assert.isAtMost(w.openCalls, input.limit, "never more calls open than the limit")
                  }
                }
              }

              // every call that was placed ends (an end delivered before its reservation found no call),
              // and a last flush, sent twice
              for (const call of calls) {
                if (reserved.has(call.id)) {
                  yield* apply({ _tag: "End", call: calls.indexOf(call) })
                }
              }
              yield* Effect.all([tenant.SettleEnded(), ledger.settleEnded(tenantId)], { concurrency: "unbounded" })

              const [wallet] = yield* sql<{ balance: number; reserved: number; openCalls: number }>`
                SELECT balance, reserved, open_calls FROM wallets WHERE tenant_id = ${tenantId}
              `
              const [entries] = yield* sql<{ wallet: number | null; unbalanced: number }>`
                SELECT (SELECT sum(amount) FROM ledger_entries WHERE tenant_id = ${tenantId} AND account = 'wallet')
                  AS wallet,
                  (SELECT count(*)::int FROM (SELECT transaction_id FROM ledger_entries WHERE tenant_id = ${tenantId}
                    GROUP BY transaction_id HAVING sum(amount) <> 0) u) AS unbalanced
              `
              const charges = yield* sql<{ reference: string; amount: number; n: number }>`
                SELECT reference, sum(amount)::int AS amount, count(*)::int AS n FROM ledger_transactions
                WHERE tenant_id = ${tenantId} AND kind = 'call_charge' GROUP BY reference
              `
              const [sessionsCount] = yield* sql<
                { n: number }
              >`SELECT count(*)::int AS n FROM call_sessions WHERE tenant_id = ${tenantId}`
              const [openCount] = yield* sql<{ n: number }>`
                SELECT count(*)::int AS n FROM reservations WHERE tenant_id = ${tenantId} AND status = 'open'
              `
              const expected = calls.filter((c) => reserved.has(c.id)).map((c) => ({
                id: c.id,
                charge: Math.min(c.cost, input.amount)
              }))
              const byRef = new Map(charges.map((c) => [c.reference, c]))
              const totalCharged = expected.reduce((sum, c) => sum + c.charge, 0)

              const balance = Number(wallet?.balance ?? 0)
              assert.strictEqual(sessionsCount!.n, reserved.size, "a session exactly for each call that was reserved")
              assert.strictEqual(balance, Number(entries!.wallet ?? 0), "the wallet equals its ledger")
              assert.strictEqual(entries!.unbalanced, 0, "every ledger transaction balances")
              assert.strictEqual(balance, input.topUp - totalCharged, "charged exactly what the calls cost")
              for (const c of expected) {
                const charge = byRef.get(c.id)
                if (c.charge === 0) assert.isUndefined(charge, "nothing posted for a free call")
                else {
                  assert.strictEqual(charge?.n, 1, "one charge per call")
                  assert.strictEqual(charge?.amount, -c.charge, "charged what it cost")
                }
              }
              assert.strictEqual(
                charges.length,
                expected.filter((c) => c.charge > 0).length,
                "no charge for a call not placed"
              )
              assert.strictEqual(Number(wallet?.reserved ?? 0), 0, "nothing left reserved")
              assert.strictEqual(wallet?.openCalls ?? 0, 0, "no call left open")
              assert.strictEqual(openCount!.n, 0, "no reservation left open")
              runs.push(`${calls.length} calls, ${reserved.size} placed, ${totalCharged} charged`)
            })

          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(scenario, (input) => Runtime_.runPromise(runtime)(run(input))),
              { seed: SEED, numRuns: Number(process.env.FC_RUNS ?? 25), endOnFailure: true }
            )
          )
          console.log(`batched wallet: ${runs.length} runs (seed ${SEED}); first: ${runs.slice(0, 3).join("; ")}`)
          assert.isAtLeast(runs.length, 1)
        })
    )
  })
})
