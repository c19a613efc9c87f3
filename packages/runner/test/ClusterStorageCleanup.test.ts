import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import type { TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import { cleanupClusterStorage } from "@voiceagent/runner/Cluster/StorageCleanup"
import * as TestRuntime from "@voiceagent/runner/Testing/TestRuntime"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Effect, Fiber, Layer } from "effect"
import { holdWalletLock, newTenant, waitingOnLock } from "./WalletLock.js"

const Runtime = UsersRepo.Default.pipe(Layer.provideMerge(TestRuntime.layer()))

/** The tenant entity's rows in the cluster's storage. */
const rowsOf = (tenantId: TenantId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ messages: number; unprocessed: number; replies: number }>`
      SELECT count(*)::int AS messages,
             count(*) FILTER (WHERE NOT m.processed)::int AS unprocessed,
             (SELECT count(*)::int FROM cluster_replies r WHERE r.request_id IN (SELECT request_id
               FROM cluster_messages WHERE entity_id = ${tenantId})) AS replies
      FROM cluster_messages m WHERE m.entity_id = ${tenantId}
    `
    return row!
  }).pipe(Effect.orDie)

describe(`cluster storage cleanup (${TestRuntime.backendName()})`, () => {
  // the real clock: message ids carry the time they were made
  layer(Runtime, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect(
      "processed requests made before the cutoff go with their replies, in batches; none after it; a retried key is " +
        "still applied once",
      () =>
        Effect.gen(function*() {
          const tenantId = yield* newTenant
          const tenant = (yield* TenantEntity.client)(tenantId)
          const before = Date.now() - 1
          const first = yield* tenant.TopUp({ idempotencyKey: "a", amount: 10 })
          yield* tenant.TopUp({ idempotencyKey: "b", amount: 20 })
          yield* tenant.TopUp({ idempotencyKey: "c", amount: 30 })
          const stored = yield* rowsOf(tenantId)
          assert.strictEqual(stored.messages, 3)
          assert.strictEqual(stored.replies, 3)

          assert.strictEqual(yield* cleanupClusterStorage(before), 0, "nothing made before the first")
          assert.deepStrictEqual(yield* rowsOf(tenantId), stored)

          // everything so far (other tests' rows too), two requests a statement
          const deleted = yield* cleanupClusterStorage(Date.now() + 1, 2)
          assert.isAtLeast(deleted, 3)
          assert.deepStrictEqual(yield* rowsOf(tenantId), { messages: 0, unprocessed: 0, replies: 0 })

          // a key sent again after its rows went is a new message, and the ledger's own key applies it once
          const again = yield* tenant.TopUp({ idempotencyKey: "a", amount: 10 })
          assert.strictEqual(again.id, first.id)
          assert.strictEqual((yield* tenant.GetBalance()).balance, 60)
        })
    )

    // PostgreSQL only: a second connection holds the wallet's lock while a top-up waits on it
    it.effect.skipIf(TestRuntime.backendName() === "pglite")(
      "a command still running is not touched, however old",
      () =>
        Effect.gen(function*() {
          const tenantId = yield* newTenant
          const tenant = (yield* TenantEntity.client)(tenantId)
          yield* tenant.TopUp({ idempotencyKey: "first", amount: 10 }) // the wallet's row exists
          const lock = yield* holdWalletLock(tenantId)
          const waiting = yield* Effect.fork(tenant.TopUp({ idempotencyKey: "waiting", amount: 5 }))
          yield* waitingOnLock("%FOR UPDATE%")
          yield* cleanupClusterStorage(Date.now() + 1)
          assert.deepStrictEqual(
            yield* rowsOf(tenantId),
            { messages: 1, unprocessed: 1, replies: 0 },
            "the running one stays"
          )
          yield* lock.release
          assert.strictEqual((yield* Fiber.join(waiting)).amount, 5)
          assert.strictEqual((yield* tenant.GetBalance()).balance, 15)
        })
    )
  })
})
