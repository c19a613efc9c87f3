import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import type { CallSpec, SessionId } from "@voiceagent/domain/Calls"
import type { TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { CallSessionsRepo } from "@voiceagent/runner/CallRecords/CallSessionsRepo"
import * as TestRuntime from "@voiceagent/runner/Testing/TestRuntime"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Deferred, Effect, Either, Fiber, Layer } from "effect"
import * as crypto from "node:crypto"
import { holdWalletLock, newTenant, waitingOnLock } from "./WalletLock.js"

const Runtime = UsersRepo.Default.pipe(Layer.provideMerge(TestRuntime.layer()))

/** An outgoing call's spec (the reservation's statement stores it with the session). */
const callSpec = (tenantId: TenantId) =>
  ({
    tenantId,
    jobId: `job_${crypto.randomUUID()}`,
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
    concurrencyLimit: null,
    currency: "USD",
    voicePerMinute: 60,
    billingIncrementSeconds: 1,
    reservationChunkSeconds: 60
  }) as unknown as CallSpec

/** The ledger's invariants, read straight from the tables. */
const invariants = (tenantId: TenantId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [wallet] = yield* sql<{ balance: number; reserved: number; openCalls: number }>`
      SELECT balance, reserved, open_calls FROM wallets WHERE tenant_id = ${tenantId}
    `
    const [entries] = yield* sql<{ wallet: number | null; all: number | null }>`
      SELECT sum(amount) FILTER (WHERE account = 'wallet') AS wallet, sum(amount) AS all FROM ledger_entries
        WHERE tenant_id = ${tenantId}
    `
    const [open] = yield* sql<{ held: number | null; calls: number }>`
      SELECT sum(amount) AS held, count(*) FILTER (WHERE purpose = 'call') AS calls
      FROM reservations WHERE tenant_id = ${tenantId} AND status = 'open'
    `
    const unbalanced = yield* sql<{ id: string }>`
      SELECT transaction_id AS id FROM ledger_entries WHERE tenant_id = ${tenantId}
        GROUP BY transaction_id HAVING sum(amount) <> 0
    `
    return {
      balance: wallet!.balance,
      reserved: wallet!.reserved,
      walletEntries: Number(entries!.wallet ?? 0),
      allEntries: Number(entries!.all ?? 0),
      openReservations: Number(open!.held ?? 0),
      unbalancedTransactions: unbalanced.length,
      // the wallet's count of open calls agrees with the open call reservations
      openCallsMiscounted: wallet!.openCalls - Number(open!.calls)
    }
  }).pipe(Effect.orDie)

describe(`ledger (${TestRuntime.backendName()})`, () => {
  // the real clock: nothing here waits on time, and the cluster's own pauses must pass by themselves
  layer(Runtime, { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("hundreds of calls settled concurrently, every settle sent twice: one charge each, books balanced", () =>
      Effect.gen(function*() {
        const tenantId = yield* newTenant
        const tenant = (yield* TenantEntity.client)(tenantId)
        yield* tenant.TopUp({ idempotencyKey: "funds", amount: 100_000 })
        const calls = Array.from({ length: 300 }, (_, i) => ({ id: `call-${i}`, cost: 1 + (i % 17) }))
        yield* Effect.forEach(
          calls,
          (c) => tenant.Reserve({ reservationId: c.id, amount: 20, concurrencyLimit: null }),
          {
            concurrency: 50,
            discard: true
          }
        )
        assert.strictEqual((yield* invariants(tenantId)).reserved, 6000)

        // every settlement twice, concurrently, and a late release of each
        const settles = calls.flatMap((c) => [c, c]).map((c) =>
          tenant.Settle({ reservationId: c.id, amount: c.cost, kind: "call_charge", reference: c.id })
        )
        const results = yield* Effect.all(settles, { concurrency: 64 })
        yield* Effect.forEach(calls, (c) => tenant.Release({ reservationId: c.id }), { concurrency: 32, discard: true })
        const charged = results.reduce((sum, r) => sum + r.charged, 0) / 2
        const expected = calls.reduce((sum, c) => sum + c.cost, 0)
        assert.strictEqual(charged, expected, "both answers of a duplicated settle agree")

        const books = yield* invariants(tenantId)
        assert.deepStrictEqual(books, {
          balance: 100_000 - expected,
          reserved: 0,
          walletEntries: 100_000 - expected,
          allEntries: 0,
          openReservations: 0,
          unbalancedTransactions: 0,
          openCallsMiscounted: 0
        })
        const sql = yield* SqlClient.SqlClient
        const [charges] = yield* sql<{ n: number }>`
          SELECT count(*) AS n FROM ledger_transactions WHERE tenant_id = ${tenantId} AND kind = 'call_charge'
        `
        assert.strictEqual(charges!.n, 300, "one charge per call")
      }))

    it.effect("the same operations straight on the ledger, racing each other, are still applied once", () =>
      Effect.gen(function*() {
        const tenantId = yield* newTenant
        const ledger = yield* Ledger
        const topUps = yield* Effect.all(Array.from({ length: 20 }, () => ledger.topUp(tenantId, "once", 500)), {
          concurrency: "unbounded"
        })
        assert.strictEqual(new Set(topUps.map((t) => t.id)).size, 1, "one transaction for one key")
        const reuse = yield* Effect.either(ledger.topUp(tenantId, "once", 501))
        assert.isTrue(Either.isLeft(reuse) && reuse.left._tag === "IdempotencyKeyReused")

        yield* Effect.all(Array.from({ length: 10 }, () => ledger.reserve(tenantId, "r", 100, null)), {
          concurrency: "unbounded"
        })
        yield* Effect.all(Array.from({ length: 10 }, (_, step) => ledger.extend(tenantId, "r", step % 2, 50)), {
          concurrency: "unbounded"
        })
        const settled = yield* Effect.all(
          Array.from({ length: 10 }, () => ledger.settle(tenantId, "r", 170, "call_charge", "r")),
          { concurrency: "unbounded" }
        )
        assert.isTrue(settled.every((s) => s.charged === 170 && s.released === 30))
        const charges = yield* Effect.all(
          Array.from({ length: 10 }, () => ledger.charge(tenantId, "sms-1", 3, "sms_charge", null)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(charges.map((c) => c.id)).size, 1)
        const books = yield* invariants(tenantId)
        assert.deepStrictEqual([
          books.balance,
          books.reserved,
          books.walletEntries,
          books.unbalancedTransactions,
          books.openCallsMiscounted
        ], [
          500 - 170 - 3,
          0,
          500 - 170 - 3,
          0,
          0
        ])
      }))

    it.effect(
      "the concurrent-call limit holds under concurrent reservations: exactly the limit taken, the rest refused; " +
        "settled, the places come back",
      () =>
        Effect.gen(function*() {
          const ledger = yield* Ledger
          const tenantId = yield* newTenant
          yield* ledger.topUp(tenantId, "funds", 100_000)
          const ids = Array.from({ length: 40 }, () => crypto.randomUUID())
          const results = yield* Effect.forEach(ids, (id) => Effect.either(ledger.reserve(tenantId, id, 10, 5)), {
            concurrency: "unbounded"
          })
          const taken = ids.filter((_, i) => Either.isRight(results[i]!))
          assert.strictEqual(taken.length, 5)
          assert.isTrue(results.every((r) => Either.isRight(r) || r.left._tag === "ConcurrentCallLimit"))
          // a message's hold is not a call: not counted, not refused by the limit
          yield* ledger.reserve(tenantId, `message:${crypto.randomUUID()}`, 10, 5, "message")
          assert.deepInclude(yield* invariants(tenantId), { reserved: 60, openCallsMiscounted: 0 })
          // a repeat of a taken reservation is not taken again, and not refused
          yield* ledger.reserve(tenantId, taken[0]!, 10, 5)
          yield* Effect.forEach(taken, (id) => ledger.settle(tenantId, id, 3, "call_charge", id), {
            concurrency: "unbounded",
            discard: true
          })
          assert.deepInclude(yield* invariants(tenantId), {
            balance: 100_000 - 15,
            reserved: 10,
            openCallsMiscounted: 0,
            unbalancedTransactions: 0
          })
          yield* ledger.reserve(tenantId, crypto.randomUUID(), 10, 5)
          assert.deepInclude(yield* invariants(tenantId), { reserved: 20, openCallsMiscounted: 0 })
        })
    )

    it.effect(
      "a call reservation whose session was never written is dropped once old and its funds given back; a young one, " +
        "one with a session and a message's hold stay",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const ledger = yield* Ledger
          const tenantId = yield* newTenant
          yield* ledger.topUp(tenantId, "funds", 1_000)
          const [abandoned, young, written] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()]
          yield* ledger.reserve(tenantId, abandoned, 100, null)
          yield* ledger.reserve(tenantId, young, 100, null)
          yield* ledger.reserve(tenantId, written, 100, null)
          yield* ledger.reserve(tenantId, `message:${crypto.randomUUID()}`, 50, null, "message")
          yield* sql`
            INSERT INTO call_sessions (id, tenant_id, job_id, agent_id, voice_number_id, provider, from_number,
              to_number, status, spec, currency)
            VALUES (${written}, ${tenantId}, 'job', ${crypto.randomUUID()}, ${crypto.randomUUID()}, 'PROVIDER_A',
              '+14155550100', '+14155550101', 'RINGING', '{}', 'USD')
          `
          // an hour old, but for the young one
          yield* sql`UPDATE reservations SET created_at = now() - interval '1 hour' WHERE tenant_id = ${tenantId}
            AND id <> ${young}`
          assert.strictEqual((yield* invariants(tenantId)).reserved, 350)

          assert.strictEqual(yield* ledger.dropAbandoned(600), 1)
          const after = yield* invariants(tenantId)
          assert.deepInclude(after, {
            balance: 1_000,
            reserved: 250,
            openReservations: 250,
            unbalancedTransactions: 0,
            openCallsMiscounted: 0
          })
          const left = yield* sql<{ id: string }>`SELECT id FROM reservations WHERE tenant_id = ${tenantId} ORDER BY id`
          assert.notInclude(left.map((r) => r.id), abandoned)
          assert.strictEqual(yield* ledger.dropAbandoned(600), 0, "nothing else is abandoned")

          // a Start that does come later reserves afresh, its funds checked again
          yield* ledger.reserve(tenantId, abandoned, 100, null)
          assert.strictEqual((yield* invariants(tenantId)).reserved, 350)
        })
    )

    it.effect("available never goes negative: reservations and charges beyond it are refused", () =>
      Effect.gen(function*() {
        const tenantId = yield* newTenant
        const ledger = yield* Ledger
        yield* ledger.topUp(tenantId, "seed", 100)
        const attempts = yield* Effect.all(
          Array.from({ length: 30 }, (_, i) => Effect.either(ledger.reserve(tenantId, `r${i}`, 10, null))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(attempts.filter(Either.isRight).length, 10)
        assert.isTrue(attempts.filter(Either.isLeft).every((e) => e.left._tag === "InsufficientFunds"))
        const charge = yield* Effect.either(ledger.charge(tenantId, "c", 1, "sms_charge", null))
        assert.isTrue(Either.isLeft(charge) && charge.left._tag === "InsufficientFunds")
        const wallet = yield* ledger.balance(tenantId)
        assert.deepStrictEqual([wallet.balance, wallet.reserved, wallet.available], [100, 100, 0])
        const limited = yield* Effect.either(ledger.reserve(tenantId, "over-limit", 0, 10))
        assert.isTrue(Either.isLeft(limited) && limited.left._tag === "ConcurrentCallLimit")
      }))

    // PostgreSQL only: a settlement is committed while a reservation's statement waits for the wallet
    it.effect.skipIf(TestRuntime.backendName() === "pglite")(
      "a reservation that waited for a settlement's commit takes the funds it released (was: 23514 from a row " +
        "computed on the statement's snapshot)",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const sessions = yield* CallSessionsRepo
          const ledger = yield* Ledger
          const tenantId = yield* newTenant
          yield* ledger.topUp(tenantId, "funds", 200)
          const spec = callSpec(tenantId)
          const reserve = (id: SessionId) =>
            sessions.insertReserved(id, spec, 60, Date.now(), { amount: 118, concurrencyLimit: null })
          // one call holds 118 of the 200, and has ended costing 10
          const first = crypto.randomUUID() as SessionId
          assert.strictEqual(yield* reserve(first), "inserted")
          yield* sql`UPDATE call_sessions SET status = 'ENDED', cost = 10, ended_at = now() WHERE id = ${first}`
          // its settlement runs and holds the wallet until let go
          const commit = yield* Deferred.make<void>()
          const settled = yield* Deferred.make<void>()
          const settlement = yield* ledger.settleEnded(tenantId).pipe(
            Effect.zipRight(Deferred.succeed(settled, undefined)),
            Effect.zipRight(Deferred.await(commit)),
            sql.withTransaction,
            Effect.fork
          )
          yield* Deferred.await(settled)
          // the second call's statement starts now (its snapshot: 118 reserved, 82 available), waits for the lock...
          const second = crypto.randomUUID() as SessionId
          const reserving = yield* Effect.fork(Effect.either(reserve(second)))
          yield* waitingOnLock("%INSERT INTO call_sessions%")
          // ...and gets the wallet once the settlement has released the 118 and charged 10
          yield* Deferred.succeed(commit, undefined)
          yield* Fiber.join(settlement)
          const taken = yield* Fiber.join(reserving)
          assert.deepStrictEqual(taken, Either.right("inserted" as const))
          const books = yield* invariants(tenantId)
          assert.deepStrictEqual([books.balance, books.reserved, books.openReservations, books.openCallsMiscounted], [
            190,
            118,
            118,
            0
          ])
        })
    )

    // PostgreSQL only: a second connection holds the wallet's lock while the top-up waits on it
    it.effect.skipIf(TestRuntime.backendName() === "pglite")(
      "a top-up whose caller goes away while it runs is still applied once, and a retry of its key gets its " +
        "transaction (was: the interruption kept as the key's reply)",
      () =>
        Effect.gen(function*() {
          const tenantId = yield* newTenant
          const tenant = (yield* TenantEntity.client)(tenantId)
          yield* tenant.TopUp({ idempotencyKey: "first", amount: 10 }) // the wallet's row exists
          const lock = yield* holdWalletLock(tenantId)
          const caller = yield* Effect.fork(tenant.TopUp({ idempotencyKey: "caller-went-away", amount: 25 }))
          yield* waitingOnLock("%FOR UPDATE%")
          yield* Fiber.interrupt(caller)
          yield* lock.release
          const retried = yield* tenant.TopUp({ idempotencyKey: "caller-went-away", amount: 25 }).pipe(
            Effect.timeout("30 seconds"),
            Effect.sandbox,
            Effect.either
          )
          assert.isTrue(
            Either.isRight(retried),
            `the retry is answered with the transaction, not ${Either.isLeft(retried) ? retried.left : ""}`
          )
          const again = yield* tenant.TopUp({ idempotencyKey: "caller-went-away", amount: 25 })
          assert.strictEqual(again.amount, 25)
          const books = yield* invariants(tenantId)
          assert.strictEqual(books.balance, 35, "applied once")
          assert.strictEqual(books.unbalancedTransactions, 0)
        })
    )
  })
})
